/**
 * The `assistant` bundle (bundle.mjs), built in memory from the libraries' builds: what it leaves to run time is
 * what the CLI's package.json declares, at the ranges the libraries name; `assistant chat` reaches neither oclif nor
 * the server; its source maps lead to our TypeScript sources; the notices name every package inside.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';

interface BundleModule {
  bundleCli(options: { write: boolean }): Promise<BundleResult>;
}
interface BundleResult {
  required: Map<string, Set<string>>;
  packages: { name: string; version: string; license: string; texts: string[] }[];
  files: { name: string; text: string }[];
  metafile: {
    inputs: Record<string, unknown>;
    outputs: Record<
      string,
      {
        imports: { path: string; kind: string; external?: boolean }[];
        inputs: Record<string, unknown>;
        entryPoint?: string;
        exports: string[];
      }
    >;
  };
}
interface RuntimeModule {
  CARRIED_PACKAGES: Record<string, string>;
  commonJsScope(url: string): { require: NodeJS.Require };
}
interface RulesModule {
  NOT_INSTALLED: Record<string, string>;
  externalPackages(manifest: Manifest): Set<string>;
}
type Dependencies = Record<string, string>;
interface Manifest {
  name: string;
  dependencies?: Dependencies;
  optionalDependencies?: Dependencies;
  peerDependencies?: Dependencies;
}

const CLI_ROOT = join(__dirname, '..');
const REPOSITORY_ROOT = join(CLI_ROOT, '..', '..');
// Node's own import(), which jest (run with --experimental-vm-modules) lets load the build's ES modules.
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

let bundle: BundleResult;
let rules: RulesModule;
const cli = JSON.parse(readFileSync(join(CLI_ROOT, 'package.json'), 'utf8')) as Manifest;

beforeAll(async () => {
  rules = (await nativeImport(join(__dirname, 'dependency-rules.mjs'))) as RulesModule;
  const { bundleCli } = (await nativeImport(join(__dirname, 'bundle.mjs'))) as BundleModule;
  bundle = await bundleCli({ write: false });
}, 180_000);

const fileOf = (name: string) => {
  const file = bundle.files.find((candidate) => candidate.name === name);
  if (!file) throw new Error(`the bundle has no ${name}`);
  return file.text;
};

describe('what the bundle leaves to run time', () => {
  it("is exactly the CLI package.json's dependencies, optional dependencies and peers, and the packages it never installs", () => {
    const required = [...bundle.required.keys()].sort();
    const declared = [...rules.externalPackages(cli), ...Object.keys(rules.NOT_INSTALLED)].sort();
    expect(required).toEqual(declared);
  });

  it('is declared by the CLI as the bundled libraries declare it: the same kind, the same range', () => {
    const kinds = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;
    const bundledLibraries = [
      ...new Set(
        Object.keys(bundle.metafile.inputs)
          .map((input) => /^\.\.\/\.\.\/(libs\/(?:tools\/)?[^/]+)\//.exec(input)?.[1])
          .filter((root): root is string => root !== undefined),
      ),
    ];
    const libraries = bundledLibraries.map(
      (root) => JSON.parse(readFileSync(join(REPOSITORY_ROOT, root, 'package.json'), 'utf8')) as Manifest,
    );
    const differences = kinds.flatMap((kind) =>
      Object.entries(cli[kind] ?? {}).flatMap(([name, range]) => {
        const declaring = libraries.filter((library) => kinds.some((k) => library[k]?.[name]));
        if (declaring.length === 0) return [`${name}: no bundled library names it`];
        return declaring
          .filter((library) => library[kind]?.[name] !== range)
          .map((library) => `${name}: ${kind} ${range} in the CLI, not as in ${library.name}`);
      }),
    );
    expect(differences).toEqual([]);
  });
});

it('leaves no `require` of a computed name in our own code: each is bundled or named in a list above', () => {
  // A `require(name)` with a variable leaves the package to Node at run time, where only the externals are.
  const computed = bundle.files
    .filter(
      (file) => /\.[cm]js$/.test(file.name) && bundle.files.some((map) => map.name === `${file.name}.map`),
    )
    .flatMap((file) => {
      const map = new SourceMap(JSON.parse(fileOf(`${file.name}.map`)));
      return [...file.text.matchAll(/__require(\.resolve)?\([^"'`)]/g)].map((match) => {
        const before = file.text.slice(0, match.index).split('\n');
        const entry = map.findEntry(before.length - 1, before.at(-1)!.length) as { originalSource: string };
        return `${entry.originalSource}: ${file.text.slice(match.index, match.index + 60).split('\n')[0]}`;
      });
    })
    .filter((place) => !place.startsWith('node_modules/'));
  expect(computed).toEqual([]);
});

it('gives an import() of a CommonJS module the names Node gives it, as the commands and the drivers use them', () => {
  // `const { backupSelfHost } = await import('@assistant/self-host')`, `const { createClient } = await
  // import('webdav')`: a chunk exporting only `default` would leave them undefined.
  const exportsOf = (module: RegExp) =>
    Object.values(bundle.metafile.outputs).find((output) => module.test(output.entryPoint ?? ''))?.exports;
  expect(exportsOf(/libs\/self-host\/dist\/index\.js$/)).toEqual(
    expect.arrayContaining(['default', 'backupSelfHost', 'restoreSelfHost', 'addSelfHostAccount']),
  );
  expect(exportsOf(/node_modules\/webdav\/dist\/node\/index\.js$/)).toEqual(
    expect.arrayContaining(['default', 'createClient']),
  );
});

it('carries the packages the web tools hand to their worker threads as files of its own, which its require.resolve names', async () => {
  // @assistant/tools-web starts its workers with require.resolve('linkedom') and '@mozilla/readability': in the
  // bundle those name the files beside it, and the worker requires them from there.
  const runtime = (await nativeImport(join(__dirname, 'runtime.mjs'))) as RuntimeModule;
  const folder = mkdtempSync(join(tmpdir(), 'assistant-bundle-'));
  try {
    for (const file of Object.values(runtime.CARRIED_PACKAGES))
      writeFileSync(join(folder, file), fileOf(file));
    const { require } = runtime.commonJsScope(`file://${join(folder, 'chunk.mjs')}`);
    // What the worker does with them (libs/tools/web/src/lib/article-worker.ts), typed as far as this test reads.
    const { parseHTML } = require(require.resolve('linkedom')) as {
      parseHTML(html: string): { document: unknown };
    };
    const { Readability } = require(require.resolve('@mozilla/readability')) as {
      Readability: new (document: unknown, options: object) => { parse(): { textContent?: string } | null };
    };
    const paragraph = `<p>${'The bakery opens at seven and bakes bread every morning. '.repeat(8)}</p>`;
    const { document } = parseHTML(
      `<html><body><nav>Menu</nav><article><h1>Hours</h1>${paragraph}</article></body></html>`,
    );
    expect(new Readability(document, { charThreshold: 100 }).parse()?.textContent).toContain('bakes bread');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** The inputs of `output` and of every output it imports statically, transitively. */
