// The perf report's table: one row per figure, `# | metric | floor | ours | judged [95% interval] | rounds | target
// | verdict`, as aligned text for the terminal and as a markdown table (the README's Performance table is that
// markdown, pasted).
//
// Why one module: every section builds its rows the same way (row() for a single measurement, figureRow() for a
// figure of adaptive rounds), with figures formatted by the same units below, so that the table reads alike
// whatever measured it.
import { DEFAULT_RULE, verdictText } from './adaptive-rounds.mjs';
import { median } from './measure.mjs';

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** Nanoseconds as milliseconds ("12.34 ms"); "-" when missing. */
export const ms = (ns) => (finite(ns) ? `${(ns / 1e6).toFixed(2)} ms` : '-');
/** Nanoseconds as microseconds ("345 µs"); "-" when missing. */
export const us = (ns) => (finite(ns) ? `${(ns / 1e3).toFixed(0)} µs` : '-');
/** Bytes as kilobytes ("11.3 KB"). */
export const kb = (bytes) => (finite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : '-');
/** Requests per second ("5,912 req/s"). */
export const rps = (x) => (finite(x) ? `${Math.round(x).toLocaleString('en-US')} req/s` : '-');
/** A ratio ("0.63×"). */
export const times = (x) => (finite(x) ? `${x.toFixed(2)}×` : '-');
/** A signed difference of nanoseconds in milliseconds ("+0.84 ms"). */
export const msDiff = (ns) =>
  finite(ns) ? `${ns >= 0 ? '+' : '−'}${Math.abs(ns / 1e6).toFixed(2)} ms` : '-';

/**
 * One figure measured once (no rounds to judge): `ok` true (PASS), false (MISS) or null (n/a: nothing to judge,
 * e.g. a figure could not be taken; a comparison with a missing figure, NaN, also reads n/a rather than MISS).
 * `judged` fills the "judged" column (e.g. a ratio), `rounds` the rounds column.
 */
export function row(id, metric, floor, ours, target, ok, { missing = false, judged = '', rounds = '' } = {}) {
  const verdict = missing || ok === null ? 'n/a' : ok ? 'PASS' : 'MISS';
  return { id, metric, floor, ours, judged, rounds: String(rounds), target, verdict };
}

/** A comparison `ours <= limit` (or >=), null when either side is not a finite number. */
export function atMost(ours, limit) {
  return finite(ours) && finite(limit) ? ours <= limit : null;
}
export function atLeast(ours, limit) {
  return finite(ours) && finite(limit) ? ours >= limit : null;
}

/** How each kind of comparison is shown by default: its per-round statistic, formatted. */
const COMPARED_FORMAT = { ratio: times, difference: msDiff, value: ms };

/**
 * The row of a figure judged over adaptive rounds (lib/adaptive-rounds.mjs): `figure` { id, metric, compare,
 * target, targetText, show (formats an ours or floor value), showCompared (formats the per-round statistic;
 * default by `compare`) } and its `state` from adaptiveRounds ({ ours, floor, values, judged }). Floor and ours
 * are the medians of their own rounds; the judged column is the median of the paired statistic with its interval.
 */
export function figureRow(figure, state) {
  const show = figure.show;
  const showCompared = figure.showCompared ?? COMPARED_FORMAT[figure.compare];
  const { judged } = state;
  const interval = judged.interval
    ? ` [${showCompared(judged.interval.low)} – ${showCompared(judged.interval.high)}]`
    : '';
  const floors = state.floor.filter(finite);
  return {
    id: figure.id,
    metric: figure.metric,
    floor: floors.length > 0 ? show(median(floors)) : '',
    /** The floor's median in the figure's own unit (lib/machine-reference.mjs). */
    floorValue: floors.length > 0 ? median(floors) : undefined,
    ours: show(median(state.ours)),
    judged: `${showCompared(judged.estimate)}${interval}`,
    rounds: String(state.values.length),
    target: figure.targetText,
    verdict: verdictText(judged, state.values.length),
  };
}

const COLUMNS = [
  ['#', 'id'],
  ['metric', 'metric'],
  ['floor', 'floor'],
  ['ours', 'ours'],
  [`judged [${Math.round(DEFAULT_RULE.confidence * 100)}% interval]`, 'judged'],
  ['rounds', 'rounds'],
  ['target', 'target'],
  ['verdict', 'verdict'],
];

/** The rows as an aligned text table. */
export function textTable(rows) {
  const cells = [
    COLUMNS.map(([title]) => title),
    ...rows.map((r) => COLUMNS.map(([, key]) => String(r[key]))),
  ];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

/**
 * The rows as a markdown table (pipes in cells escaped), aligned as Prettier aligns it: the README's Performance
 * table is this text, pasted as it is.
 */
export function markdownTable(rows) {
  const escape = (text) => String(text).replaceAll('|', '\\|');
  const cells = [
    COLUMNS.map(([title]) => title),
    ...rows.map((r) => COLUMNS.map(([, key]) => escape(r[key]))),
  ];
  const widths = COLUMNS.map((_, i) => Math.max(3, ...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(cells[0]),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
}
