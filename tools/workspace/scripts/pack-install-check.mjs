#!/usr/bin/env node
/**
 * The pack-and-install check: every publishable package packed with `npm pack` from the current build, installed
 * from those tarballs alone into an empty folder on a given Node, and used there as a user would — `npx
 * assistant-mcp --help` prints its usage, a script starts the server with @assistant/self-host and it answers, a
 * script imports @assistant/client and @assistant/contracts with `require` and with `import`. And the CLI as a self-hoster installs it (pack-install/cli-install.mjs): its tarball alone into
 * another empty folder with an empty npm cache, timed, held to the install target (at most 100 MB and 250 packages,
 * nothing compiled from Node 22 on), where `assistant serve` answers, `assistant chat` asks it and `assistant --help`
 * lists the commands. Prints one line per check; exits 1 if any failed. Run it after `npm run build`.
 *
 *   node tools/workspace/scripts/pack-install-check.mjs [--node <path to node>] [--keep <folder>]
 *
 * --node (or ASSISTANT_PACK_NODE): the Node to install and run with (default: this one); its headers, when they
 *   sit beside it, are the ones native modules (better-sqlite3, on Node 20 only) are built against.
 * --keep: install into this folder (empty or absent) and leave it there, to look into; otherwise a temporary
 *   folder is used and removed.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { missingFiles, packAll, publishablePackages, unexpectedFiles } from './pack-install/packages.mjs';
import { nodeRuntime } from './pack-install/node-runtime.mjs';
import {
  CLI_INSTALL_LIMITS,
  checkChat,
  checkCliInstallTarget,
  checkHelp,
  installCold,
  installedPackageNames,
  tarballsInstalledWith,
} from './pack-install/cli-install.mjs';
import { startLibraryServer } from './pack-install/library-server.mjs';
import {
  checkConsumer,
  checkMcpHelp,
  checkServeAnswers,
  checkSqliteInstall,
  checkStorageOnSqlite,
  installTarballs,
  startServe,
} from './pack-install/installed-checks.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const { values: options } = parseArgs({
  options: { node: { type: 'string' }, keep: { type: 'string' } },
});
const runtime = nodeRuntime(options.node ?? process.env.ASSISTANT_PACK_NODE ?? process.execPath);
const label = `pack-install (node ${runtime.version})`;
const work = mkdtempSync(join(tmpdir(), 'assistant-pack-install-'));
const app = options.keep ? resolve(options.keep) : join(work, 'app');
const cli = join(work, 'cli');

/** The shared-state clients only the hosted service (@assistant/hosted) uses: `assistant serve` never loads them. */
const HOSTED_ONLY = ['@assistant/hosted', 'ioredis', 'rate-limiter-flexible'];

let failed = 0;
/** Runs one check and prints its line; a failed check is counted, and what depends on it is not run. */
async function check(name, action) {
  const started = Date.now();
  try {
    const detail = await action();
    console.log(`${label}: ok   ${name}${detail ? ` — ${detail}` : ''} (${Date.now() - started} ms)`);
    return true;
  } catch (error) {
    failed += 1;
    console.log(
      `${label}: FAIL ${name}\n${String(error instanceof Error ? error.message : error).replace(/^/gm, '    ')}`,
    );
    return false;
  }
}

