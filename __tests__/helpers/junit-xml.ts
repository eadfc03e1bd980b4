import { SaxesParser } from 'saxes';

/** One element of a parsed document: its name, attributes, child elements and text. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses XML with saxes, a strict XML 1.0 parser: any well-formedness error (a bad character, an
 * unescaped `<` or `&`, a mismatched tag, bad UTF-16) throws. Returns the root element.
 */
export function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('opentag', (tag) => {
    const el: XmlElement = { name: tag.name, attributes: { ...tag.attributes }, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('text', (t) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += t;
  });
  parser.on('closetag', () => void stack.pop());
  parser.write(xml).close();
  if (!root) throw new Error('no root element');
  return root;
}

const COUNT = /^\d+$/;
const SECONDS = /^\d+(\.\d+)?$/;
/** The JUnit schemas' timestamp: ISO 8601 without a zone or fraction. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

function need(ok: boolean, what: string): void {
  if (!ok) throw new Error(`JUnit structure: ${what}`);
}

function attr(el: XmlElement, name: string, pattern?: RegExp): string {
  const v = el.attributes[name];
  need(v !== undefined, `<${el.name}> lacks ${name}`);
  if (pattern) need(pattern.test(v!), `<${el.name} ${name}="${v}"> is not of the form ${pattern}`);
  return v!;
}

function checkTestcase(tc: XmlElement): void {
  need(tc.name === 'testcase', `<${tc.name}> inside <testsuite>`);
  attr(tc, 'name');
  attr(tc, 'classname');
  attr(tc, 'time', SECONDS);
  const names = tc.children.map((c) => c.name);
  const outcomes = names.filter((n) => n === 'failure' || n === 'error' || n === 'skipped');
  need(outcomes.length <= 1, `testcase ${tc.attributes.name} has ${outcomes.length} outcomes`);
  for (const c of tc.children) {
    need(
      ['failure', 'error', 'skipped', 'system-out', 'system-err'].includes(c.name),
      `<${c.name}> in a testcase`,
    );
    if (c.name === 'failure' || c.name === 'error') attr(c, 'message');
  }
  // The schema's order: the outcome, then system-out, then system-err.
  const order = names.map((n) => (n === 'system-out' ? 1 : n === 'system-err' ? 2 : 0));
  need(
    order.every((v, i) => i === 0 || v >= order[i - 1]!),
    `testcase ${tc.attributes.name}: children out of order`,
  );
}

/** What a reader such as dorny/test-reporter counts: each testcase by what it holds. */
export interface JunitTotals {
  tests: number;
  passed: number;
  failures: number;
  errors: number;
  skipped: number;
}

function countCases(cases: readonly XmlElement[]): JunitTotals {
  const t: JunitTotals = { tests: 0, passed: 0, failures: 0, errors: 0, skipped: 0 };
  for (const tc of cases) {
    t.tests++;
    const kinds = tc.children.map((c) => c.name);
    if (kinds.includes('failure')) t.failures++;
    else if (kinds.includes('error')) t.errors++;
    else if (kinds.includes('skipped')) t.skipped++;
    else t.passed++;
  }
  return t;
}

/**
 * Validates a document against the common JUnit structure (the Jenkins / Ant `junit-10.xsd`
 * family every reader accepts): `<testsuites>` of `<testsuite name tests failures errors skipped
 * time timestamp>`, each with optional `<properties>` then `<testcase name classname time>`, each
 * with at most one of `<failure message>`, `<error message>`, `<skipped>`, then `<system-out>`,
 * `<system-err>`. The declared counts must equal what the testcases hold, per suite and in total.
 * Returns the totals as a reader counts them from the testcases.
 */
export function validateJunit(xml: string): { root: XmlElement; totals: JunitTotals; cases: XmlElement[] } {
  need(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>'), 'no XML declaration with UTF-8');
  const root = parseXml(xml);
  need(root.name === 'testsuites', `root is <${root.name}>`);
  const all: XmlElement[] = [];
  for (const suite of root.children) {
    need(suite.name === 'testsuite', `<${suite.name}> inside <testsuites>`);
    attr(suite, 'name');
    attr(suite, 'time', SECONDS);
    attr(suite, 'timestamp', TIMESTAMP);
    const props = suite.children.filter((c) => c.name === 'properties');
    need(
      props.length <= 1 && (props.length === 0 || suite.children[0] === props[0]),
      'properties first, once',
    );
    for (const p of props[0]?.children ?? []) {
      need(p.name === 'property', `<${p.name}> in <properties>`);
      attr(p, 'name');
      attr(p, 'value');
    }
    const cases = suite.children.filter((c) => c.name !== 'properties');
    cases.forEach(checkTestcase);
    const t = countCases(cases);
    for (const k of ['tests', 'failures', 'errors', 'skipped'] as const)
      need(
        Number(attr(suite, k, COUNT)) === t[k],
        `suite ${suite.attributes.name}: ${k}="${suite.attributes[k]}" but ${t[k]} testcases`,
      );
    all.push(...cases);
  }
  const totals = countCases(all);
  for (const k of ['tests', 'failures', 'errors', 'skipped'] as const)
    need(
      Number(attr(root, k, COUNT)) === totals[k],
      `testsuites ${k}="${root.attributes[k]}" but ${totals[k]} testcases`,
    );
  return { root, totals, cases: all };
}
