/**
 * The bundle's source maps: a stack trace under `node --enable-source-maps` names our TypeScript sources
 * (`libs/server/src/lib/…`, `apps/cli/src/…`), whose text the maps carry, and a third-party frame the file of the
 * package it ran in (`node_modules/typeorm/…`), whose text is the bundle's own code.
 *
 * - Our libraries are bundled from tsc's output, whose maps lead esbuild on to the TypeScript sources.
 * - A third-party package's own map (if it ships one) is not followed: it names sources the package does not ship.
 *   Its code is in the bundle as it is in the package, so the map names its JavaScript file and leaves the text out
 *   (it would double the maps' size for nothing).
 * - The sources are named from the repository's root: the same names in the repository and in an installed
 *   package, relative to the map's folder (Node resolves them so: `…/@assistant/cli/dist/libs/server/src/…`).
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

const THIRD_PARTY = /(^|[\\/])node_modules[\\/]/;

/** Drops the `sourceMappingURL` comment of third-party files, so that esbuild maps their code to themselves. */
export const ownMapsOfThirdPartyIgnored = {
  name: 'assistant-third-party-maps-ignored',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
      loader: 'js',
    }));
  },
};

/**
 * A map esbuild wrote for a file in `outDir`, with its sources named from `repositoryRoot` and the text of
 * third-party sources left out.
 */
export function readableSourceMap(mapText, outDir, repositoryRoot) {
  const map = JSON.parse(mapText);
  map.sources = map.sources.map((source) => {
    // A module a plugin made (`namespace:path`): its text is in the map, under the file it stands for.
    const [, namespace, file] = /^([\w-]+):(.*)$/.exec(source) ?? [undefined, undefined, source];
    const name = relative(repositoryRoot, resolve(outDir, file));
    return namespace ? `${namespace}:${name}` : name;
  });
  map.sourcesContent = map.sources.map((source, index) =>
    THIRD_PARTY.test(source) && !/^[\w-]+:/.test(source) ? null : (map.sourcesContent?.[index] ?? null),
  );
  return JSON.stringify(map);
}
