/**
 * What goes into the `assistant` bundle and what it leaves to `require` at run time.
 *
 * - What stays external is declared once, in the CLI's own package.json: its `dependencies`,
 *   `optionalDependencies` and `peerDependencies` are exactly the packages the bundle requires at run time (npm
 *   installs the first two with it; the peers are optional and installed by whoever wants them). Everything else the
 *   commands load is inside the bundle.
 * - A package is bundled only if `npm install` of the CLI's sources would have installed it: it must be in the
 *   install closure of the packages the bundle is made from (the CLI's devDependencies). The workspace's hoisted
 *   node_modules also hold packages of other projects and dev tools (ioredis, the OpenTelemetry SDK, typescript),
 *   which an optional `require` of a bundled package would otherwise pull in silently.
 * - NOT_INSTALLED lists the packages that bundled code names but that the CLI never installs nor needs: each stays
 *   a plain `require`/`import` that fails at run time exactly where it would have failed in an install of the
 *   unbundled packages (their callers load them only on request, or in a try). A name the bundle meets that is in
 *   none of these lists stops the build, naming who asked for it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';

/** Named by bundled code, never installed with the CLI, never needed by it; why, package by package. */
export const NOT_INSTALLED = {
  // Nest loads these only for features we do not use (microservices, websockets, Express, class-validator pipes,
  // static files and views), each behind a check that the package is there.
  '@nestjs/microservices': 'Nest microservices',
  '@nestjs/websockets': 'Nest websockets',
  '@nestjs/platform-express': 'Nest on Express (we run on Fastify)',
  'class-validator': "Nest's ValidationPipe (we validate with zod)",
  'class-transformer': "Nest's ValidationPipe and ClassSerializerInterceptor",
  '@fastify/static': "Nest's useStaticAssets",
  '@fastify/view': "Nest's setViewEngine",
  // TypeORM's PlatformTools.load names every driver it knows; we use SQLite (its driver is passed in) and pg.
  '@google-cloud/spanner': 'a TypeORM driver',
  '@sap/hana-client': 'a TypeORM driver',
  mongodb: 'a TypeORM driver',
  mssql: 'a TypeORM driver',
  mysql: 'a TypeORM driver',
  mysql2: 'a TypeORM driver',
  oracledb: 'a TypeORM driver',
  'pg-native': "pg's native bindings (pg runs in JavaScript)",
  'pg-query-stream': "TypeORM's PostgreSQL streams (we never stream)",
  'react-native-sqlite-storage': 'a TypeORM driver',
  'sql.js': 'a TypeORM driver',
  sqlite3: 'a TypeORM driver',
  // TypeORM's better-sqlite3 driver requires it only when given no driver; storage gives it its own (sqlite-driver.ts:
  // node:sqlite from Node 22, @assistant/sqlite-node20 on Node 20).
  'better-sqlite3': "TypeORM's default SQLite module, never used",
  'typeorm-aurora-data-api-driver': 'a TypeORM driver',
  redis: "TypeORM's query result cache",
  ioredis: "TypeORM's query result cache (the hosted service's Redis client, never the CLI's)",
  // oclif compiles TypeScript commands in development; ours are compiled.
  typescript: "oclif's development mode",
  // linkedom draws on a canvas when the package is there; reading articles draws nothing.
  canvas: "linkedom's optional canvas",
  // ws speeds itself up with these native helpers when they are there.
  bufferutil: "ws's optional native helper",
  'utf-8-validate': "ws's optional native helper",
};

/** `@scope/name` or `name` of a bare import (`@scope/name/sub/path` → `@scope/name`). */
export function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages the CLI's package.json leaves to npm: its dependencies, optional dependencies and peers. */
export function externalPackages(manifest) {
  return new Set(
    [manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies].flatMap((deps) =>
      Object.keys(deps ?? {}),
    ),
  );
}

/** The folder of package `name` as Node finds it from `fromDir` (the nearest node_modules up the tree). */
function packageDir(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) return undefined;
  }
}

/**
 * The names of the packages `npm install` would put beside `roots` (package names, found from `fromDir`): their
 * dependencies, optional dependencies and peers that are not optional, and theirs, as installed here.
 */
export function installClosure(fromDir, roots) {
  const names = new Set();
  const pending = roots.map((name) => ({ name, from: fromDir }));
  const seen = new Set();
  while (pending.length > 0) {
    const { name, from } = pending.pop();
    const dir = packageDir(from, name);
    if (!dir || seen.has(dir)) continue;
    seen.add(dir);
    names.add(name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (peer) => !optionalPeers[peer]?.optional,
    );
    for (const dependency of [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...peers,
    ]) {
      pending.push({ name: dependency, from: dir });
    }
  }
  return names;
}

const packageNames = new Map();

/** The name of the package a resolved file belongs to: the nearest package.json with a name, up the tree. */
function owningPackage(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (!packageNames.has(dir)) {
      const manifest = join(dir, 'package.json');
      packageNames.set(
        dir,
        existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).name : undefined,
      );
    }
    if (packageNames.get(dir)) return packageNames.get(dir);
  }
  return undefined;
}

/**
 * The esbuild plugin that applies the rules above to every bare import. `external`: the packages the CLI's
 * package.json leaves to npm; `closure`: what an install of the bundled packages would hold. It records, in
 * `required`, each package left to run time and who asked for it.
 */
export function dependencyRules({ external, closure }) {
  const required = new Map();
  const leave = (specifier, importer) => {
    const name = packageNameOf(specifier);
    if (!required.has(name)) required.set(name, new Set());
    required.get(name).add(importer);
    return { path: specifier, external: true };
  };
  return {
    required,
    plugin: {
      name: 'assistant-dependency-rules',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, async (args) => {
          // Node's own modules, `node:sqlite` included, which the Node running the build may not have.
          if (args.pluginData?.resolving || args.path.startsWith('node:') || isBuiltin(args.path))
            return undefined;
          const name = packageNameOf(args.path);
          if (external.has(name) || name in NOT_INSTALLED) return leave(args.path, args.importer);
          const resolved = await build.resolve(args.path, {
            kind: args.kind,
            importer: args.importer,
            resolveDir: args.resolveDir,
            pluginData: { resolving: true },
          });
          if (resolved.errors.length > 0) return { errors: resolved.errors };
          const owner = owningPackage(resolved.path);
          if (owner && !closure.has(owner)) {
            return {
              errors: [
                {
                  text: `${name} is not installed with @assistant/cli (${args.importer} requires it): bundle it by making it a dependency of a bundled package, or add it to NOT_INSTALLED in apps/cli/bundle/dependency-rules.mjs`,
                },
              ],
            };
          }
          return resolved;
        });
      },
    },
  };
}
