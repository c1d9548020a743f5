// Issue 23: "Rows written per answered query: a constant, whatever the answer's length …; bytes stored per answer
// reported." Our self-hosted server (SQLite) and, with --hosted, the hosted API (PostgreSQL) answer questions that
// each open a discussion, alternately short and long answers of the model stub, and the database itself counts what
// each answer wrote (lib/rows-written.mjs: a trigger on every table; COUNT(*), dbstat / pg_column_size).
// The tokens and query_runners tables are left out of the count: the bearer token's last use is the request's,
// and a hosted process's heartbeat row is the process's (every 5 s), not the answer's (both are shown in the
// breakdown). PASS when every answer, short or long, wrote the same rows in the same tables, and
// at most MAX_ROWS. One unmeasured query first (a first write may create what later ones reuse).
import { join } from 'node:path';
import { startHostedServer } from '../lib/hosted.mjs';
import { interleaved } from '../lib/measure.mjs';
import { stopProcess } from '../lib/processes.mjs';
import { row } from '../lib/report.mjs';
import { watchDatabase, writesByTable, writesOf } from '../lib/rows-written.mjs';
import { startOurServer, streamingEnv } from '../lib/server.mjs';
import { streamQuery, streamTarget } from '../lib/stream-queries.mjs';

/** Row writes per answered query that opens a discussion, at most (issue 23). */
export const MAX_ROWS = 6;
/** Written per request (tokens) or per process (query_runners: its heartbeat), not per answer: not counted. */
const NOT_PER_ANSWER_TABLES = new Set(['tokens', 'query_runners']);
export const ANSWERS = { short: 3, long: 200 };

const sum = (values) => values.reduce((a, b) => a + b, 0);
const describeTables = (byTable) =>
  Object.entries(byTable)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');

/**
 * Asks `count` questions of each length on `server` ({ baseUrl, token }), alternating which goes first, each
 * opening a discussion, with the stub's tokens `intervalMs` apart. Resolves { short: [answer], long: [answer] },
 * each answer { rows (row writes counted), byTable (row writes by counted table), bytes, pages, added (stored, by
 * table), writes ([{ tbl, op, n }], every table), problems }.
 */
export async function measureAnswers(server, database, stub, { count, intervalMs }) {
  const watch = await watchDatabase(database);
  const target = streamTarget('ours', server.baseUrl, server.token);
  const answers = { short: [], long: [] };
  let asked = 0;
  const ask = async (tokens) => {
    await stub.setDefault({ tokens, intervalMs });
    const measured = await writesOf(watch, () =>
      streamQuery(target, `Rows question ${(asked += 1)}`, tokens),
    );
    const all = writesByTable(measured.writes);
    const byTable = Object.fromEntries(Object.entries(all).filter(([t]) => !NOT_PER_ANSWER_TABLES.has(t)));
    return {
      rows: sum(Object.values(byTable)),
      byTable,
      bytes: sum(Object.values(measured.added).map((a) => a.bytes)),
      pages: sum(Object.values(measured.added).map((a) => a.pages)),
      added: measured.added,
      writes: measured.writes,
      problems: measured.result.problems,
    };
  };
  try {
    await ask(ANSWERS.short); // unmeasured
    for (let i = 0; i < count; i += 1)
      for (const kind of interleaved(i, 'short', 'long')) answers[kind].push(await ask(ANSWERS[kind]));
    return answers;
  } finally {
    target.agent.destroy();
    await watch.close();
  }
}

/** "queries 5 (1 insert, 4 updates)" per table written, tables in name order. */
function describeWrites(writes) {
  const tables = {};
  for (const { tbl, op, n } of writes) (tables[tbl] ??= {})[op] = n;
  return Object.keys(tables)
    .sort()
    .map((table) => {
      const ops = Object.entries(tables[table]).map(
        ([op, n]) => `${n} ${op.toLowerCase()}${n === 1 ? '' : 's'}`,
      );
      return `${table} ${sum(Object.values(tables[table]))} (${ops.join(', ')})`;
    })
    .join(', ');
}

