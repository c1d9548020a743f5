// How many rounds a figure of the perf report needs: interleaved rounds of ours and its floor go on until the
// figure's verdict is clear, instead of a fixed count that is too many for a figure far from its line and too few
// for one close to it. One rule for every section, so that every verdict of the report means the same.
//
// A round measures ours and the floor back to back, so whatever the machine does meanwhile (another process
// compiling, a frequency change) weighs on both: the figure is judged on the per-round PAIRED statistic, ours/floor
// (a ratio target) or ours − floor (a difference target, e.g. "≤ relay + 1 ms"), or ours alone (a fixed limit).
// Its estimate is the median over the rounds, and its interval the distribution-free confidence interval of that
// median: the order statistics k and n + 1 − k of the n sorted values, k the largest with P(Binomial(n, ½) < k) at
// most (1 − confidence) / 2. It assumes nothing of the noise's shape (a stray slow round only moves the interval
// by one rank), and at 95% it exists from 6 rounds on (k = 1: the lowest and highest of six values, 96.9%).
//
// After each round from `minRounds` on, every figure is judged:
//   PASS or MISS      the interval lies wholly on one side of the target line;
//   PASS or MISS, by the median, when the interval straddles the line but is narrow (half-width at most
//                     `precision` of the target): the figure is on the line, and more rounds would not tell more;
//   UNDECIDED         otherwise.
// The loop stops once every figure it measures is decided, or after `maxRounds`, or once `budgetMs` has passed
// (whichever comes first); an undecided figure then reads "UNDECIDED (spread ±x% after N rounds)". With `fixed`
// rounds (--rounds N) it runs exactly N and judges them by the same rule.
// The interval is checked after every round, so a verdict's real error rate is somewhat above 1 − confidence; a
// figure far from its line (most of them) is not affected, and one near it runs on until the precision rule calls it.

/** The rule of the report unless its options say otherwise. */
export const DEFAULT_RULE = Object.freeze({
  confidence: 0.95,
  minRounds: 6,
  maxRounds: 30,
  budgetMs: 180_000,
  precision: 0.03,
  fixed: null,
});

