// A batch runner for the batch-cli example (AgentV's needs bun): reads the suite, applies a
// synthetic AML rule per case and writes one JSONL record per case id to --output. Like AgentV's
// runner, a case whose row id is not its own id (aml-004-not-exist) gets no record. Each run is
// logged to --log so a test can count the runs.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';

const { values } = parseArgs({
  options: { 'eval-input': { type: 'string' }, output: { type: 'string' }, log: { type: 'string' } },
});
if (values.log) appendFileSync(values.log, 'run\n');
const suite = yaml.load(readFileSync(values['eval-input'], 'utf8'));
const records = [];
for (const c of suite.evalcases) {
  const row = c.input.find((m) => m.role === 'user').content.row;
  if (row.id !== c.id) continue;
  const decision = row.origin_country === 'IR' || row.amount > 10000 ? 'REVIEW' : 'CLEAR';
  const payload = { id: row.id, decision, amount: row.amount, currency: row.currency };
  records.push({
    id: c.id,
    text: JSON.stringify(payload),
    duration_ms: 5,
    output_messages: [
      {
        role: 'assistant',
        tool_calls: [
          { tool: 'aml_screening', input: { origin_country: row.origin_country }, output: { decision } },
        ],
      },
      { role: 'assistant', content: payload },
    ],
  });
}
writeFileSync(values.output, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