/** "messages 2 rows 573 B, …": what the tables hold more after an answer. */
const describeAdded = (added) =>
  Object.entries(added)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, d]) => `${table} ${d.rows} rows ${d.bytes} B`)
    .join(', ');

/** The rows of one server's answers, and the bench failures (a stream that went wrong). */
function judgeAnswers(name, answers, { intervalMs }, log) {
  const failures = [];
  for (const kind of ['short', 'long'])
    for (const answer of answers[kind])
      for (const problem of answer.problems) failures.push(`${name} ${kind} answer: ${problem}`);
  const all = [...answers.short, ...answers.long];
  const shapes = new Set(all.map((a) => describeTables(a.byTable)));
  for (const kind of ['short', 'long'])
    for (const a of answers[kind])
      log(
        `  ${name}, ${kind} answer (${ANSWERS[kind]} tokens): ${a.rows} row writes: ${describeWrites(a.writes)}; ` +
          `stored ${a.bytes} B: ${describeAdded(a.added)}`,
      );
  const rowsOf = (kind) => [...new Set(answers[kind].map((a) => a.rows))].join('/');
  const mean = (kind, key) => Math.round(sum(answers[kind].map((a) => a[key])) / answers[kind].length);
  const bytesOf = (kind) => mean(kind, 'bytes').toLocaleString('en-US');
  const pagesOf = (kind) => `+${(mean(kind, 'pages') / 1024).toFixed(0)}`;
  const constant = shapes.size === 1;
  const most = Math.max(...all.map((a) => a.rows));
  const seconds = (kind) => ((ANSWERS[kind] * intervalMs) / 1000).toFixed(1);
  return {
    failures,
    rows: [
      row(
        `P12 (${name})`,
        `row writes per answered query opening a discussion, short / long ` +
          `(${ANSWERS.short} / ${ANSWERS.long} tokens over ${seconds('short')} / ${seconds('long')} s)`,
        '',
        `${rowsOf('short')} / ${rowsOf('long')}`,
        `equal, ≤ ${MAX_ROWS}`,
        all.length > 0 ? constant && most <= MAX_ROWS : null,
        {
          judged: constant
            ? `the same each time: ${describeTables(all[0].byTable)}`
            : `differ: ${[...shapes].join(' vs ')}`,
          rounds: all.length,
        },
      ),
      row(
        `P12 (${name})`,
        'bytes stored per answer, short / long: the rows (the pages they take)',
        '',
        `${bytesOf('short')} / ${bytesOf('long')} B (${pagesOf('short')} / ${pagesOf('long')} KB)`,
        'reported',
        null,
        { rounds: all.length },
      ),
    ],
  };
}

export async function rows(ctx) {
  const { options, log } = ctx;
  const stub = await ctx.stub();
  const servers = [
    {
      name: 'SQLite',
      start: async () => {
        const server = await startOurServer(options.server, streamingEnv(stub.url));
        return { server, database: { dialect: 'sqlite', file: join(server.dataDir, 'assistant.sqlite') } };
      },
    },
  ];
  if (options.hosted)
    servers.push({
      name: 'hosted, PostgreSQL',
      start: async () => {
        const server = await startHostedServer(options.databaseUrl, options.redisUrl, streamingEnv(stub.url));
        return { server, database: { dialect: 'postgres', url: server.databaseUrl } };
      },
    });
  const result = { rows: [], notes: [], failures: [] };
  try {
    for (const { name, start } of servers) {
      const { server, database } = await start();
      try {
        const answers = await measureAnswers(server, database, stub, {
          count: options.rowQueries,
          intervalMs: options.intervalMs,
        });
        const judged = judgeAnswers(name, answers, { intervalMs: options.intervalMs }, log);
        result.rows.push(...judged.rows);
        result.failures.push(...judged.failures);
      } finally {
        await stopProcess(server.handle);
      }
    }
  } finally {
    await stub.setDefault({ tokens: options.tokens, intervalMs: options.intervalMs });
  }
  result.notes.push(
    `rows: row writes counted by a trigger on every table (inserts, updates and deletes; the tokens table, written per request, left out); bytes: the rows added, SQLite dbstat payload, PostgreSQL pg_column_size; answers of each length: ${options.rowQueries}`,
  );
  return result;
}
