import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Workspace } from '../../../src/core/workspace.js';
import { withNunjucks } from '../../../src/suite/agentv5/nunjucks-render.js';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { tmpDir } from '../../helpers/judge.js';

/**
 * Nunjucks is loaded when a suite's template needs it, not at start-up: a load that meets such a
 * template first is run again once Nunjucks is loaded; a suite without one is loaded once.
 */
function suite(prompt: string): () => ReturnType<typeof loadSuiteFile> {
  const root = tmpDir('re-pf-nunjucks-');
  writeFileSync(
    path.join(root, 'promptfooconfig.yaml'),
    `providers: [echo]\nprompts: [${JSON.stringify(prompt)}]\ntests:\n  - vars: { q: paris }\n    assert: [{ type: contains, value: x }]\n`,
  );
  return () => loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
}

const question = (r: ReturnType<typeof loadSuiteFile>) =>
  (r.suite?.cases[0]?.inputMessages[0]?.parts[0] as { text: string } | undefined)?.text;

test('a plain suite is loaded once; a Nunjucks one again once Nunjucks is loaded; later ones once', async () => {
  let loads = 0;
  const counted = (load: () => ReturnType<typeof loadSuiteFile>) => () => {
    loads++;
    return load();
  };
  const plain = await withNunjucks(counted(suite('Say {{ q }}')));
  expect([loads, question(plain)]).toEqual([1, 'Say paris']);

  loads = 0;
  const templated = await withNunjucks(counted(suite('{{ q | upper }}{% if q %}!{% endif %}')));
  expect(templated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect([loads, question(templated)]).toEqual([2, 'PARIS!']);

  loads = 0;
  const again = await withNunjucks(counted(suite('{{ q | capitalize }}')));
  expect([loads, question(again)]).toEqual([1, 'Paris']);
});
