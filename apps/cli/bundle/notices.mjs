/**
 * THIRD-PARTY-NOTICES.txt: the licence of every third-party package inside the bundle, as each package ships it
 * (its LICENSE, LICENCE, COPYING or NOTICE files, or else the licence section of its README), with its name,
 * version and the licence its package.json names.
 * npm shows a dependency's licence with the dependency; a bundled package is no dependency any more, so the bundle
 * carries them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.|-|$)/i;
const README = /^readme(\.|$)/i;

/** The section of a README whose heading names the licence, up to the next heading of its level or above. */
function licenceSection(readme) {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => /^#+ .*licen[cs]e/i.test(line));
  if (start === -1) return undefined;
  const level = /^#+/.exec(lines[start])[0].length;
  const end = lines.findIndex(
    (line, index) => index > start && /^#+ /.test(line) && /^#+/.exec(line)[0].length <= level,
  );
  return lines
    .slice(start, end === -1 ? undefined : end)
    .join('\n')
    .trim();
}

/** The licence texts a package ships: its licence files, or the licence section of its README. */
function licenceTexts(root) {
  const files = readdirSync(root).sort();
  const texts = files
    .filter((file) => LICENCE_FILE.test(file))
    .map((file) => readFileSync(join(root, file), 'utf8').trim());
  if (texts.length > 0) return texts;
  return files
    .filter((file) => README.test(file))
    .map((file) => licenceSection(readFileSync(join(root, file), 'utf8')))
    .filter(Boolean);
}

/** The folder of the package a bundled third-party file comes from (`…/node_modules/@scope/name`). */
function packageRoot(file) {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return match?.[1];
}

/** `{ name, version, license, texts }` of each third-party package among `inputFiles` (absolute paths). */
export function bundledPackages(inputFiles) {
  const roots = [...new Set(inputFiles.map(packageRoot).filter(Boolean))];
  return roots
    .map((root) => {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
      const texts = licenceTexts(root);
      const license =
        typeof manifest.license === 'string'
          ? manifest.license
          : (manifest.licenses ?? []).map((entry) => entry.type ?? entry).join(' OR ') ||
            'not named in its package.json';
      const author = typeof manifest.author === 'object' ? manifest.author.name : manifest.author;
      const source = manifest.homepage ?? manifest.repository?.url ?? manifest.repository;
      return { name: manifest.name, version: manifest.version, license, author, source, texts };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** The text of THIRD-PARTY-NOTICES.txt for `packages` (from bundledPackages). */
export function noticesText(packages) {
  const rule = '-'.repeat(80);
  const entries = packages.map(({ name, version, license, author, source, texts }) =>
    [
      rule,
      `${name} ${version} (${license})`,
      '',
      texts.length > 0
        ? texts.join('\n\n')
        : [
            `The package ships no licence text; its package.json names the licence (${license})`,
            ...(author ? [`and its author (${author})`] : []),
            ...(typeof source === 'string' ? [`and where it comes from (${source})`] : []),
          ].join(', ') + '.',
    ].join('\n'),
  );
  return [
    'The `assistant` command (@assistant/cli) carries the following packages inside its bundle (dist/*.mjs and',
    'dist/*.cjs). Each is distributed under the licence that follows its name. The rest of the bundle is',
    "Assistant's own code, under the package's LICENSE.",
    '',
    ...entries,
    '',
  ].join('\n');
}
