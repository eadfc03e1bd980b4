/**
 * Labels for the fixture repository (helpers/fixture-repo.ts) against the Paris judge, which says
 * `names-paris` is met exactly when the answer contains "Paris", meets `concise` always and scores
 * every range 9.
 */
const line = (id: string, answer: string, labels: Record<string, boolean | number>) =>
  JSON.stringify({ suite: 'evals/qa.yaml', id, answer, labels, rater: 'ana' });

/**
 * People who disagree with the judge on `names-paris` half the time: 6 answers that contain
 * "Paris" (3 labelled met, 3 not: "Paris, Texas"), 6 that do not (3 met: "Paname", 3 not).
 * judge yes & human yes 3, judge yes & human no 3, judge no & human yes 3, both no 3: κ = 0.
 * `concise`: met in all 12 on both sides, so κ is undefined there.
 */
export function disagreeingLabels(): string[] {
  const rows: [string, boolean][] = [
    ['Paris is the capital of France.', true],
    ['The capital is Paris.', true],
    ['Paris.', true],
    ['Paris, Texas, is the capital.', false],
    ['Not Paris; it is Marseille.', false],
    ['Paris Hilton would know.', false],
    ['Paname, as the locals say.', true],
    ['The City of Light on the Seine.', true],
    ['The French capital on the Seine, home of the Louvre.', true],
    ['Lyon.', false],
    ['Marseille is the capital.', false],
    ['I do not know.', false],
  ];
  return rows.map(([answer, met]) =>
    line('capital-of-france', answer, { 'names-paris': met, concise: true }),
  );
}

/** People who agree with the judge on every one of 12 answers: κ 1 on `names-paris`. */
export function agreeingLabels(): string[] {
  const answers = ['Paris.', 'Paris it is.', 'It is Paris.', 'Paris, France.', 'Paris!', 'Capital: Paris.'];
  const wrong = ['Lyon.', 'Nice.', 'Lille.', 'Marseille.', 'Bordeaux.', 'Toulouse.'];
  return [
    ...answers.map((a) => line('capital-of-france', a, { 'names-paris': true, concise: true })),
    ...wrong.map((a) => line('capital-of-france', a, { 'names-paris': false, concise: true })),
  ];
}

/**
 * 0-10 labels on `accuracy` of the quicksort case: people gave 9,9,8,9,10,9,9,8,9,9; the judge
 * scores 9 throughout. Weighted κ = 1 − Σ(9 − h)² / Σ(9 − h)² = 0 (the judge's one score carries
 * no information); MAE = 3 / 10 = 0.3; judge higher 2, lower 1.
 */
export function rangeLabels(): string[] {
  return [9, 9, 8, 9, 10, 9, 9, 8, 9, 9].map((h, i) =>
    line('explain-quicksort', `Quicksort answer number ${i}: pivot, partition, recurse.`, { accuracy: h }),
  );
}

const indent = (n: number, lines: string[]) => lines.map((l) => `${' '.repeat(n)}${l}`);
const FACTS = [
  'type: llm_judge',
  'rubrics:',
  '  - id: names-paris',
  '    expected_outcome: Says Paris',
  '    required: true',
  '  - id: concise',
  '    expected_outcome: One sentence',
];
const SHAPE = ['type: code_judge', 'script: [node, -e, "console.log(JSON.stringify({ score: 1 }))"]'];

/**
 * The fixture's `evals/qa.yaml` with `capital-of-france` graded only by a composite `combo` whose
 * checklist `facts` (names-paris required, concise) sits inside a nested composite `inner`,
 * beside a code judge `shape` scoring 1, combined by `weighted_average` (inner 3, shape 1); or,
 * with `scripted`, `facts` directly under `combo` with a code_judge aggregator that says 0.9.
 */
export function compositeSuite(scripted = false): string {
  const combo = scripted
    ? [
        '    - name: facts',
        ...indent(6, FACTS),
        '    - name: shape',
        ...indent(6, SHAPE),
        '  aggregator:',
        '    type: code_judge',
        '    script: [node, -e, "console.log(JSON.stringify({ score: 0.9 }))"]',
      ]
    : [
        '    - name: inner',
        '      type: composite',
        '      evaluators:',
        '        - name: facts',
        ...indent(10, FACTS),
        '    - name: shape',
        ...indent(6, SHAPE),
        '  aggregator:',
        '    type: weighted_average',
        '    weights: { inner: 3, shape: 1 }',
      ];
  return `${[
    'description: Composites',
    'evalcases:',
    '  - id: capital-of-france',
    '    expected_outcome: Names Paris as the capital',
    '    input: What is the capital of France?',
    '    evaluators:',
    ...indent(6, ['- name: combo', '  type: composite', '  evaluators:', ...combo]),
  ].join('\n')}\n`;
}
