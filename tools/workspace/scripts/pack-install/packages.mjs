/**
 * The workspace's publishable packages (every workspace package not marked `private`: the release group of nx.json
 * is the same set), packed with `npm pack` as npm would publish them, and the rule for what a tarball may contain.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The publishable packages: `{ name, dir, bin, entries }` for each workspace package that is not private (`entries`:
 * the files its `main` and `types` name).
 */
export function publishablePackages(root) {
  const listed = spawnSync('npm', ['query', '.workspace', '--json'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`npm query failed: ${listed.stderr}`);
  return JSON.parse(listed.stdout)
    .filter((manifest) => !manifest.private)
    .map((manifest) => ({
      name: manifest.name,
      dir: manifest.location,
      bin: Boolean(manifest.bin),
      entries: [manifest.main, manifest.types]
        .filter((entry) => entry !== undefined)
        .map((entry) => entry.replace(/^\.\//, '')),
    }));
}

/** Packs every package into `destination`; returns `{ name, tarball, files }` for each (files: paths inside). */
export function packAll(root, packages, destination) {
  const packed = spawnSync(
    'npm',
    ['pack', '--json', '--pack-destination', destination, ...packages.flatMap((pkg) => ['-w', pkg.name])],
    { cwd: root, encoding: 'utf8' },
  );
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  return JSON.parse(packed.stdout).map((result) => ({
    name: result.name,
    tarball: join(destination, result.filename),
    files: result.files.map((file) => file.path),
  }));
}

/** What every tarball must hold besides its build: the README npm shows and the licence it is published under. */
const REQUIRED_FILES = ['package.json', 'README.md', 'LICENSE'];

/** The files of REQUIRED_FILES a tarball lacks. */
export function missingFiles(files) {
  return REQUIRED_FILES.filter((file) => !files.includes(file));
}

/**
 * The files of a tarball that should not be in it: only package.json, README, LICENSE and the build (`dist/`) are
 * published, plus `bin/` for a package with commands and the entry points of a package that needs no build
 * (@assistant/sqlite-node20's index.js and index.d.ts); no TypeScript sources, tests or build caches.
 */
export function unexpectedFiles(files, { bin, entries = [] }) {
  const allowed = [
    /^package\.json$/,
    /^README(\.md)?$/i,
    /^LICEN[CS]E(\.md)?$/i,
    /^dist\//,
    ...(bin ? [/^bin\//] : []),
  ];
  const forbidden = [/\.tsbuildinfo$/, /\.(spec|integration-spec)\.(js|d\.ts)(\.map)?$/];
  return files.filter(
    (file) =>
      !(allowed.some((rule) => rule.test(file)) || entries.includes(file)) ||
      forbidden.some((rule) => rule.test(file)),
  );
}
