// Rewrites src/lib/wire.generated.ts from the routes and the event schemas (src/lib/wire-table.ts).
// Run through `npm run contracts:wire`, which builds the contracts first: this script reads their build.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { renderWireModule } = (await import('../dist/lib/wire-table.js')).default;
const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'lib', 'wire.generated.ts');
const before = readFileSync(file, 'utf8');
const after = renderWireModule();
if (after === before) {
  process.stdout.write('wire.generated.ts is up to date\n');
} else {
  writeFileSync(file, after);
  process.stdout.write('rewrote wire.generated.ts\n');
}
