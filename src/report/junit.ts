import { writeFileNoFollow } from '../core/safe-write.js';
import { type CaseResult, type CheckerResult, type RunResults, type SuiteResult } from '../core/results.js';
import { errorLine, whyNot } from './case-reason.js';
import { passRateText } from './repeats.js';
import { skipWhy } from './gate-lines.js';
import { type FailOn, failsCheck } from '../config/fail-on.js';

/**
 * The run as JUnit XML (README "JUnit report"), the report every CI system and test reporter
 * reads: one `<testsuite>` per suite file and one for the markdown rubric, one `<testcase>` per
 * case. Written by hand: the format is a dozen elements, and an escaper that also drops what XML
 * 1.0 forbids is shorter and stricter than a general XML builder.
 */

/** What XML 1.0 cannot carry (C0 but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF), and C1 and bidi controls. */
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- removing controls is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for element content: controls removed, markup escaped. */
export function xmlText(text: string): string {
  return text
    .replace(FORBIDDEN, '')
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** Text for an attribute: as element text, plus quotes; line breaks kept as references (a parser would fold them). */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

/** At most `max` characters (code points, so no surrogate pair is split). */
const cut = (text: string, max: number) => {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
};

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

/** `2026-11-26T22:51:07`: the JUnit schemas' timestamp (UTC, no zone, no fraction). */
const timestamp = (iso: string) => iso.replace(/\.\d+/, '').replace(/Z$|[+-]\d\d:\d\d$/, '');

interface TestCase {
  classname: string;
  name: string;
  ms: number;
  outcome:
    | { kind: 'pass'; out?: string }
    | { kind: 'failure' | 'error'; message: string; body: string }
    | { kind: 'skipped'; message: string };
}

function caseOf(suite: string, c: CaseResult, results: RunResults, failOn: FailOn): TestCase {
  const base = { classname: suite, name: c.id, ms: c.duration_ms };
  const why = whyNot(c);
  // A case that fails the check is never `<skipped>`: reporters paint skipped green.
  const notPassing = (message: string): TestCase['outcome'] =>
    failsCheck(c.verdict, failOn)
      ? { kind: 'failure', message, body: message }
      : { kind: 'skipped', message };
  if (c.verdict === 'error') {
    const message = errorLine(c.error) || why[0] || 'errored';
    return { ...base, outcome: { kind: 'error', message, body: c.error ?? why.join('\n') } };
  }
  if (c.verdict === 'fail') {
    const failed = why.length > 0 ? why : c.gating_violations;
    const message = failed.join('; ') || `score ${c.score.toFixed(2)} is below the pass mark`;
    const rate = passRateText(c);
    const body = [
      `score ${c.score.toFixed(2)}`,
      ...(rate ? [`passed ${rate}`] : []),
      ...c.gating_violations,
      ...why,
    ].join('\n');
    return { ...base, outcome: { kind: 'failure', message, body } };
  }
  if (c.verdict === 'inconclusive')
    // Neither a pass nor a failure (README "Repeats"): shown apart, as the comment shows it first.
    return { ...base, outcome: notPassing(`inconclusive: passed ${passRateText(c) ?? '?'}`) };
  if (c.verdict === 'skipped') {
    const reason = c.skipped ?? 'budget';
    return { ...base, outcome: notPassing(`skipped, not judged (${reason}): ${skipWhy(reason, results)}`) };
  }
  if (c.verdict === 'borderline')
    return {
      ...base,
      outcome: { kind: 'pass', out: [`borderline: score ${c.score.toFixed(2)}`, ...why].join('\n') },
    };
  return { ...base, outcome: { kind: 'pass' } };
}

/** The markdown rubric as test cases: each gate, each must-have and nice-to-have, and its error. */
function rubricCases(r: CheckerResult): TestCase[] {
  const out: TestCase[] = r.gates.map((g) => ({
    classname: r.path,
    name: `gate: ${g.command}`,
    ms: g.duration_ms,
    outcome:
      g.verdict === 'pass'
        ? { kind: 'pass' }
        : {
            kind: 'failure',
            message: `${g.timed_out ? 'timed out' : `exit ${g.exit_code}`}: ${g.command}`,
            body: g.output,
          },
  }));
  for (const c of r.checks) {
    const label = `${c.id} "${cut(c.text, 100)}"`;
    const reason = c.reasoning ?? '';
    let outcome: TestCase['outcome'];
    if (c.satisfied === null)
      outcome = { kind: 'error', message: `${label}: not judged`, body: r.error ?? '' };
    else if (c.satisfied) outcome = { kind: 'pass' };
    else if (c.kind === 'nice') outcome = { kind: 'pass', out: `nice to have, not met: ${label}: ${reason}` };
    else outcome = { kind: 'failure', message: `${label} (required): ${reason}`, body: reason };
    out.push({ classname: r.path, name: `${c.kind}: ${c.id}`, ms: 0, outcome });
  }
  if (r.error && !r.checks.some((c) => c.satisfied === null))
    out.push({
      classname: r.path,
      name: 'rubric',
      ms: 0,
      outcome: { kind: 'error', message: errorLine(r.error), body: r.error },
    });
  return out;
}

function caseXml(t: TestCase, redact: (s: string) => string): string {
  const open = `    <testcase classname="${xmlAttr(redact(t.classname))}" name="${xmlAttr(redact(t.name))}" time="${seconds(t.ms)}"`;
  const o = t.outcome;
  if (o.kind === 'pass')
    return o.out
      ? `${open}>\n      <system-out>${xmlText(redact(o.out))}</system-out>\n    </testcase>`
      : `${open}/>`;
  if (o.kind === 'skipped')
    return `${open}>\n      <skipped message="${xmlAttr(redact(cut(o.message, 1000)))}"/>\n    </testcase>`;
  return `${open}>\n      <${o.kind} message="${xmlAttr(redact(cut(o.message, 1000)))}" type="${o.kind === 'error' ? 'error' : 'fail'}">${xmlText(redact(cut(o.body, 20_000)))}</${o.kind}>\n    </testcase>`;
}

interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

function totalsOf(cases: readonly TestCase[]): Totals {
  const t: Totals = { tests: cases.length, failures: 0, errors: 0, skipped: 0, ms: 0 };
  for (const c of cases) {
    if (c.outcome.kind === 'failure') t.failures++;
    else if (c.outcome.kind === 'error') t.errors++;
    else if (c.outcome.kind === 'skipped') t.skipped++;
    t.ms += c.ms;
  }
  return t;
}

const countsAttrs = (t: Totals) =>
  `tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="${t.skipped}" time="${seconds(t.ms)}"`;

function suiteXml(
  name: string,
  cases: readonly TestCase[],
  when: string,
  properties: Record<string, string>,
  redact: (s: string) => string,
): { xml: string; totals: Totals } {
  const totals = totalsOf(cases);
  const props = Object.entries(properties);
  const lines = [
    `  <testsuite name="${xmlAttr(redact(name))}" ${countsAttrs(totals)} timestamp="${when}">`,
    ...(props.length
      ? [
          '    <properties>',
          ...props.map(([k, v]) => `      <property name="${xmlAttr(k)}" value="${xmlAttr(redact(v))}"/>`),
          '    </properties>',
        ]
      : []),
    ...cases.map((c) => caseXml(c, redact)),
    '  </testsuite>',
  ];
  return { xml: lines.join('\n'), totals };
}

function suiteProperties(s: SuiteResult, results: RunResults): Record<string, string> {
  const rate = results.pass_rates?.find((p) => p.suite === s.path);
  return rate ? { pass_rate: rate.rate.toFixed(4), min_pass_rate: String(rate.min) } : {};
}

/**
 * The whole report; `redact` is applied to every text before it is escaped. `failOn` decides
 * which skipped and inconclusive cases fail the check (and so are `<failure>`, not `<skipped>`).
 */
export function renderJunit(
  results: RunResults,
  redact: (s: string) => string = (s) => s,
  failOn: FailOn = 'fail',
): string {
  const when = timestamp(results.started_at);
  const suites = results.suites.map((s) =>
    suiteXml(
      s.path,
      s.cases.map((c) => caseOf(s.path, c, results, failOn)),
      when,
      suiteProperties(s, results),
      redact,
    ),
  );
  if (results.rubric)
    suites.push(suiteXml(results.rubric.path, rubricCases(results.rubric), when, {}, redact));
  // Nothing judged because the input was invalid: one errored test, so no reader shows green.
  if (results.errors.length > 0)
    suites.push(
      suiteXml(
        'rubric-eval',
        [
          {
            classname: 'rubric-eval',
            name: 'inputs',
            ms: 0,
            outcome: {
              kind: 'error',
              message: errorLine(results.errors[0]),
              body: results.errors.join('\n'),
            },
          },
        ],
        when,
        {},
        redact,
      ),
    );
  const all = suites.reduce<Totals>(
    (a, s) => ({
      tests: a.tests + s.totals.tests,
      failures: a.failures + s.totals.failures,
      errors: a.errors + s.totals.errors,
      skipped: a.skipped + s.totals.skipped,
      ms: a.ms + s.totals.ms,
    }),
    { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 },
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rubric-eval" ${countsAttrs(all)}>`,
    ...suites.map((s) => s.xml),
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * Writes the report through an exclusive temporary file (core/safe-write.ts), so a reader never
 * sees half of it and no link in the checkout redirects it.
 */
export function writeJunitFile(
  file: string,
  results: RunResults,
  redact: (s: string) => string,
  failOn: FailOn,
): void {
  writeFileNoFollow(file, renderJunit(results, redact, failOn));
}
