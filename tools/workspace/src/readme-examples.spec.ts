/**
 * The example in each published package's README is what a user copies first, so it has to be true: every `ts` and
 * `js` block is type-checked against the packages as built (strict, as a user's ESM module with top-level await),
 * and the tool families' examples, which print their tools, are run and must print what the README says they do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');

interface Example {
  readme: string;
  packageName: string;
  lang: 'ts' | 'js';
  code: string;
}

/** The `ts` and `js` blocks of the published packages' READMEs (the packages `npm query` lists as not private). */
function examples(): Example[] {
  const workspaces = JSON.parse(
    execFileSync('npm', ['query', '.workspace', '--json'], { cwd: WORKSPACE_ROOT, encoding: 'utf8' }),
  ) as { name: string; location: string; private?: boolean }[];
  return workspaces
    .filter((manifest) => !manifest.private)
    .flatMap((manifest) => {
      const readme = path.join(manifest.location, 'README.md');
      const text = readFileSync(path.join(WORKSPACE_ROOT, readme), 'utf8');
      return [...text.matchAll(/^```(ts|js)\n([\s\S]*?)^```$/gm)].map((match) => ({
        readme,
        packageName: manifest.name,
        lang: match[1] as 'ts' | 'js',
        code: match[2],
      }));
    });
}

let work: string;
let written: { example: Example; file: string }[];

beforeAll(() => {
  // Outside the workspace (no other check may see these files), resolving packages from its node_modules.
  work = mkdtempSync(path.join(tmpdir(), 'assistant-readme-examples-'));
  symlinkSync(path.join(WORKSPACE_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  written = examples().map((example, index) => {
    const file = path.join(
      work,
      `${example.packageName.replace(/\W/g, '_')}-${index}.${example.lang === 'ts' ? 'mts' : 'mjs'}`,
    );
    writeFileSync(file, example.code);
    return { example, file };
  });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

it('every published package’s README has a ts or js example, and each one type-checks', () => {
  expect(new Set(written.map(({ example }) => example.packageName)).size).toBeGreaterThanOrEqual(13);
  const program = ts.createProgram(
    written.map(({ file }) => file),
    {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      strict: true,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [path.join(WORKSPACE_ROOT, 'node_modules', '@types')],
    },
  );
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const owner = written.find(({ file }) => file === diagnostic.file?.fileName)?.example.readme;
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
        : 0;
    return `${owner ?? diagnostic.file?.fileName}, example line ${line}: ${message}`;
  });
  expect(problems).toEqual([]);
});

it('the tool families’ examples print the tools their READMEs list', () => {
  const families = written.filter(({ example }) => example.packageName.startsWith('@assistant/tools-'));
  expect(families.length).toBe(6);
  const words = (line: string) => line.trim().split(/\s+/).join(' ');
  for (const { example, file } of families) {
    // The README's output: the comment lines that end the block.
    const lines = example.code.trimEnd().split('\n');
    const firstOutput = lines.findLastIndex((line) => !line.startsWith('// ')) + 1;
    const said = lines.slice(firstOutput).map((line) => words(line.slice(3)));
    const script = file.replace(/\.mts$/, '.mjs');
    writeFileSync(
      script,
      ts.transpileModule(example.code, { compilerOptions: { module: ts.ModuleKind.ESNext } }).outputText,
    );
    const printed = execFileSync(process.execPath, [script], { cwd: work, encoding: 'utf8' });
    expect({ readme: example.readme, printed: printed.trimEnd().split('\n').map(words) }).toEqual({
      readme: example.readme,
      printed: said,
    });
  }
});
