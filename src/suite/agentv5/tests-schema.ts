import { z } from 'zod';

/**
 * The raw shape of an AgentV 5 / promptfoo suite (`prompts`, `providers`, `tests` with `vars`
 * and `assert`). Structural only, like the v2 schema beside it: names the loader maps or
 * refuses (assertion types, provider kinds) are checked there, with positions. Exported into
 * `schema/eval-suite.schema.json` as the second accepted shape.
 */

const Score01 = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .min(0, { error: `${what} must be between 0 and 1` })
    .max(1, { error: `${what} must be between 0 and 1` });

const AssertionSchema = z
  .union(
    [
      z.string().meta({
        description: 'A rubric criterion: all of a test’s strings are judged in one checklist call.',
      }),
      z.looseObject({
        type: z.string({ error: 'an assertion needs `type`' }).meta({
          description:
            'equals, contains, icontains, contains-any, contains-all, icontains-any, icontains-all, starts-with, ends-with, regex, is-json, llm-rubric, script, assert-set, trajectory:tool-used, trajectory:tool-sequence, trajectory:tool-args-match, latency, cost, token-usage, field-accuracy, execution-metrics; `not-` before a type negates it',
        }),
        value: z.unknown().optional(),
        metric: z.string().optional().meta({ description: 'The assertion’s name in results.' }),
        weight: z
          .number({ error: 'weight must be a number' })
          .min(0, { error: 'weight must be >= 0' })
          .optional(),
        required: z.boolean({ error: 'required must be true or false (use min_score for a bar)' }).optional(),
        min_score: Score01('min_score').optional(),
        negate: z.boolean({ error: 'negate must be true or false' }).optional(),
        threshold: z.number({ error: 'threshold must be a number' }).optional(),
        prompt: z
          .union([
            z.string(),
            z.looseObject({
              command: z.union([z.string(), z.array(z.string()).min(1)]),
              config: z.record(z.string(), z.unknown()).optional(),
            }),
          ])
          .optional()
          .meta({
            description:
              'A prompt file (file://...), or a script that prints the grader prompt: {command, config?}.',
          }),
        command: z.union([z.string(), z.array(z.string())]).optional(),
        assert: z.array(z.lazy((): z.ZodType => AssertionSchema)).optional(),
      }),
      z.looseObject({ $ref: z.string() }).meta({
        description:
          "promptfoo: `$ref: '#/assertionTemplates/<name>'`, with keys that override the template's.",
      }),
    ],
    { error: 'an assertion is a string criterion or an object with `type`' },
  )
  .meta({ id: 'Assertion' });

export const TestSchema = z
  .looseObject({
    id: z.union([z.string().min(1), z.number()], { error: 'id must be a string' }).optional(),
    description: z.string().optional(),
    vars: z.record(z.string(), z.unknown(), { error: 'vars must be a mapping' }).optional(),
    assert: z.array(AssertionSchema, { error: 'assert must be a list' }).optional(),
    threshold: Score01('threshold').optional(),
    conversation_id: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    // v2's case keys: a v2 case (`tests` is also v2's alias of `evalcases`) never matches this shape.
    ...Object.fromEntries(
      ['input_messages', 'expected_messages', 'expected_outcome', 'rubrics', 'evaluators'].map((k) => [
        k,
        z.never({ error: `\`${k}\` is AgentV v2; in this format use vars and assert` }).optional(),
      ]),
    ),
  })
  .meta({ id: 'Test', description: 'One test: its vars, and the assertions its answer must meet.' });

const REPEAT_ERROR = 'repeat must be an integer from 1 to 20 or auto';

const Provider = z.union([z.string(), z.looseObject({ id: z.string(), label: z.string().optional() })], {
  error: 'a provider is a label, a file:// reference, or an object with `id`',
});

export const TestsSuiteSchema = z
  .looseObject({
    $schema: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    prompts: z
      .unknown()
      .optional()
      .meta({ description: 'Templates ({{ var }}), chat message lists, or {id, prompt|raw|file|messages}.' }),
    providers: z.union([Provider, z.array(Provider)]).optional(),
    tests: z
      .union([z.string(), z.array(z.union([z.string(), TestSchema]))], {
        error: '`tests` must be a list of tests (or file:// references) or one file:// reference',
      })
      .optional(),
    scenarios: z
      .array(z.unknown(), { error: '`scenarios` is a list of {config, tests}' })
      .optional()
      .meta({ description: 'promptfoo: each config entry (vars, assert) crossed with each test.' }),
    assertionTemplates: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "promptfoo: assertions referenced with `$ref: '#/assertionTemplates/<name>'`." }),
    default_test: z.union([TestSchema, z.string()]).optional().meta({
      description: 'Merged into every test: vars by key, assertions first.',
    }),
    defaultTest: z
      .union([TestSchema, z.string()])
      .optional()
      .meta({ description: 'promptfoo’s spelling of default_test.' }),
    assert: z.array(AssertionSchema, { error: 'assert must be a list' }).optional(),
    threshold: Score01('threshold').optional(),
    min_pass_rate: Score01('min_pass_rate').optional().meta({
      description:
        'Share of the suite’s tests that must pass (0..1); with it, a failing test fails the check only through the rate.',
    }),
    // As in the v2 suite (schema.ts); written out again: each schema module imports only zod.
    repeat: z
      .union(
        [
          z.int({ error: REPEAT_ERROR }).min(1, { error: REPEAT_ERROR }).max(20, { error: REPEAT_ERROR }),
          z.literal('auto'),
        ],
        { error: REPEAT_ERROR },
      )
      .optional()
      .meta({
        description:
          'Answers per test from the provider (README "Repeats"): 1..20, or auto. The `repeat` input overrides it.',
      }),
  })
  .meta({
    title: 'rubric-eval / AgentV 5 and promptfoo suite',
    description: 'prompts, providers and tests with vars and assert.',
  });
