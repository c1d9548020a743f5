import { parseArgs } from 'node:util';
import type { FlagTable, FlagValues } from './flag-table';

/**
 * A command line in its plain forms, parsed against a flag table without oclif: at most `maxPositionals`
 * arguments, each flag once, long flags with or without `=`, short ones alone (`-y`, `-d dsc_…`). Anything else —
 * help, an unknown or repeated flag, a missing or empty value, a cluster such as `-yd`, an argument too many — is
 * undefined and left to oclif, whose messages stay the only ones for mistakes.
 */
export function parsePlainCommandLine<Table extends FlagTable>(
  argv: readonly string[],
  table: Table,
  maxPositionals: number,
): { positionals: string[]; flags: FlagValues<Table> } | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: parseArgsOptions(table),
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch {
    return undefined;
  }
  if (parsed.positionals.length > maxPositionals) return undefined;
  const options = parsed.tokens.filter((token) => token.kind === 'option');
  const names = new Set(options.map((token) => token.name));
  const places = new Set(options.map((token) => token.index));
  if (names.size !== options.length || places.size !== options.length) return undefined;
  const shortWithValueAttached = options.some(
    (token) => !token.rawName.startsWith('--') && token.inlineValue,
  );
  const emptyValue = options.some((token) => token.value === '');
  if (shortWithValueAttached || emptyValue) return undefined;
  return { positionals: parsed.positionals, flags: parsed.values as FlagValues<Table> };
}

/** A flag table as node:util's parseArgs takes it. */
function parseArgsOptions(table: FlagTable) {
  return Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [
      name,
      { type: spec.type === 'boolean' ? 'boolean' : 'string', ...(spec.char ? { short: spec.char } : {}) },
    ]),
  ) as Record<string, { type: 'boolean' | 'string'; short?: string }>;
}
