// Command-line options, shared by http-bench.mjs and stream-bench.mjs.
//
// Why one module: both benches describe their options by one table ({ name: { env, default, help } }) so that
// every option can be given as --name or as an environment variable (BENCH_*), in that order of precedence,
// and so that --help lists them all the same way. Each bench still validates its own values.
import { parseArgs } from 'node:util';

/**
 * Parses `argv` against `table` (string options) plus -h/--help and the boolean flags `booleans`. Returns the
 * parsed `values` and `raw(name)`: the --name value, else the environment variable, else the default (with a
 * `profile`, e.g. "quick", an option's `quick` value where it has one). Unknown options throw.
 */
export function parseOptionTable(table, argv, env, booleans = [], profile = () => null) {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.keys(table).map((name) => [name, { type: 'string' }])),
      ...Object.fromEntries(booleans.map((name) => [name, { type: 'boolean' }])),
      help: { type: 'boolean', short: 'h' },
    },
  });
  const defaults = profile(values);
  const raw = (name) =>
    values[name] ?? env[table[name].env] ?? (defaults && table[name][defaults]) ?? table[name].default;
  return { values, raw };
}

/** One --help line per option of `table`: name, help, environment variable and default ("none" if empty). */
export function optionHelpLines(table) {
  return Object.entries(table).map(
    ([name, o]) =>
      `  --${name.padEnd(14)} ${o.help} (env ${o.env}, default ${o.default === '' ? 'none' : o.default}` +
      `${o.quick === undefined ? '' : `; --quick: ${o.quick}`})`,
  );
}
