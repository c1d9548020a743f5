#!/usr/bin/env node
/**
 * Builds the `assistant` command into apps/cli/dist (the CLI's Nx `build` target; `node apps/cli/bundle/bundle.mjs`
 * after the libraries are built): one bundle of everything the commands load, so that `npm install -g
 * @assistant/cli` installs a few packages instead of four hundred.
 *
 * - The CLI's own TypeScript is compiled by esbuild; the libraries are taken from their tsc output (`dist/`), which
 *   keeps the decorator metadata Nest's dependency injection needs (esbuild cannot emit it).
 * - ES modules split into chunks: bin/run.js imports one entry (serve.mjs, chat.mjs or commands.mjs), and what a
 *   command does not load stays unread — `assistant chat` loads neither oclif nor the server, the server loads the
 *   mail, calendar, OAuth and model clients when first used, as the libraries' own `import()`s say.
 * - What stays external, and what is bundled: dependency-rules.mjs. Source maps: source-maps.mjs. Licences of what
 *   is bundled: notices.mjs, into dist/THIRD-PARTY-NOTICES.txt.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { dependencyRules, externalPackages, installClosure } from './dependency-rules.mjs';
import { commonJsNamespaces } from './commonjs-namespaces.mjs';
import { withCheapNames } from './function-names.mjs';
import { bundledPackages, noticesText } from './notices.mjs';
import { CARRIED_PACKAGES } from './runtime.mjs';
import { ownMapsOfThirdPartyIgnored, readableSourceMap } from './source-maps.mjs';

const CLI_ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPOSITORY_ROOT = join(CLI_ROOT, '..', '..');
const OUT_DIR = join(CLI_ROOT, 'dist');

/** What bin/run.js imports: `dist/<name>.mjs`. */
const ENTRIES = {
  serve: 'src/serve/fast-serve.ts',
  chat: 'src/chat/fast-chat.ts',
  commands: 'src/index.ts',
};

/**
 * Files that a library reads beside its own module (`join(__dirname, …)`), copied to the same place beside the
 * bundle, whose `__dirname` is dist/ (runtime.mjs).
 */
const CARRIED_FILES = [
  // The web app's script, which @assistant/web's build compiles beside app-assets.js and serves from there.
  { package: '@assistant/web', file: 'dist/lib/app/client/app.js', beside: 'client/app.js' },
];

/**
 * Modules that a library requires on first use, synchronously, and that most commands never use: each a CommonJS
 * file of its own beside the bundle, which the `require` names at run time. (esbuild splits ES modules at `import()`
 * only; a module that is required it puts in the chunk of its caller, where every command that loads the caller
 * reads it.)
 */
const SEPARATE_MODULES = [
  // The contract's zod schemas (1 MB with zod), with which the client checks replies: `assistant chat` does not
  // check them and must not read them (decision 0005); `assistant pair` does.
  {
    package: '@assistant/client',
    module: 'dist/lib/contract-schemas.js',
    requestedAs: './contract-schemas',
    beside: 'client-contract-schemas.cjs',
  },
];

/** The esbuild plugin that leaves each request of SEPARATE_MODULES to run time, naming its file. */
const separateModules = {
  name: 'assistant-separate-modules',
  setup(build) {
    for (const separate of SEPARATE_MODULES) {
      const requested = join(packageFolder(separate.package), separate.module);
      build.onResolve({ filter: /^\./ }, (args) =>
        args.path === separate.requestedAs && `${join(args.resolveDir, args.path)}.js` === requested
          ? { path: `./${separate.beside}`, external: true }
          : undefined,
      );
    }
  },
};

/** The file every bundle file imports first, and what it declares (runtime.mjs). */
const RUNTIME_FILE = 'bundle-runtime.mjs';
const BANNER = [
  `import { commonJsScope as __commonJsScope } from './${RUNTIME_FILE}';`,
  'const { require, filename: __bundleFilename, dirname: __bundleDirname } = __commonJsScope(import.meta.url);',
].join('\n');

/** esbuild's settings shared by the bundle and the files beside it. */
function commonOptions(plugins) {
  return {
    absWorkingDir: CLI_ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    // As Node resolves: no bundler-only `module` condition.
    conditions: [],
    // Classes and functions keep their names (esbuild renames some when it moves them): Nest, TypeORM and error
    // messages read them. Its helper is made cheap for the functions that have their names already
    // (function-names.mjs).
    keepNames: true,
    sourcemap: 'linked',
    outdir: OUT_DIR,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins,
  };
}

