/**
 * What installing one package brings with it, read off a folder where every tarball is installed: the packages
 * reachable from it through `dependencies` and `optionalDependencies` (present on disk), resolved the way Node
 * resolves them (the nearest `node_modules` up the tree), with their size on disk. `npm install -g @assistant/cli`
 * installs this closure, so it is how a self-hoster's install is measured, and how we know what it never carries.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function resolvePackage(fromDir, name, top) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === top || dir === dirname(dir)) return null;
  }
}

/** Bytes on disk under `dir`, not following links; its own node_modules are packages of their own. */
function sizeOf(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? sizeOf(path) : lstatSync(path).size;
  }
  return bytes;
}

/** `{ packages: Map<name@version, dir>, bytes }` of what installing `name` (installed in `folder`) brings. */
export function installClosure(folder, name) {
  const start = resolvePackage(folder, name, folder);
  if (!start) throw new Error(`${name} is not installed in ${folder}`);
  const packages = new Map();
  const pending = [start];
  while (pending.length > 0) {
    const dir = pending.pop();
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const key = `${manifest.name}@${manifest.version}`;
    if ([...packages.values()].includes(dir) || packages.has(key)) continue;
    packages.set(key, dir);
    const wanted = { ...manifest.optionalDependencies, ...manifest.dependencies };
    for (const dependency of Object.keys(wanted)) {
      const found = resolvePackage(dir, dependency, folder);
      if (found) pending.push(found);
      else if (!(dependency in (manifest.optionalDependencies ?? {})))
        throw new Error(`${manifest.name} needs ${dependency}, which is not installed`);
    }
  }
  const bytes = [...packages.values()].reduce((sum, dir) => sum + sizeOf(dir), 0);
  return { packages, bytes };
}
