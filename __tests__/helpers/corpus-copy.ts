import { cpSync } from 'node:fs';
import path from 'node:path';
import { tmpDir } from './judge.js';
import { CORPUS, FIXTURES } from './paths.js';

/**
 * A copy of the corpus's AgentV suites with the project's stand-ins for the judge scripts the
 * corpus leaves out, so the suites validate (a missing script is an error) and run.
 */
export function agentvCorpusCopy(prefix = 're-corpus-'): string {
  const root = tmpDir(prefix);
  cpSync(path.join(CORPUS, 'agentv'), root, { recursive: true });
  cpSync(path.join(FIXTURES, 'corpus-scripts/agentv'), root, { recursive: true });
  return root;
}

/** The scripts the corpus's AgentV suites name and the corpus does not ship. */
export const OMITTED_CORPUS_SCRIPTS = [
  'basic/evals/check_python_keywords.py',
  'rubric/evals/check_syntax.py',
  'composite/scripts/safety-gate-aggregator.js',
  'code-judge-sdk/scripts/verify-attachments.ts',
];