function staticallyLoaded(output: string): string[] {
  const seen = new Set<string>();
  const pending = [output];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const imported of bundle.metafile.outputs[next].imports) {
      if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
    }
  }
  return [...seen].flatMap((file) => Object.keys(bundle.metafile.outputs[file].inputs));
}

it('`assistant chat` loads neither oclif, the server, zod nor undici (decision 0005)', () => {
  const chat = Object.keys(bundle.metafile.outputs).find((output) => output.endsWith('dist/chat.mjs'))!;
  const heavy = staticallyLoaded(chat).filter((input) =>
    /node_modules\/(@oclif\/core|zod|undici)\/|libs\/(server|server-kit)\//.test(input),
  );
  expect(heavy).toEqual([]);
  // The server does load them: the rule above could not pass by finding nothing.
  const serve = Object.keys(bundle.metafile.outputs).find((output) => output.endsWith('dist/serve.mjs'))!;
  expect(staticallyLoaded(serve).some((input) => /libs\/server\//.test(input))).toBe(true);
});

it('gives functions their names with a helper that leaves a right name alone (function-names.mjs)', () => {
  const code = bundle.files.filter((file) => /\.[cm]js$/.test(file.name));
  const helpers = code.flatMap((file) => file.text.match(/^var __name = .*$/gm) ?? []);
  expect(helpers.length).toBeGreaterThan(0);
  expect(new Set(helpers)).toEqual(
    new Set([
      'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });',
    ]),
  );
});

describe('the source maps', () => {
  /** Where `text` starts in the bundle file `name`, and what its map says is there. */
  function originOf(name: string, text: string) {
    const code = fileOf(name);
    const offset = code.indexOf(text);
    expect(offset).toBeGreaterThan(-1);
    const before = code.slice(0, offset).split('\n');
    const map = JSON.parse(fileOf(`${name}.map`)) as SourceMapPayload & { sourcesContent: (string | null)[] };
    const entry = new SourceMap(map).findEntry(before.length - 1, before.at(-1)!.length) as {
      originalSource: string;
    };
    const index = map.sources.indexOf(entry.originalSource);
    return { source: entry.originalSource, content: map.sourcesContent[index] };
  }

  /** The bundle file whose code contains `text`. */
  const fileContaining = (text: string) =>
    bundle.files.find((file) => file.name.endsWith('.mjs') && file.text.includes(text))!.name;

  it("name the CLI's TypeScript source, with its text", () => {
    const origin = originOf('serve.mjs', 'async function serveWithoutOclif(');
    expect(origin.source).toBe('apps/cli/src/serve/fast-serve.ts');
    expect(origin.content).toContain('export async function serveWithoutOclif(');
  });

  it("name a library's TypeScript source through its tsc build, with its text", () => {
    const text = 'function describeStartupError(';
    const origin = originOf(fileContaining(text), text);
    expect(origin.source).toBe('libs/server/src/lib/bootstrap/process-lifecycle.ts');
    expect(origin.content).toContain('export function describeStartupError(');
  });

  it("name a third-party package's own file, without a copy of its text", () => {
    const text = 'var DataSource = class {';
    const origin = originOf(fileContaining(text), text);
    expect(origin.source).toBe('node_modules/typeorm/data-source/DataSource.js');
    expect(origin.content).toBeNull();
  });
});

it('names every bundled package in THIRD-PARTY-NOTICES.txt, with the licence text it ships or else its licence', () => {
  const notices = fileOf('THIRD-PARTY-NOTICES.txt');
  const bundledNames = new Set(
    Object.keys(bundle.metafile.inputs)
      .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1])
      .filter((name): name is string => name !== undefined),
  );
  const listed = new Set(bundle.packages.map((entry) => entry.name));
  expect([...bundledNames].filter((name) => !listed.has(name))).toEqual([]);
  // Some ship no licence text (typeorm): their package.json names the licence, and the notice says it.
  const unknown = bundle.packages.filter(
    (entry) => entry.texts.length === 0 && !/^[\w.-]+( (OR|AND) [\w.-]+)*$/.test(entry.license),
  );
  expect(unknown.map((entry) => `${entry.name}: ${entry.license}`)).toEqual([]);
  for (const entry of bundle.packages) expect(notices).toContain(`\n${entry.name} ${entry.version} (`);
});
