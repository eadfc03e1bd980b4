// A prompt script in AgentV's contract: the case as JSON on stdin, the judge prompt on stdout.
import { readFileSync } from 'node:fs';

const ctx = JSON.parse(readFileSync(0, 'utf8'));
const rubric = ctx.config?.rubric ? `\n## Rubric\n${ctx.config.rubric}` : '';
process.stdout.write(
  `Grade the answer.\n## Question\n${ctx.question}\n## Candidate Answer\n${ctx.candidate_answer}\n## Reference\n${ctx.reference_answer}${rubric}\n`,
);
