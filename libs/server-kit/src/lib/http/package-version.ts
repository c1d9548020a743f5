let version: string | undefined;

/**
 * The version of the running server. Every package of the project is released at one version (nx release,
 * fixed), so this package's package.json says it; src/ and dist/ sit beside that file. Required by a literal path
 * rather than read beside `__dirname`, so that a bundle (the `assistant` command) carries it inside.
 */
export function serverPackageVersion(): string {
  version ??= (require('../../../package.json') as { version: string }).version;
  return version;
}
