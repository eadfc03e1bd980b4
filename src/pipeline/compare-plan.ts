import { type Diagnostic } from '../core/diagnostics.js';
import { sha256Hex } from '../core/sha256.js';
import { type RepeatSetting } from '../core/repeat-setting.js';
import { type ShardSpec } from '../config/shard-spec.js';
import { type EvalCase, type EvalSuite } from '../suite/types.js';

/**
 * What the plan must know of promptfoo's `select-best` / `max-score` (compare-siblings.ts): their
 * siblings are graded together, so a sibling's definition is part of each one's, and a run that
 * would split them or answer them unevenly is refused before any call.
 */

interface Ordered {
  suite: EvalSuite;
  evalCase: EvalCase;
  definitionHash: string;
}

const groupKey = (o: Ordered) => `${o.suite.path}\0${o.evalCase.compare!.cases.join('\0')}`;

/**
 * A compared case's hash covers its siblings' definitions: a new prompt, provider or assertion
 * on one of them can change who wins, so a baseline no longer compares (`redefined`).
 */
export function comparedTogether(all: Ordered[]): void {
  const groups = new Map<string, Ordered[]>();
  for (const o of all) {
    if (!o.evalCase.compare) continue;
    const key = groupKey(o);
    const members = groups.get(key);
    if (members) members.push(o);
    else groups.set(key, [o]);
  }
  for (const members of groups.values()) {
    const joint = members.map((m) => `${m.evalCase.id}:${m.definitionHash}`).join('\n');
    for (const m of members) m.definitionHash = sha256Hex(`${m.definitionHash}\n${joint}`, 16);
  }
}

/**
 * One error per compared test the run cannot compare: a sharded run deals its cases round-robin
 * (docs/sharding.md), so siblings land in different jobs; with `repeat: auto` each case stops at its
 * own number of answers, where promptfoo compares repeat by repeat.
 */
export function compareProblems(
  all: readonly Ordered[],
  run: { shard: ShardSpec | null; repeat: RepeatSetting | null },
): Diagnostic[] {
  const told = new Set<string>();
  const out: Diagnostic[] = [];
  for (const o of all) {
    const compare = o.evalCase.compare;
    if (!compare || told.has(groupKey(o))) continue;
    const what = compare.selectBest ? 'select-best' : 'max-score';
    const repeat = run.repeat ?? o.suite.repeat ?? 1;
    const why = run.shard
      ? `${what} compares this test's cases with each other, and a sharded run deals them to different jobs; run this suite without \`shard\` (in a job of its own)`
      : repeat === 'auto'
        ? `${what} compares a test's answers repeat by repeat, and with repeat: auto each case stops at its own number of answers; use a fixed repeat (2 to 20)`
        : null;
    if (!why) continue;
    told.add(groupKey(o));
    out.push({
      severity: 'error',
      file: o.evalCase.sourcePath ?? o.evalCase.suitePath,
      line: o.evalCase.pos.line,
      column: o.evalCase.pos.column,
      rule: 'compare-not-run',
      message: why,
      subject: `case '${o.evalCase.id}'`,
    });
  }
  return out;
}
