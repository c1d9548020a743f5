// Issue 10, P7: memory recall at scale. The measuring is recall-bench.mjs's (measureRecall: seeding 100,000
// memories of one user on SQLite and 1,000,000 over 1,000 users on PostgreSQL, Zipf-like words, then timing
// recall top 5 per question, list ?q= and GET /memories?q= against the raw SQL they run); this section only turns
// its results into rows of the report, so that P7 is measured one way whichever command runs it. GET /memories?q=
// against its raw SQL runs interleaved rounds under the report's rule, like every figure with a floor.
import {
  HTTP_CASE,
  LIST_RATIO_TARGET,
  measureRecall,
  RAW_SQL,
  RECALL_P99_TARGET_MS,
} from '../recall-bench.mjs';
import { atMost, figureRow, ms, row, times } from '../lib/report.mjs';

const DIALECT_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const RECALL_CASE = 'recall, ';

/** One row per recall question, and GET /memories?q= against its raw SQL where it was measured. */
function rowsOf(dialect, cases, label) {
  const rows = [];
  for (const [name, { p50, p99 }] of Object.entries(cases)) {
    if (!name.startsWith(RECALL_CASE)) continue;
    rows.push(
      row(
        'P7',
        `recall top 5, ${label}, ${name.slice(RECALL_CASE.length)} (p50 ${ms(p50 * 1e6)})`,
        '',
        `p99 ${ms(p99 * 1e6)}`,
        `p99 ≤ ${RECALL_P99_TARGET_MS} ms`,
        atMost(p99, RECALL_P99_TARGET_MS),
      ),
    );
  }
  const [served, raw] = [cases[HTTP_CASE], cases[HTTP_CASE + RAW_SQL]];
  const metric = `GET /memories?q=<common word> p50, ${DIALECT_NAMES[dialect]} (floor: its raw SQL)`;
  const targetText = `≤ ${LIST_RATIO_TARGET} × the raw SQL`;
  if (served?.rounds) {
    const figure = {
      id: 'P7',
      metric,
      compare: 'ratio',
      targetText,
      show: (milliseconds) => ms(milliseconds * 1e6),
    };
    rows.push(figureRow(figure, served.rounds));
  } else if (served && raw) {
    rows.push(
      row(
        'P7',
        metric,
        ms(raw.p50 * 1e6),
        ms(served.p50 * 1e6),
        targetText,
        atMost(served.p50, LIST_RATIO_TARGET * raw.p50),
        {
          judged: times(served.p50 / raw.p50),
        },
      ),
    );
  }
  return rows;
}

export async function recall(ctx) {
  const { options, log } = ctx;
  const dialects = options.databaseUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  const perUser = Math.max(1, Math.round(options.pgMemories / options.pgUsers));
  const results = await measureRecall({
    dialects,
    sqliteMemories: options.memories,
    postgresUsers: options.pgUsers,
    postgresMemoriesPerUser: perUser,
    databaseUrl: options.databaseUrl ?? undefined,
    postgresSchema: options.pgSchema ?? undefined,
    samples: options.recalls,
    server: options.server,
    rule: ctx.rule,
    report: (line) => log(`  ${line}`),
  });
  const labels = {
    sqlite: `${options.memories.toLocaleString('en-US')} memories, 1 user, SQLite`,
    postgres: `${(perUser * options.pgUsers).toLocaleString('en-US')} memories / ${options.pgUsers} users, PostgreSQL`,
  };
  const rows = Object.entries(results).flatMap(([dialect, cases]) => rowsOf(dialect, cases, labels[dialect]));
  const failures = dialects
    .filter((dialect) => !results[dialect])
    .map((dialect) => `recall-bench measured nothing on ${dialect}`);
  if (!results.sqlite?.[HTTP_CASE]) failures.push('GET /memories?q= was not measured (see the lines above)');
  return { rows, notes: ['recall: measured by recall-bench.mjs (measureRecall)'], failures };
}
