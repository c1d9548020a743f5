/**
 * A package's `src/index.ts` is its public surface. For the internal libraries (not published for third parties,
 * unlike contracts and client), that surface is exactly what the other projects of this workspace import:
 * explicit named exports, no `export *`, and nothing that no one uses — an internal exported "just in case"
 * becomes a promise that holds its shape in place.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');

/** Internal libraries held to "export only what the workspace imports", with their folders. */
const INTERNAL_PACKAGES = [{ name: '@assistant/agent-core', root: 'libs/agent-core' }];

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The names `index.ts` exports, and whether it has an `export *`. */
function exportsOf(indexFile: string): { names: string[]; star: boolean } {
  const names: string[] = [];
  let star = false;
  for (const statement of parse(indexFile).statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    if (!statement.exportClause || ts.isNamespaceExport(statement.exportClause)) star = true;
    else for (const element of statement.exportClause.elements) names.push(element.name.text);
  }
  return { names, star };
}

/** Every TypeScript file of the workspace outside `exceptRoot`, tracked or new. */
function workspaceSources(exceptRoot: string): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'apps', 'libs', 'tools'],
    { cwd: WORKSPACE_ROOT, encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter(
      (file) => /\.(c|m)?ts$/.test(file) && !file.endsWith('.d.ts') && !file.startsWith(`${exceptRoot}/`),
    )
    .map((file) => path.join(WORKSPACE_ROOT, file));
}

/** The names imported or re-exported from `specifier` anywhere in `files`; a namespace import takes them all. */
function importedNames(specifier: string, files: string[]): Set<string> | 'all' {
  const names = new Set<string>();
  for (const file of files) {
    for (const statement of parse(file).statements) {
      if (
        !(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) ||
        !statement.moduleSpecifier ||
        !ts.isStringLiteral(statement.moduleSpecifier) ||
        statement.moduleSpecifier.text !== specifier
      )
        continue;
      const bindings = ts.isImportDeclaration(statement)
        ? statement.importClause?.namedBindings
        : statement.exportClause;
      if (!bindings || ts.isNamespaceImport(bindings) || ts.isNamespaceExport(bindings)) return 'all';
      for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

describe.each(INTERNAL_PACKAGES)('$name exports only what the workspace imports', ({ name, root }) => {
  const index = path.join(WORKSPACE_ROOT, root, 'src', 'index.ts');

  it('with explicit named exports, no export *', () => {
    expect(exportsOf(index).star).toBe(false);
  });

  it('and every one of them imported by another project', () => {
    const used = importedNames(name, workspaceSources(root));
    const unused = used === 'all' ? [] : exportsOf(index).names.filter((exported) => !used.has(exported));
    expect(unused).toEqual([]);
  });
});