console.log(
  `${label}: ${runtime.node}, native modules built against ${runtime.headers ?? "npm's default headers"}`,
);
let packed = [];
const packedOk = await check('npm pack of every publishable package', () => {
  if (options.keep && existsSync(app) && readdirSync(app).length > 0) {
    throw new Error(`--keep ${app} is not empty`);
  }
  const packages = publishablePackages(root);
  packed = packAll(root, packages, work).map((tarball) => ({
    ...tarball,
    unexpected: unexpectedFiles(
      tarball.files,
      packages.find((pkg) => pkg.name === tarball.name),
    ),
    missing: missingFiles(tarball.files),
  }));
  return packed.map((tarball) => tarball.name).join(', ');
});
if (packedOk) {
  await check('tarballs hold only package.json, README, LICENSE, dist/ (and bin/, entry points)', () => {
    const wrong = packed.filter((tarball) => tarball.unexpected.length > 0);
    if (wrong.length > 0) {
      throw new Error(wrong.map((tarball) => `${tarball.name}: ${tarball.unexpected.join(', ')}`).join('\n'));
    }
  });
  await check('every tarball holds its README.md and LICENSE', () => {
    const wrong = packed.filter((tarball) => tarball.missing.length > 0);
    if (wrong.length > 0) {
      throw new Error(
        wrong.map((tarball) => `${tarball.name} lacks ${tarball.missing.join(', ')}`).join('\n'),
      );
    }
  });
}
const installed =
  packedOk &&
  (await check('npm install of the tarballs alone into an empty folder', () => {
    installTarballs(
      app,
      runtime,
      packed.map((tarball) => tarball.tarball),
    );
    return app;
  }));
if (installed) {
  await check('the SQLite driver for this Node (from Node 22: no better-sqlite3, nothing compiled)', () =>
    checkSqliteInstall(app, runtime),
  );
  await check('@assistant/storage opens SQLite from a plain script', () =>
    checkStorageOnSqlite(app, runtime),
  );
  await check('npx assistant-mcp --help', () => checkMcpHelp(app, runtime, 'assistant-mcp'));
  await check('npx @assistant/mcp --help', () => checkMcpHelp(app, runtime, '@assistant/mcp'));
  // The libraries on their own, as a program of its own imports them (the CLI carries them in its bundle).
  let server;
  const served = await check('a script starts the server with @assistant/self-host', async () => {
    server = await startLibraryServer(app, runtime, join(work, 'library-data'));
    return server.url;
  });
  if (served) {
    await check('it answers', () => checkServeAnswers(server));
    await check('require() of @assistant/client and @assistant/contracts from CommonJS', () =>
      checkConsumer(app, runtime, server, 'consumer.cjs'),
    );
    await check('import of @assistant/client and @assistant/contracts from ESM', () =>
      checkConsumer(app, runtime, server, 'consumer.mjs'),
    );
    await server.stop();
  }
}
// The CLI as a self-hoster installs it: alone, the first time (nothing in npm's cache).
const cliInstalled =
  packedOk &&
  (await check(
    'npm install of the @assistant/cli tarball alone into an empty folder, npm cache empty',
    () => {
      const tarballs = tarballsInstalledWith('@assistant/cli', packed);
      const ms = installCold(cli, runtime, tarballs, join(work, 'cold-cache'));
      return `${(ms / 1000).toFixed(1)} s wall, ${tarballs.length} tarball(s) of ours`;
    },
  ));
if (cliInstalled) {
  await check(
    `it is at most ${CLI_INSTALL_LIMITS.packages} packages and ${CLI_INSTALL_LIMITS.megabytes} MB, and from Node 22 on nothing was compiled`,
    () => checkCliInstallTarget(cli, runtime),
  );
  await check('it carries no Redis client', () => {
    const hostedOnly = installedPackageNames(cli).filter((name) => HOSTED_ONLY.includes(name));
    if (hostedOnly.length > 0) throw new Error(`it installs ${hostedOnly.join(', ')}`);
  });
  await check('npx assistant --help', () => checkHelp(cli, runtime));
  let server;
  const served = await check('npx assistant serve starts', async () => {
    server = await startServe(cli, runtime, join(work, 'data'));
    return server.url;
  });
  if (served) {
    await check('assistant serve answers', () => checkServeAnswers(server));
    await check('npx assistant chat asks it', () => checkChat(cli, runtime, server));
    await server.stop();
  }
}

rmSync(work, { recursive: true, force: true });
console.log(`${label}: ${failed === 0 ? 'all checks passed' : `${failed} check(s) failed`}`);
process.exit(failed === 0 ? 0 : 1);