/** P(X ≤ k) for X ~ Binomial(n, ½). */
function binomialHalfCdf(n, k) {
  let term = 0.5 ** n; // P(X = 0)
  let sum = 0;
  for (let i = 0; i <= k; i += 1) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * The distribution-free confidence interval of the median of `values`: { low, high, median, confidence (the
 * interval's own, at least the one asked for), exact (false when there are too few values for the confidence asked:
 * the interval is then the lowest and highest value, with the confidence that has) }; null for no values.
 */
export function medianInterval(values, confidence = DEFAULT_RULE.confidence) {
  const n = values.length;
  if (n === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(n / 2);
  const median = n % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const tail = (1 - confidence) / 2;
  // k: the largest rank with P(X ≤ k − 1) ≤ tail; the interval is [x(k), x(n + 1 − k)] (1-based).
  let k = 0;
  while (k + 1 <= Math.floor(n / 2) && binomialHalfCdf(n, k) <= tail) k += 1;
  if (k === 0)
    return { low: sorted[0], high: sorted[n - 1], median, confidence: 1 - 2 * 0.5 ** n, exact: false };
  return {
    low: sorted[k - 1],
    high: sorted[n - k],
    median,
    confidence: 1 - 2 * binomialHalfCdf(n, k - 1),
    exact: true,
  };
}

/**
 * The per-round statistic a figure is judged on: `ratio` ours/floor (NaN, so no value, for a floor at or below 0:
 * e.g. an added time that noise made negative), `difference` ours − floor, `value` ours alone (a fixed limit; the
 * floor, if any, only shown).
 */
export function pairedValue(compare, ours, floor) {
  if (compare === 'ratio') return floor > 0 ? ours / floor : NaN;
  if (compare === 'difference') return ours - floor;
  return ours;
}

const passes = (op, x, limit) => (op === '<=' ? x <= limit : x >= limit);

/**
 * The verdict on `values` (the paired statistic of each round) against `target` { op: '<=' | '>=', limit }:
 * { verdict: 'PASS' | 'MISS' | 'UNDECIDED', by: 'interval' | 'precision' | null, estimate, interval, spread (the
 * interval's half-width as a share of the target's limit) }. `rule` as DEFAULT_RULE.
 */
export function judge(values, target, rule = DEFAULT_RULE) {
  const finite = values.filter(Number.isFinite);
  const interval = medianInterval(finite, rule.confidence);
  if (!interval) return { verdict: 'UNDECIDED', by: null, estimate: NaN, interval: null, spread: NaN };
  const scale = Math.abs(target.limit) || Math.abs(interval.median) || 1;
  const spread = (interval.high - interval.low) / 2 / scale;
  const base = { estimate: interval.median, interval, spread };
  if (interval.exact) {
    const [lowPasses, highPasses] = [
      passes(target.op, interval.low, target.limit),
      passes(target.op, interval.high, target.limit),
    ];
    if (lowPasses && highPasses) return { ...base, verdict: 'PASS', by: 'interval' };
    if (!lowPasses && !highPasses) return { ...base, verdict: 'MISS', by: 'interval' };
    if (spread <= rule.precision)
      return {
        ...base,
        verdict: passes(target.op, interval.median, target.limit) ? 'PASS' : 'MISS',
        by: 'precision',
      };
  }
  return { ...base, verdict: 'UNDECIDED', by: null };
}

/** How a judged figure's verdict reads in the report: PASS, MISS or "UNDECIDED (spread ±x% after N rounds)". */
export function verdictText(judged, rounds) {
  if (judged.verdict !== 'UNDECIDED') return judged.verdict;
  const spread = Number.isFinite(judged.spread) ? `±${(judged.spread * 100).toFixed(0)}%` : 'unknown';
  return `UNDECIDED (spread ${spread} after ${rounds} round${rounds === 1 ? '' : 's'})`;
}

/**
 * Runs interleaved rounds until every figure is decided (see the header). `figures`: [{ key, compare, target }];
 * `round(index)` runs one round and resolves { [key]: { ours, floor } } (a figure left out, or with a non-finite
 * side, got nothing from that round: e.g. a failed load run). `now` is the clock (milliseconds), replaceable in
 * tests. Resolves { rounds, elapsedMs, stoppedBy: 'decided' | 'max rounds' | 'budget' | 'fixed',
 * figures: { [key]: { ours: [], floor: [], values: [], judged } } }.
 */
export async function adaptiveRounds({ figures, round, rule = DEFAULT_RULE, now = () => performance.now() }) {
  const started = now();
  const state = Object.fromEntries(
    figures.map((f) => [f.key, { ours: [], floor: [], values: [], judged: judge([], f.target, rule) }]),
  );
  const judgeAll = () => {
    for (const f of figures) state[f.key].judged = judge(state[f.key].values, f.target, rule);
  };
  let rounds = 0;
  let stoppedBy = null;
  while (stoppedBy === null) {
    const measured = await round(rounds);
    rounds += 1;
    for (const f of figures) {
      const pair = measured?.[f.key];
      if (!pair || !Number.isFinite(pair.ours) || (f.compare !== 'value' && !Number.isFinite(pair.floor)))
        continue;
      const value = pairedValue(f.compare, pair.ours, pair.floor);
      if (!Number.isFinite(value)) continue;
      const s = state[f.key];
      s.ours.push(pair.ours);
      s.floor.push(pair.floor);
      s.values.push(value);
    }
    judgeAll();
    if (rule.fixed !== null && rule.fixed !== undefined) {
      if (rounds >= rule.fixed) stoppedBy = 'fixed';
      continue;
    }
    if (rounds < rule.minRounds) continue;
    if (figures.every((f) => state[f.key].judged.verdict !== 'UNDECIDED')) stoppedBy = 'decided';
    else if (rounds >= rule.maxRounds) stoppedBy = 'max rounds';
    else if (now() - started >= rule.budgetMs) stoppedBy = 'budget';
  }
  return { rounds, elapsedMs: now() - started, stoppedBy, figures: state };
}

/** The rule in words, for the report's notes. */
export function describeRule(rule) {
  if (rule.fixed !== null && rule.fixed !== undefined)
    return `${rule.fixed} interleaved rounds per figure (fixed)`;
  return (
    `interleaved rounds until the ${Math.round(rule.confidence * 100)}% interval of the median decides the ` +
    `verdict or is within ±${(rule.precision * 100).toFixed(0)}% of the target (${rule.minRounds}–${rule.maxRounds} ` +
    `rounds, at most ${Math.round(rule.budgetMs / 1000)} s per figure)`
  );
}
