import { stripVTControlCharacters } from 'node:util';
import { colourWanted, renderTerminal, styleFor } from '../../src/report/terminal.js';
import { emptyUsage, type RunResults } from '../../src/core/results.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };
const term = { TERM: 'xterm-256color' };

describe('colour follows Node’s rule', () => {
  test.each([
    ['a colour terminal', tty, term, true],
    ['a pipe', pipe, term, false],
    ['NO_COLOR on a terminal', tty, { ...term, NO_COLOR: '1' }, false],
    ['NO_COLOR set empty still means no', tty, { ...term, NO_COLOR: '' }, false],
    ['NODE_DISABLE_COLORS', tty, { ...term, NODE_DISABLE_COLORS: '1' }, false],
    ['TERM=dumb', tty, { TERM: 'dumb' }, false],
    ['FORCE_COLOR=1 into a pipe', pipe, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR empty into a pipe', pipe, { FORCE_COLOR: '' }, true],
    ['FORCE_COLOR=0 on a terminal', tty, { ...term, FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR wins over NO_COLOR', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    ['FORCE_COLOR wins over TERM=dumb', tty, { FORCE_COLOR: '2', TERM: 'dumb' }, true],
  ])('%s', (_name, stream, env, want) => {
    expect(colourWanted(stream, env)).toBe(want);
  });
});

test('the table is coloured only when colour is wanted', () => {
  const results: RunResults = {
    version: 1,
    verdict: 'fail',
    score: 0.5,
    counts: { pass: 0, borderline: 0, fail: 1, error: 0 },
    suites: [],
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: ['r.md:3:3 unclosed-code-span: broken'],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-01-01T00:00:00Z',
    duration_ms: 1200,
  };
  const coloured = renderTerminal(results, styleFor(pipe, { FORCE_COLOR: '1' }));
  const bare = renderTerminal(results, styleFor(tty, { ...term, NO_COLOR: '1' }));
  expect(coloured).toContain('\u001b[');
  expect(bare).not.toContain('\u001b[');
  expect(stripVTControlCharacters(coloured)).toBe(bare);
});
