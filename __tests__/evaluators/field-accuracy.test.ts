import { parseDate, resolvePath, scoreFieldAccuracy } from '../../src/evaluators/field-accuracy.js';
import { type FieldSpec } from '../../src/suite/types.js';

const field = (path: string, over: Partial<FieldSpec> = {}): FieldSpec => ({
  path,
  match: 'exact',
  required: true,
  weight: 1,
  tolerance: 0,
  relative: false,
  formats: null,
  ...over,
});
const weighted = (fields: FieldSpec[]) => ({ fields, aggregation: 'weighted_average' as const });

test('the weighted average of the fields, with AgentV messages', () => {
  const s = scoreFieldAccuracy(
    weighted([field('id', { weight: 2 }), field('currency'), field('total', { weight: 3 })]),
    JSON.stringify({ id: 'INV-1', currency: 'EUR', total: 10 }),
    { id: 'INV-1', currency: 'USD', total: 10 },
  );
  expect(s.score).toBeCloseTo(5 / 6, 10);
  expect(s.verdict).toBe('pass');
  expect(s.hits).toEqual(['id', 'total']);
  expect(s.misses).toEqual(['currency (value mismatch)']);
  expect(s.reasoning).toBe('2/3 fields matched');
});

test('invoice-004 of the document-extraction example: 11/13 as AgentV recorded', () => {
  // A missing required field scores 0 at its weight; a field with no expected value counts as a hit at its full weight.
  const fields = [
    field('invoice_number', { weight: 2 }),
    field('invoice_date', { match: 'date', formats: ['DD-MMM-YYYY', 'YYYY-MM-DD', 'MM/DD/YYYY'] }),
    field('currency'),
    field('supplier.name'),
    field('supplier.address', { required: false, weight: 0.5 }),
    field('importer.name'),
    field('importer.address', { required: false, weight: 0.5 }),
    field('net_total', { match: 'numeric_tolerance', tolerance: 1, weight: 3 }),
    field('gross_total', { match: 'numeric_tolerance', tolerance: 1, weight: 3 }),
  ];
  const invoice = {
    invoice_date: '15-JAN-2025',
    currency: 'USD',
    net_total: 1889,
    gross_total: 1889,
    supplier: { name: 'Acme - Shipping' },
    importer: { name: 'Global Trade Co' },
  };
  const s = scoreFieldAccuracy(weighted(fields), JSON.stringify(invoice), {
    ...invoice,
    invoice_number: 'INV-2025-001234',
  });
  expect(s.score).toBeCloseTo(11 / 13, 12);
  expect(s.hits).toEqual([
    'invoice_date',
    'currency',
    'supplier.name',
    'supplier.address: no expected value',
  ]);
  expect(s.misses).toEqual(['invoice_number (required, missing)']);
});

test('an optional field missing from the candidate is left out of the average', () => {
  const s = scoreFieldAccuracy(
    weighted([field('a'), field('b', { required: false, weight: 5 })]),
    '{"a": 1}',
    {
      a: 1,
      b: 2,
    },
  );
  expect(s.score).toBe(1);
  expect(s.hits).toEqual(['a', 'b: optional field missing']);
});

test('numeric tolerance: a difference equal to the tolerance passes, beyond it fails; relative divides by the expected', () => {
  const abs = weighted([field('n', { match: 'numeric_tolerance', tolerance: 0.5 })]);
  expect(scoreFieldAccuracy(abs, '{"n": 1889.5}', { n: 1889 }).hits).toEqual([
    'n (within tolerance: diff=0.50)',
  ]);
  expect(scoreFieldAccuracy(abs, '{"n": 1889.51}', { n: 1889 }).misses).toEqual([
    'n (outside tolerance: diff=0.51, tolerance=0.5)',
  ]);
  const rel = weighted([field('n', { match: 'numeric_tolerance', tolerance: 0.1, relative: true })]);
  expect(scoreFieldAccuracy(rel, '{"n": 110}', { n: 100 }).score).toBe(1);
  expect(scoreFieldAccuracy(rel, '{"n": 111}', { n: 100 }).score).toBe(0);
  expect(scoreFieldAccuracy(abs, '{"n": "12.25"}', { n: 12 }).score).toBe(1);
  expect(scoreFieldAccuracy(abs, '{"n": "twelve"}', { n: 12 }).misses).toEqual(['n (non-numeric value)']);
});

