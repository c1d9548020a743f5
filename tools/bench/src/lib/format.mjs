// Formatting of figures and verdicts, shared by http-bench.mjs and stream-bench.mjs.
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