/** A package's folder, found from the CLI's folder as Node would. */
function packageFolder(name) {
  return dirname(createRequire(join(CLI_ROOT, 'package.json')).resolve(`${name}/package.json`));
}

/**
 * Builds the bundle; writes it to dist/ unless `write` is false. Returns what the bundle leaves to run time
 * (`required`: package name → the files that require it), the bundled third-party packages (notices.mjs), the files
 * made (`{ name, text }`, name relative to dist/; the copied CARRIED_FILES aside) and esbuild's metafile.
 */
export async function bundleCli({ write = true } = {}) {
  const manifest = JSON.parse(readFileSync(join(CLI_ROOT, 'package.json'), 'utf8'));
  const external = externalPackages(manifest);
  const closure = installClosure(CLI_ROOT, [...Object.keys(manifest.devDependencies ?? {}), ...external]);
  const rules = dependencyRules({ external, closure });
  const plugins = [await commonJsNamespaces(), separateModules, rules.plugin, ownMapsOfThirdPartyIgnored];

  const bundle = await esbuild.build({
    ...commonOptions(plugins),
    entryPoints: ENTRIES,
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    banner: { js: BANNER },
    define: { __dirname: '__bundleDirname', __filename: '__bundleFilename' },
  });
  // Beside it, CommonJS files of their own: SEPARATE_MODULES, and the packages that @assistant/tools-web hands to
  // its worker threads by path (CARRIED_PACKAGES of runtime.mjs), resolved as it resolves them.
  const toolsWeb = createRequire(join(packageFolder('@assistant/tools-web'), 'package.json'));
  const beside = await esbuild.build({
    ...commonOptions(plugins),
    entryPoints: Object.fromEntries([
      ...SEPARATE_MODULES.map((separate) => [
        basename(separate.beside, '.cjs'),
        join(packageFolder(separate.package), separate.module),
      ]),
      ...Object.entries(CARRIED_PACKAGES).map(([name, file]) => [
        basename(file, '.cjs'),
        toolsWeb.resolve(name),
      ]),
    ]),
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
  });

  // The files read (a plugin's modules, `namespace:path`, are made by the build).
  const inputs = [bundle, beside].flatMap((result) =>
    Object.keys(result.metafile.inputs)
      .filter((input) => !/^[\w-]+:/.test(input))
      .map((input) => join(CLI_ROOT, input)),
  );
  const packages = bundledPackages(inputs);
  const files = withCheapNames(
    [...bundle.outputFiles, ...beside.outputFiles].map((file) => ({
      path: file.path,
      text: file.path.endsWith('.map') ? readableSourceMap(file.text, OUT_DIR, REPOSITORY_ROOT) : file.text,
    })),
  );
  files.push(
    {
      path: join(OUT_DIR, RUNTIME_FILE),
      text: readFileSync(new URL('runtime.mjs', import.meta.url), 'utf8'),
    },
    { path: join(OUT_DIR, 'THIRD-PARTY-NOTICES.txt'), text: noticesText(packages) },
  );
  if (write) {
    rmSync(OUT_DIR, { recursive: true, force: true });
    for (const file of files) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.text);
    }
    for (const carriedFile of CARRIED_FILES) {
      const target = join(OUT_DIR, carriedFile.beside);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(packageFolder(carriedFile.package), carriedFile.file), target);
    }
  }
  return {
    required: rules.required,
    packages,
    files: files.map((file) => ({ name: relative(OUT_DIR, file.path), text: file.text })),
    metafile: bundle.metafile,
  };
}

/** One line on what was built: files and sizes, packages inside, what stays external. */
function summary(result) {
  const size = (pattern) =>
    result.files
      .filter((file) => pattern.test(file.name))
      .reduce((sum, file) => sum + Buffer.byteLength(file.text), 0);
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  return (
    `apps/cli/dist: ${result.files.length} files, code ${mb(size(/\.[cm]js$/))}, ` +
    `source maps ${mb(size(/\.map$/))}; ${result.packages.length} third-party packages inside; ` +
    `external: ${[...result.required.keys()].sort().join(', ')}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await bundleCli().catch((error) => {
    // esbuild's errors name the file and the import; the message alone says it.
    console.error(
      error.errors ? esbuild.formatMessagesSync(error.errors, { kind: 'error' }).join('\n') : error,
    );
    process.exit(1);
  });
  console.log(summary(result));
}
