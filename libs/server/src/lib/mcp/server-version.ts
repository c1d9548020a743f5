import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

/** The version of this package (`@assistant/server`) as its package.json says; src/ and dist/ sit beside it. */
export function serverPackageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}
