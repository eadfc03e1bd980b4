import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/paths.js';

// The layering rule of src/ (README, Architecture): a folder never imports one that imports it
// back, so each can be read, tested and changed knowing only the folders below it. Files directly
// in src/ are the folder "."; only entry points sit there, so nothing imports them.

const SRC = path.join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    // Declaration files (`.d.ts`) only describe untyped packages: no imports, no function bodies.
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const FILES = sourceFiles(SRC).map((file) => ({
  file,
  source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
}));

/** `src/a/b.ts` is in folder `a`; `src/b.ts` is in `.`. */
function folderOf(file: string): string {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length > 1 ? rel[0]! : '.';
}

/** Every module a file names: static imports and re-exports (types too), `import()` and `import('x').T`. */
function specifiers(source: ts.SourceFile): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) {
      out.push({ spec: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Folder -> folders it imports, each edge with the import lines that make it. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const { file, source } of FILES) {
    for (const { spec, line } of specifiers(source)) {
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec);
      if (path.relative(SRC, target).startsWith('..')) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [
        ...(edges.get(to) ?? []),
        `${path.relative(REPO_ROOT, file)}:${line} imports '${spec}'`,
      ]);
    }
  }
  return graph;
}

/** A cycle through `start`, as the list of folders walked, or null. */
function cycleThrough(graph: Map<string, Map<string, string[]>>, start: string): string[] | null {
  const seen = new Set<string>();
  const walk = (at: string, trail: string[]): string[] | null => {
    for (const next of graph.get(at)?.keys() ?? []) {
      if (next === start) return [...trail, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

const graph = folderGraph();

test('the import graph is read: every folder of src/ is in it, and edges made only of type imports count', () => {
  const folders = new Set(FILES.map((f) => folderOf(f.file)));
  const inGraph = new Set([...graph.keys(), ...[...graph.values()].flatMap((edges) => [...edges.keys()])]);
  expect([...folders].filter((f) => !inGraph.has(f))).toEqual([]);
  // evaluators/context.ts names targets/ only in `import { type TargetAnswer }`.
  expect(graph.get('evaluators')?.get('targets')).toEqual([
    expect.stringMatching(/^src\/evaluators\/context\.ts:\d+ imports '\.\.\/targets\/providers\.js'$/),
  ]);
  // The checker runs its gates with what the evaluators' commands get, from exec/, not evaluators/.
  expect(graph.get('checker')?.has('evaluators')).toBe(false);
});

test('a cycle of any length is found', () => {
  const toy = new Map([
    ['a', new Map([['b', []]])],
    ['b', new Map([['c', []]])],
    ['c', new Map([['a', []]])],
  ]);
  expect(cycleThrough(toy, 'a')).toEqual(['a', 'b', 'c', 'a']);
  expect(cycleThrough(new Map([['a', new Map([['b', []]])]]), 'a')).toBeNull();
});

test('no folder of src/ imports one that imports it back', () => {
  const pairs: string[] = [];
  for (const [from, edges] of graph) {
    for (const [to, lines] of edges) {
      const back = graph.get(to)?.get(from);
      if (back && from < to) pairs.push(`${from} <-> ${to}\n  ${[...lines, ...back].join('\n  ')}`);
    }
  }
  expect(pairs).toEqual([]);
});

test('nor through other folders: the folders form layers', () => {
  const cycles = [...graph.keys()].flatMap((f) => {
    const cycle = cycleThrough(graph, f);
    return cycle ? [cycle.join(' -> ')] : [];
  });
  expect(cycles).toEqual([]);
});

test('nothing in a folder of src/ imports the entry points in src/ itself', () => {
  const upward = [...graph].flatMap(([from, edges]) =>
    from === '.' ? [] : (edges.get('.') ?? []).map((line) => `${from}: ${line}`),
  );
  expect(upward).toEqual([]);
});

/** A function's name as a reader finds it: its own, or the variable or property it is assigned to. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return '(anonymous)';
}

test('no function in src/ is longer than 100 lines', () => {
  const measured: { where: string; line: number; lines: number }[] = [];
  for (const { file, source } of FILES) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        measured.push({
          where: `${path.relative(REPO_ROOT, file)} ${nameOf(node)}`,
          line: first + 1,
          lines: last - first + 1,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  // Measured where it should be: a known function of some 40 lines is found with its length.
  expect(measured.find((m) => m.where === 'src/checker/run-checker.ts runChecker')?.lines).toBeGreaterThan(
    30,
  );
  const long = measured
    .filter((m) => m.lines > 100)
    .map((m) => `${m.where} (line ${m.line}): ${m.lines} lines`);
  expect(long).toEqual([]);
});
