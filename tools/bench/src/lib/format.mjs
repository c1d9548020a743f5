// Formatting of figures, verdicts and plain-text tables, shared by the benches and the profiles.
//
// Why one module: a CPU share, a ratio or a PASS/MISS must read the same in both benches' output. The text for
// a missing figure differs (http-bench prints "n/a", stream-bench's tables "-"), so it is a parameter.

/** A share of a core (0.5 → "50%"); `missing` for null (no /proc). */
export const percent = (x, missing = 'n/a') => (x === null ? missing : `${Math.round(x * 100)}%`);

/** A ratio with `digits` decimals ("0.63×"); `missing` when it could not be computed (null, NaN, ∞). */
export const formatRatio = (x, digits = 2, missing = 'n/a') =>
  Number.isFinite(x) ? `${x.toFixed(digits)}×` : missing;

/** PASS or MISS for a target; "n/a " (same width) when there is nothing to judge. */
export const verdict = (ok) => (ok === null ? 'n/a ' : ok ? 'PASS' : 'MISS');

/** Rows as columns of plain text: the first left-aligned, the others right-aligned, under `columns` and a rule. */
export function textTable(rows, columns) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i])))
      .join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** `--help` of a script whose options are a `parseArgs` table: each option, with its default where it has one. */
export function parseArgsUsage(script, options) {
  const lines = Object.entries(options).map(
    ([name, option]) => `  --${name}${option.default !== undefined ? ` (default ${option.default})` : ''}`,
  );
  return `Usage: node ${script} [options]\n\n${lines.join('\n')}`;
}
