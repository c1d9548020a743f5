// Rewrites the configuration table of README.md from the settings schemas (libs/server-kit/src/lib/config/settings.ts).
// Run through `npm run docs:config`, which builds the server kit first: this script reads its build.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const kit = (await import('../dist/index.js')).default;
const readme = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'README.md');
const before = readFileSync(readme, 'utf8');
const after = kit.withConfigTable(before);
if (after === before) {
  process.stdout.write('README.md: the configuration table is up to date\n');
} else {
  writeFileSync(readme, after);
  process.stdout.write('README.md: rewrote the configuration table\n');
}
