import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

/**
 * The version of the running server. Every package of the project is released at one version (nx release,
 * fixed), so this package's package.json says it; src/ and dist/ sit beside that file.
 */
export function serverPackageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}
