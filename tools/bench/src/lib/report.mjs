// The perf report's table: one row per figure of issue 10, `# | metric | floor | ours | target | verdict`, as
// aligned text for the terminal and as a markdown table for a file.
//
// Why one module: every section builds its rows the same way (row()), with figures formatted by the same units
// below, so that the table reads alike whatever measured it.

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** Nanoseconds as milliseconds ("12.34 ms"); "-" when missing. */
export const ms = (ns) => (finite(ns) ? `${(ns / 1e6).toFixed(2)} ms` : '-');
/** Nanoseconds as microseconds ("345 µs"); "-" when missing. */
export const us = (ns) => (finite(ns) ? `${(ns / 1e3).toFixed(0)} µs` : '-');
/** Bytes as kilobytes ("11.3 KB"). */
export const kb = (bytes) => (finite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : '-');
/** Requests per second ("5,912 req/s"). */
export const rps = (x) => (finite(x) ? `${Math.round(x).toLocaleString('en-US')} req/s` : '-');

/**
 * One figure: `ok` true (PASS), false (MISS) or null (n/a: nothing to judge, e.g. a figure could not be taken;
 * a comparison with a missing figure, NaN, also reads n/a rather than MISS).
 */
export function row(id, metric, floor, ours, target, ok, { missing = false } = {}) {
  return { id, metric, floor, ours, target, verdict: missing || ok === null ? 'n/a' : ok ? 'PASS' : 'MISS' };
}

/** A comparison `ours <= limit` (or >=), null when either side is not a finite number. */
export function atMost(ours, limit) {
  return finite(ours) && finite(limit) ? ours <= limit : null;
}
export function atLeast(ours, limit) {
  return finite(ours) && finite(limit) ? ours >= limit : null;
}

const COLUMNS = [
  ['#', 'id'],
  ['metric', 'metric'],
  ['floor', 'floor'],
  ['ours', 'ours'],
  ['target', 'target'],
  ['PASS/MISS', 'verdict'],
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

/** The rows as a markdown table (pipes in cells escaped). */
export function markdownTable(rows) {
  const escape = (text) => String(text).replaceAll('|', '\\|');
  return [
    `| ${COLUMNS.map(([title]) => title).join(' | ')} |`,
    `|${COLUMNS.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${COLUMNS.map(([, key]) => escape(r[key])).join(' | ')} |`),
  ].join('\n');
}
