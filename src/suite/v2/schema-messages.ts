import { z } from 'zod';

/** The shared primitives of the v2 schema, and its messages (a case's input and expected output). */
export const NonEmptyText = z.string().min(1, { error: 'must not be empty' });
export const Weight = z
  .number({ error: 'weight must be a number' })
  .meta({ description: 'Relative weight, >= 0.' });

/**
 * Objects AgentV closes (and rubric items, whose typos loosen a gate) are closed in the exported
 * JSON Schema, so editors flag a typo as it is typed. At load time they stay loose: the loader
 * reports unknown keys itself, with a position and a did-you-mean.
 */
export const CLOSED = { additionalProperties: false } as const;

const ContentPartSchema = z
  .looseObject({
    type: z.enum(['text', 'file'], { error: "part type must be 'text' or 'file'" }),
    value: z.string({ error: 'part value must be a string' }),
  })
  .meta(CLOSED);

const MessageContentSchema = z.union(
  [z.string(), z.array(ContentPartSchema), z.record(z.string(), z.unknown())],
  { error: 'content must be a string, a list of {type: text|file, value} parts, or an object' },
);

export const MessageSchema = z
  .looseObject({
    role: z
      .string({ error: 'role must be a string' })
      .meta({ description: 'system, user, assistant or tool' }),
    content: MessageContentSchema.optional(),
    // AgentV's loader accepts these on messages (its JSON Schema forgets them); kept as written.
    name: z.string().optional().meta({ description: 'Speaker name (AgentV); not sent to the judge.' }),
    tool_calls: z.array(z.unknown()).optional().meta({
      description:
        "An expected message's tool calls (AgentV): code judges and {{expected_messages}} get them as written; grade them with tool_trajectory.",
    }),
  })
  .meta({ id: 'Message', ...CLOSED });

// Each message key's own error names the key: a case has four of them and two are aliases.
export const InputMessages = z.array(MessageSchema, {
  error: 'input_messages must be a list of {role, content} messages',
});
export const Input = z.union([z.string(), z.array(MessageSchema)], {
  error: 'input must be a string (one user message) or a list of {role, content} messages',
});
export const ExpectedMessages = z.array(MessageSchema, {
  error: 'expected_messages must be a list of {role, content} messages',
});
/** Its items are checked as messages by the loader when the first one is a message (AgentV's test). */
export const ExpectedOutput = z.union(
  [
    z.string(),
    z.array(z.unknown()).meta({
      description: 'A list of messages, or any other list (one assistant message with that list as content).',
    }),
    z.record(z.string(), z.unknown()),
  ],
  {
    error:
      'expected_output must be a string, a list (of messages, or structured content) or an object (structured assistant content)',
  },
);

export const KNOWN_MESSAGE_KEYS = new Set(Object.keys(MessageSchema.shape));
export const KNOWN_PART_KEYS = new Set(Object.keys(ContentPartSchema.shape));
