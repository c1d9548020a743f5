import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { renderWireModule } from './wire-table';

const SOURCE = join(__dirname, '..');

/** The modules a source file loads when it runs: its imports and re-exports, minus type-only ones. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?'([^']+)';/gms);
  return [...statements].filter(([, typeOnly]) => !typeOnly).map(([, , specifier]) => specifier!);
}

/** Every package a source file loads, following its relative imports. */
function packagesLoadedBy(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  for (const specifier of runtimeImports(file)) {
    if (specifier.startsWith('.')) {
      for (const name of packagesLoadedBy(`${resolve(dirname(file), specifier)}.ts`, seen))
        packages.add(name);
    } else {
      packages.add(specifier);
    }
  }
  return packages;
}

describe('the wire table', () => {
  it('is what ROUTES and the event schemas give (run `npm run contracts:wire` after changing them)', () => {
    expect(readFileSync(join(__dirname, 'wire.generated.ts'), 'utf8')).toBe(renderWireModule());
  });

  it('is served by an entry that loads no zod, nor anything else', () => {
    expect([...packagesLoadedBy(join(SOURCE, 'wire.ts'))]).toEqual([]);
    // The check sees imports: one of the main entry's must show up.
    expect([...packagesLoadedBy(join(SOURCE, 'index.ts'))]).toContain('zod');
  });
});