test('dates compare by calendar day across formats; US or EU by the formats given', () => {
  const date = (formats: string[] | null) => weighted([field('d', { match: 'date', formats })]);
  expect(scoreFieldAccuracy(date(null), '{"d": "2025-01-15"}', { d: '15-JAN-2025' }).score).toBe(1);
  expect(scoreFieldAccuracy(date(['MM/DD/YYYY']), '{"d": "01/02/2025"}', { d: '2025-01-02' }).score).toBe(1);
  expect(scoreFieldAccuracy(date(['DD/MM/YYYY']), '{"d": "01/02/2025"}', { d: '2025-02-01' }).score).toBe(1);
  expect(scoreFieldAccuracy(date(null), '{"d": "2025-01-16"}', { d: '2025-01-15' }).misses).toEqual([
    'd (date mismatch: got 2025-01-16, expected 2025-01-15)',
  ]);
  expect(scoreFieldAccuracy(date(null), '{"d": "soon"}', { d: '2025-01-15' }).misses).toEqual([
    'd (unparseable candidate date)',
  ]);
  // Neither US nor EU given: the number above 12 is the day.
  expect(parseDate('25/12/2024', [])).toEqual({ y: 2024, m: 11, d: 25 });
});

test('all_or_nothing: 1 only when every field matches', () => {
  const cfg = { fields: [field('a'), field('b')], aggregation: 'all_or_nothing' as const };
  expect(scoreFieldAccuracy(cfg, '{"a": 1, "b": 2}', { a: 1, b: 2 }).score).toBe(1);
  expect(scoreFieldAccuracy(cfg, '{"a": 1, "b": 3}', { a: 1, b: 2 }).score).toBe(0);
});

test('a candidate that is not JSON scores 0 and says it could not be parsed; fenced JSON is read', () => {
  const s = scoreFieldAccuracy(weighted([field('a')]), 'I could not extract anything.', { a: 1 });
  expect(s).toMatchObject({
    score: 0,
    verdict: 'fail',
    misses: ['Failed to parse candidate answer as JSON'],
  });
  expect(scoreFieldAccuracy(weighted([field('a')]), 'Here:\n```json\n{"a": 1}\n```', { a: 1 }).score).toBe(1);
  expect(scoreFieldAccuracy(weighted([field('a')]), '{"a": 1}', null).misses).toEqual([
    'No expected data found in expected_messages',
  ]);
});

test('exact compares structures deeply and names a type mismatch; at most four hits and misses are kept', () => {
  const s = scoreFieldAccuracy(weighted([field('o'), field('n')]), '{"o": {"x": [1, 2]}, "n": "1"}', {
    o: { x: [1, 2] },
    n: 1,
  });
  expect(s.hits).toEqual(['o']);
  expect(s.misses).toEqual(['n (type mismatch: got string, expected number)']);
  const many = 'abcdef'.split('').map((k) => field(k));
  expect(
    scoreFieldAccuracy(weighted(many), '{}', { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1 }).misses,
  ).toHaveLength(4);
});

test('paths: dots and [i] indexes', () => {
  const doc = { line_items: [{ description: 'OCEAN FREIGHT' }, { amount: 2 }] };
  expect(resolvePath(doc, 'line_items[0].description')).toBe('OCEAN FREIGHT');
  expect(resolvePath(doc, 'line_items[1].amount')).toBe(2);
  expect(resolvePath(doc, 'line_items[2].amount')).toBeUndefined();
  expect(resolvePath(doc, 'line_items.x.y')).toBeUndefined();
});
