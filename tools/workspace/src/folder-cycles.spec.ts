/**
 * Inside a lib, folders must form a graph without cycles: when `a/` imports `b/` and `b/` imports `a/`
 * (directly or through other folders), neither can be read, moved or split out alone, and the lib stops having
 * parts. ESLint's module-boundary rule sees only projects, and `import/no-cycle` only files; this sees folders.
 *
 * A file's folder is its directory relative to the lib's `src/lib` (`tools/custom` is a folder of its own;
 * files directly in `src/lib` are the folder `.`). An import of `../x/y` from a file of folder `a` is the edge
 * a → x. Only production files count: specs (`*.spec.ts`, `*.integration-spec.ts`) and the `src/testing` helpers may reach across folders
 * to set up a test, and `src/index.ts` is the lib's public surface, which re-exports from every folder. Type-only
 * imports count: they tie a folder to another's declarations as much as a value import does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const workspaceRoot = path.resolve(__dirname, '../../..');

/**
 * Cycles that are known and not cut yet, per lib: each is a strongly connected set of folders, sorted. The test
 * fails on a set not listed here and on a listed one that is gone or has changed, so the list shrinks with the
 * code and never hides a new cycle. `libs/server` has none left (issue 19 cut them); what holds each of these:
 * - a tool family: `<family>.family.ts` imports `tools/`, whose tools import the family's driver from the root.
 * - storage: `storage.ts` imports `repositories/`, which import `ids.ts` from the root.
 * - agent-core: `models/model-catalog.ts` imports `models/openai-compatible/`, which imports `models/pushed-parts.ts`.
 */
const KNOWN_CYCLES: Record<string, string[][]> = {
  'libs/agent-core': [['models', 'models/openai-compatible']],
  'libs/storage': [['.', 'repositories']],
  'libs/tools/calendar': [['.', 'tools']],
  'libs/tools/email': [['.', 'tools']],
  'libs/tools/files': [['.', 'tools']],
  'libs/tools/home': [['.', 'tools']],
  'libs/tools/memory': [['.', 'tools']],
  'libs/tools/web': [['.', 'tools']],
};

interface Edge {
  readonly from: string;
  readonly to: string;
  /** One import that makes the edge, as `file imports 'specifier'`, so the message says what to move. */
  readonly example: string;
}

/** Every lib's root: libs/<name>, and libs/tools/<family> (libs/tools itself is a folder of libs). */
function libRoots(): string[] {
  const libs = path.join(workspaceRoot, 'libs');
  const roots: string[] = [];
  for (const name of readdirSync(libs)) {
    const root = path.join(libs, name);
    if (isDirectory(path.join(root, 'src'))) roots.push(root);
    else if (isDirectory(root)) roots.push(...libRootsUnder(root));
  }
  return roots.sort();
}

function libRootsUnder(folder: string): string[] {
  return readdirSync(folder)
    .map((name) => path.join(folder, name))
    .filter((root) => isDirectory(path.join(root, 'src')));
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

function isFile(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

function productionFilesUnder(folder: string): string[] {
  if (!isDirectory(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !/[.-]spec\.ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(folder, file));
}

/** The file a relative specifier names: `x`, `x.ts`, `x/index.ts` (a `.js` suffix is the compiled name). */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find(isFile);
}

/** The folder graph of one lib's `src/lib`, each edge with the first import that makes it. */
function folderEdges(libRoot: string): Edge[] {
  const sourceRoot = path.join(libRoot, 'src', 'lib');
  const folderOf = (file: string) =>
    path.relative(sourceRoot, path.dirname(file)).split(path.sep).join('/') || '.';
  const edges = new Map<string, Edge>();
  for (const file of productionFilesUnder(sourceRoot).sort()) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    for (const { fileName: specifier } of imports) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target === undefined || !target.startsWith(sourceRoot + path.sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      const key = `${from}\u0000${to}`;
      if (from === to || edges.has(key)) continue;
      edges.set(key, { from, to, example: `${path.relative(sourceRoot, file)} imports '${specifier}'` });
    }
  }
  return [...edges.values()];
}

/** Tarjan's strongly connected components with more than one folder: each is one or more cycles. */
function stronglyConnected(edges: readonly Edge[]): string[][] {
  const successors = new Map<string, string[]>();
  for (const { from, to } of edges) {
    successors.set(from, [...(successors.get(from) ?? []), to]);
    if (!successors.has(to)) successors.set(to, []);
  }
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of successors.get(node)!) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...successors.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a.join().localeCompare(b.join()));
}

/** A component as the message a developer acts on: its folders, then every edge inside it with an example. */
function describeComponent(component: readonly string[], edges: readonly Edge[]): string {
  const inside = edges.filter((edge) => component.includes(edge.from) && component.includes(edge.to));
  const lines = inside
    .sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`))
    .map((edge) => `    ${edge.from} → ${edge.to}: ${edge.example}`);
  return [`  cycle through ${component.join(', ')}:`, ...lines].join('\n');
}

const libs = libRoots().map((root) => path.relative(workspaceRoot, root).split(path.sep).join('/'));

it('finds every lib, including the tool families under libs/tools', () => {
  expect(libs).toEqual(expect.arrayContaining(['libs/server', 'libs/contracts', 'libs/tools/kit']));
  expect(libs).not.toContain('libs/tools');
});

it.each(libs)('the folders of %s form no cycle but the known ones', (lib) => {
  const edges = folderEdges(path.join(workspaceRoot, lib));
  const known = (KNOWN_CYCLES[lib] ?? []).map((cycle) => [...cycle].sort());
  const found = stronglyConnected(edges);
  const key = (component: readonly string[]) => component.join('\u0000');
  const unknown = found.filter((component) => !known.some((cycle) => key(cycle) === key(component)));
  const gone = known.filter((cycle) => !found.some((component) => key(component) === key(cycle)));

  const problems = [
    ...unknown.map((component) => describeComponent(component, edges)),
    ...gone.map((cycle) => `  listed in KNOWN_CYCLES but gone (take it off the list): ${cycle.join(', ')}`),
  ];
  if (problems.length > 0) {
    throw new Error(
      `${lib}/src/lib: folder cycles changed. Move the code that both sides need into a folder that imports ` +
        `neither (ports, helpers), or invert the import.\n${problems.join('\n')}`,
    );
  }
});
