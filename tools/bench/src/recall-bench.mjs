#!/usr/bin/env node
// Memory recall at scale (issue 10, P7): the recall that runs before every model call, and GET /memories?q=,
// on many memories, for SQLite (100,000 memories of one user) and PostgreSQL (1,000,000 over 1,000 users).
//
// What it does: migrates a fresh database through the real storage lib (a temporary SQLite file; a random
// PostgreSQL schema, dropped at the end), seeds memories straight into its tables with multi-row INSERTs
// (SQLite) or one generate_series INSERT (PostgreSQL) so that the triggers and generated columns of the real
// schema index them, then times, one call after another:
//   - `storage.memories.recall(user, question, 5)` (what a query pays before its model call) for a common word,
//     a rare word, a mixed question and a question of common words only;
//   - `storage.memories.list(user, { q, limit: 50 })` (what GET /memories?q= runs) against the same SQL run raw on
//     the driver, and, on SQLite, GET /api/v1/memories?q= on the built self-hosted server against that raw SQL.
// Memories are 12 words drawn from a Zipf-like vocabulary (word of rank r drawn with probability ∝ 1/r), so the
// most common word is in about two thirds of them and a word of rank 3,000 in a few dozen.
//
// measureRecall(options) is the API (perf-report.mjs calls it); run alone, this prints a table with the target.
//
//   node tools/bench/src/recall-bench.mjs                        # both dialects, the sizes of the target
//   node tools/bench/src/recall-bench.mjs --dialects sqlite --sqlite-memories 20000 --samples 100
//
// Needs the built storage lib (npx nx run @assistant/storage:build) and, for the HTTP case, the built server.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { interleaved, median, percentile } from './lib/measure.mjs';
import { adaptiveRounds } from './lib/adaptive-rounds.mjs';
import { optionHelpLines, parseOptionTable } from './lib/options.mjs';
import {
  DEFAULT_SERVER,
  REPO_ROOT,
  ourServerEnv,
  readToken,
  serverArgs,
  sqliteDriver,
} from './lib/server.mjs';
import {
  freePort,
  installSignalHandlers,
  makeTempDir,
  removeTempDirs,
  spawnNode,
  stopAll,
  waitForHealthz,
} from './lib/processes.mjs';
import { verdict } from './lib/format.mjs';

const requireFromStorage = createRequire(join(REPO_ROOT, 'libs/storage/package.json'));

/** P7: recall top 5 within this p99, common words included. */
export const RECALL_P99_TARGET_MS = 5;
/** P7: GET /memories?q= within this multiple of the raw SQL it runs. */
export const LIST_RATIO_TARGET = 1.3;
/** The served search and the raw SQL it runs, as measureRecall names them. */
export const HTTP_CASE = 'GET /memories?q=common word';
export const RAW_SQL = ', raw SQL';
const RECALL_LIMIT = 5;
const LIST_LIMIT = 50;

const VOCABULARY_SIZE = 5_000;
const WORDS_PER_MEMORY = 12;
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'ta',
  'po',
  'si',
  'de',
  'vu',
  'ba',
  'ze',
  'fi',
  'go',
  'hu',
  'ja',
];

/** The word of rank `rank` (1 = most common): made-up, never an English stop word, stable under stemming. */
export function wordOfRank(rank) {
  let word = 'w';
  let rest = rank;
  do {
    word += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return `${word}x`;
}

/** The questions timed, by the ranks of their words. */
export const QUESTIONS = {
  'common word': [1],
  'rare word': [3_000],
  'mixed question': [1, 2, 10, 200, 3_000],
  'common words only': [1, 2, 3],
};

const question = (ranks) => `What about ${ranks.map(wordOfRank).join(' and ')}?`;

/** mulberry32, seeded, so that every run seeds the same memories (uniform in [0, 1)). */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function zipfContents(count, seed = 42) {
  const random = seededRandom(seed);
  const rank = () =>
    Math.min(VOCABULARY_SIZE, Math.floor(Math.exp(random() * Math.log(VOCABULARY_SIZE + 1))));
  return Array.from({ length: count }, () =>
    Array.from({ length: WORDS_PER_MEMORY }, () => wordOfRank(rank())).join(' '),
  );
}

// ---------------------------------------------------------------------------------------------- timing

/** Calls `run` `warmup` times, then `samples` times; p50 and p99 in milliseconds. */
async function timeCalls(run, { samples, warmup = Math.min(20, samples) }) {
  for (let i = 0; i < warmup; i++) await run();
  const times = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

// ---------------------------------------------------------------------------------------------- SQLite

async function seedSqlite(file, memories) {
  const { openStorage } = requireFromStorage('@assistant/storage');
  const storage = await openStorage({ dialect: 'sqlite', file }, { migrations: 'run' });
  const user = await storage.users.create({ email: 'recall-bench@example.com', displayName: 'Bench' });
  await storage.close();
  insertSqliteMemories(file, user.id, memories);
  return user.id;
}

/** Inserts `memories` memories of `userId` with multi-row INSERTs in one transaction (the FTS triggers run). */
function insertSqliteMemories(file, userId, memories) {
  const Database = sqliteDriver();
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  const batch = 500;
  const insert = db.prepare(
    `INSERT INTO memories (id, user_id, content, tags, source, discussion_id, created_at, updated_at) VALUES ` +
      Array(batch).fill(`(?, ?, ?, '[]', 'user', NULL, ?, ?)`).join(', '),
  );
  const contents = zipfContents(memories);
  const at = '2026-01-01 00:00:00.000';
  db.transaction(() => {
    for (let start = 0; start + batch <= memories; start += batch) {
      const params = [];
      for (let n = start; n < start + batch; n++) params.push(seededId(n), userId, contents[n], at, at);
      insert.run(params);
    }
  })();
  db.close();
}

/** Ids in creation order, like newId's (the list pages by id). */
const seededId = (n) => `mem_0${String(n).padStart(25, '0')}`;

async function measureSqlite(options, report) {
  const dir = makeTempDir('recall-bench-');
  const file = join(dir, 'bench.sqlite');
  const seedStart = Date.now();
  const userId = await seedSqlite(file, options.sqliteMemories);
  report(`sqlite: ${options.sqliteMemories} memories of 1 user seeded in ${Date.now() - seedStart} ms`);
  const { openStorage } = requireFromStorage('@assistant/storage');
  const storage = await openStorage({ dialect: 'sqlite', file }, { migrations: 'run' });
  const Database = sqliteDriver();
  const raw = new Database(file, { readonly: true });
  const results = {};
  try {
    for (const [name, ranks] of Object.entries(QUESTIONS)) {
      results[`recall, ${name}`] = await timeCalls(
        () => storage.memories.recall(userId, question(ranks), RECALL_LIMIT),
        options,
      );
    }
    const q = wordOfRank(1);
    results['list ?q=common word'] = await timeCalls(
      () => storage.memories.list(userId, { q, limit: LIST_LIMIT }),
      options,
    );
    const listSql = sqliteListSql();
    const statement = raw.prepare(listSql.sql);
    results['list ?q=common word, raw SQL'] = await timeCalls(
      () => statement.all(...listSql.params(userId, q)),
      options,
    );
  } finally {
    raw.close();
    await storage.close();
  }
  if (!options.skipHttp) {
    // The HTTP case needs the built server; when it cannot start (not built, or mid-rebuild), the rest stands.
    try {
      Object.assign(results, await measureSqliteHttp(options, report));
    } catch (error) {
      report(`sqlite http: skipped, ${String(error.message).split('\n').slice(0, 3).join(' / ')}`);
    } finally {
      await stopAll();
    }
  }
  return results;
}

/** The SQL that MemoriesRepository.list runs for `?q=<one word>` on SQLite (kept in step with the repository). */
function sqliteListSql() {
  return {
    sql: `SELECT m.id, m.user_id, m.content, m.tags, m.source, m.discussion_id, m.created_at, m.updated_at
          FROM memories m WHERE m.user_id = ? AND m.search_rowid IN
          (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?) ORDER BY m.id DESC LIMIT ?`,
    params: (userId, word) => [userId, `"${word}"`, LIST_LIMIT + 1],
  };
}

/**
 * GET /api/v1/memories?q= on the built self-hosted server, against the raw SQL it runs on the same file: the
 * server makes its owner on first start; the memories are then written into its database beside it (WAL).
 */
async function measureSqliteHttp(options, report) {
  if (!existsSync(options.server)) {
    report(`sqlite http: skipped, ${options.server} is not built`);
    return {};
  }
  const dataDir = makeTempDir('recall-bench-http-');
  const port = await freePort();
  const handle = spawnNode(
    'our server',
    options.server,
    serverArgs(options.server),
    ourServerEnv(dataDir, port),
  );
  await waitForHealthz(handle, port, 20);
  const token = readToken(dataDir);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const headers = { authorization: `Bearer ${token}` };
  const me = await (await fetch(`${base}/me`, { headers })).json();
  const file = join(dataDir, 'assistant.sqlite');
  insertSqliteMemories(file, me.id, options.sqliteMemories);
  const q = wordOfRank(1);
  const url = `${base}/memories?q=${q}&limit=${LIST_LIMIT}`;
  const first = await fetch(url, { headers });
  if (first.status !== 200)
    throw new Error(`GET /memories?q= answered ${first.status}: ${await first.text()}`);
  await first.arrayBuffer();
  const Database = sqliteDriver();
  const raw = new Database(file, { readonly: true });
  try {
    const listSql = sqliteListSql();
    const statement = raw.prepare(listSql.sql);
    const calls = {
      served: async () => {
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
      },
      raw: () => statement.all(...listSql.params(me.id, q)),
    };
    if (!options.rule) {
      return {
        [HTTP_CASE]: await timeCalls(calls.served, options),
        [HTTP_CASE + RAW_SQL]: await timeCalls(calls.raw, options),
      };
    }
    return await judgedHttpCase(calls, options, report);
  } finally {
    raw.close();
  }
}

/**
 * GET /memories?q= against its raw SQL in interleaved rounds until the ratio of their p50s is decided
 * (lib/adaptive-rounds.mjs, the perf report's rule): each round times `samples` calls of each, in turn first.
 * The cases' p50 and p99 are the medians of the rounds'; the served case keeps the rounds (`rounds`) for the
 * report's row.
 */
async function judgedHttpCase(calls, options, report) {
  const figure = { key: 'list', compare: 'ratio', target: { op: '<=', limit: LIST_RATIO_TARGET } };
  const perRound = { served: [], raw: [] };
  const state = await adaptiveRounds({
    figures: [figure],
    rule: options.rule,
    round: async (index) => {
      for (const name of interleaved(index, 'served', 'raw'))
        perRound[name].push(await timeCalls(calls[name], options));
      const [served, raw] = [perRound.served.at(-1), perRound.raw.at(-1)];
      report(
        `sqlite http round ${index + 1}: GET p50 ${served.p50.toFixed(2)} ms, raw SQL ${raw.p50.toFixed(2)} ms`,
      );
      return { list: { ours: served.p50, floor: raw.p50 } };
    },
  });
  report(`sqlite http: ${state.rounds} rounds, stopped by ${state.stoppedBy}`);
  const medians = (timings) => ({
    p50: median(timings.map((t) => t.p50)),
    p99: median(timings.map((t) => t.p99)),
  });
  return {
    [HTTP_CASE]: { ...medians(perRound.served), rounds: state.figures.list },
    [HTTP_CASE + RAW_SQL]: medians(perRound.raw),
  };
}

// ---------------------------------------------------------------------------------------------- PostgreSQL

/** Drops the PostgreSQL schema being measured, while there is one (for Ctrl-C). */
let dropOnInterrupt = null;

async function measurePostgres(options, report) {
  const { openStorage, postgresConfigFromUrl } = requireFromStorage('@assistant/storage');
  const pg = requireFromStorage('pg');
  const kept = Boolean(options.postgresSchema);
  const schema = kept ? options.postgresSchema : `bench_${randomBytes(6).toString('hex')}`;
  const config = postgresConfigFromUrl(
    `${options.databaseUrl}${options.databaseUrl.includes('?') ? '&' : '?'}schema=${schema}`,
  );
  const migrateStart = Date.now();
  const storage = await openStorage(config, { migrations: 'run' });
  report(`postgres: schema ${schema} migrated in ${Date.now() - migrateStart} ms`);
  const client = new pg.Client({ connectionString: config.url, options: `-c search_path=${schema}` });
  await client.connect();
  if (!kept) dropOnInterrupt = () => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  try {
    const seedStart = Date.now();
    const reused = kept && (await seededBefore(client, options));
    const userIds = reused ? seededUserIds(options.postgresUsers) : await seedPostgres(client, options);
    report(
      `postgres: ${options.postgresUsers * options.postgresMemoriesPerUser} memories over ${options.postgresUsers} users ${reused ? 'reused' : 'seeded'} in ${Date.now() - seedStart} ms`,
    );
    // Each call asks for another user (a step prime to their number), as the queries of many users would.
    let turn = 0;
    const nextUser = () => userIds[(turn++ * 7919) % userIds.length];
    const results = {};
    for (const [name, ranks] of Object.entries(QUESTIONS)) {
      results[`recall, ${name}`] = await timeCalls(
        () => storage.memories.recall(nextUser(), question(ranks), RECALL_LIMIT),
        options,
      );
    }
    const q = wordOfRank(1);
    results['list ?q=common word'] = await timeCalls(
      () => storage.memories.list(nextUser(), { q, limit: LIST_LIMIT }),
      options,
    );
    const listSql = `SELECT m.id, m.user_id, m.content, m.tags, m.source, m.discussion_id, m.created_at, m.updated_at
      FROM memories m WHERE m.user_id = $1 AND m.search_vector @@ plainto_tsquery('english', $2) ORDER BY m.id DESC LIMIT $3`;
    // Unnamed, as TypeORM sends it: planned with the actual values each time, like the repository's query.
    results['list ?q=common word, raw SQL'] = await timeCalls(
      () => client.query(listSql, [nextUser(), q, LIST_LIMIT + 1]),
      options,
    );
    return results;
  } finally {
    dropOnInterrupt = null;
    if (!kept) await client.query(`DROP SCHEMA "${schema}" CASCADE`);
    await client.end();
    await storage.close();
  }
}

/**
 * Whether a kept schema holds the seed of these sizes already; an empty one is seeded, and one of other sizes
 * is refused (reusing it would time another case under these sizes' name).
 */
async function seededBefore(client, options) {
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM memories)::int AS memories`,
  );
  const { users, memories } = rows[0];
  if (users === 0 && memories === 0) return false;
  const wanted = options.postgresUsers * options.postgresMemoriesPerUser;
  if (users === options.postgresUsers && memories === wanted) return true;
  throw new Error(
    `schema ${options.postgresSchema} holds ${memories} memories of ${users} users, not ${wanted} of ${options.postgresUsers}: drop it or name another`,
  );
}

const seededUserIds = (users) =>
  Array.from({ length: users }, (_, i) => `usr_${String(i + 1).padStart(28, '0')}`);

/** 1,000 users and their memories, in SQL: word ranks drawn per row with random() (Zipf-like as above). */
export async function seedPostgres(client, options) {
  const users = options.postgresUsers;
  await client.query(
    `INSERT INTO users (id, email, display_name, created_at)
     SELECT 'usr_' || lpad(g::text, 28, '0'), 'bench' || g || '@example.com', 'Bench ' || g, now()
     FROM generate_series(1, $1::int) g`,
    [users],
  );
  const vocabulary = Array.from({ length: VOCABULARY_SIZE }, (_, i) => wordOfRank(i + 1));
  const total = users * options.postgresMemoriesPerUser;
  const batch = 100_000;
  for (let start = 0; start < total; start += batch) {
    await client.query(
      `INSERT INTO memories (id, user_id, content, tags, source, discussion_id, created_at, updated_at)
       SELECT 'mem_0' || lpad(g::text, 25, '0'), 'usr_' || lpad((1 + g % $3::int)::text, 28, '0'),
              (SELECT string_agg(($4::text[])[least($5::int, floor(exp(random() * ln($5::int + 1)))::int)], ' ')
                 FROM generate_series(1, $6::int) AS k WHERE g IS NOT NULL),
              '[]', 'user', NULL, now(), now()
       FROM generate_series($1::int, $2::int) g`,
      [start, Math.min(total, start + batch) - 1, users, vocabulary, VOCABULARY_SIZE, WORDS_PER_MEMORY],
    );
  }
  // As autovacuum would leave it: the GIN index's pending list merged, the planner's statistics gathered.
  await client.query('VACUUM ANALYZE memories');
  return seededUserIds(users);
}

// ---------------------------------------------------------------------------------------------- API and CLI

const OPTIONS = {
  dialects: { env: 'BENCH_RECALL_DIALECTS', default: 'sqlite,postgres', help: 'which dialects to run' },
  'sqlite-memories': {
    env: 'BENCH_RECALL_SQLITE_MEMORIES',
    default: '100000',
    help: 'memories of the one SQLite user',
  },
  'postgres-users': { env: 'BENCH_RECALL_POSTGRES_USERS', default: '1000', help: 'PostgreSQL users' },
  'postgres-memories-per-user': {
    env: 'BENCH_RECALL_POSTGRES_PER_USER',
    default: '1000',
    help: 'memories of each PostgreSQL user',
  },
  'database-url': {
    env: 'BENCH_DATABASE_URL',
    default: 'postgres://postgres@127.0.0.1:5432/test',
    help: 'PostgreSQL to create a random schema in (dropped at the end)',
  },
  'postgres-schema': {
    env: 'BENCH_RECALL_POSTGRES_SCHEMA',
    default: '',
    help: 'keep the PostgreSQL seed in this schema and reuse it in later runs (migrated to this code first)',
  },
  samples: {
    env: 'BENCH_RECALL_SAMPLES',
    default: '300',
    help: 'timed calls per case (after 20 warm-up calls)',
  },
  server: {
    env: 'BENCH_SERVER',
    default: DEFAULT_SERVER,
    help: 'built self-hosted server for the HTTP case',
  },
};

/**
 * Seeds and times every case; resolves `{ sqlite?: { [case]: { p50, p99 } }, postgres?: {...} }` in milliseconds.
 * Options (all optional): dialects (['sqlite', 'postgres']), sqliteMemories, postgresUsers,
 * postgresMemoriesPerUser, databaseUrl, postgresSchema (kept and reused; default a throwaway one), samples,
 * skipHttp, server, report (a line printer, default none), rule (lib/adaptive-rounds.mjs: GET /memories?q= and its
 * raw SQL in interleaved rounds until their ratio is decided; without it, one timing of each).
 */
export async function measureRecall(options = {}) {
  const o = {
    dialects: ['sqlite', 'postgres'],
    sqliteMemories: 100_000,
    postgresUsers: 1_000,
    postgresMemoriesPerUser: 1_000,
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
    samples: 300,
    skipHttp: false,
    server: DEFAULT_SERVER,
    ...options,
  };
  const report = options.report ?? (() => undefined);
  const results = {};
  try {
    if (o.dialects.includes('sqlite')) results.sqlite = await measureSqlite(o, report);
    if (o.dialects.includes('postgres')) results.postgres = await measurePostgres(o, report);
  } finally {
    await stopAll();
    removeTempDirs();
  }
  return results;
}

/** PASS/MISS of P7 for one dialect's results (null where the case was not measured). */
export function judgeRecall(results) {
  const recall = Object.entries(results).filter(([name]) => name.startsWith('recall, '));
  const ratio = (path, rawSql) =>
    results[path] && results[rawSql] ? results[path].p50 / results[rawSql].p50 : null;
  return {
    recallP99: recall.length ? recall.every(([, r]) => r.p99 <= RECALL_P99_TARGET_MS) : null,
    listRatio: ratio('list ?q=common word', 'list ?q=common word, raw SQL'),
    httpRatio: ratio(HTTP_CASE, HTTP_CASE + RAW_SQL),
  };
}

async function main() {
  const { values, raw } = parseOptionTable(OPTIONS, process.argv.slice(2), process.env, ['skip-http']);
  if (values.help) {
    console.log(
      ['Usage: node tools/bench/src/recall-bench.mjs [options]', ...optionHelpLines(OPTIONS)].join('\n'),
    );
    return;
  }
  installSignalHandlers('the recall bench', async () => {
    await dropOnInterrupt?.().catch(() => undefined);
    await stopAll();
    removeTempDirs();
  });
  const results = await measureRecall({
    dialects: raw('dialects')
      .split(',')
      .map((d) => d.trim()),
    sqliteMemories: Number(raw('sqlite-memories')),
    postgresUsers: Number(raw('postgres-users')),
    postgresMemoriesPerUser: Number(raw('postgres-memories-per-user')),
    databaseUrl: raw('database-url'),
    postgresSchema: raw('postgres-schema') || undefined,
    samples: Number(raw('samples')),
    server: raw('server'),
    skipHttp: values['skip-http'] ?? false,
    report: (line) => console.log(line),
  });
  for (const [dialect, cases] of Object.entries(results)) {
    console.log(`\n${dialect}`);
    for (const [name, { p50, p99 }] of Object.entries(cases)) {
      const judged = name.startsWith('recall, ')
        ? `  ${verdict(p99 <= RECALL_P99_TARGET_MS)} (p99 ≤ ${RECALL_P99_TARGET_MS} ms)`
        : '';
      console.log(
        `  ${name.padEnd(40)} p50 ${p50.toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms${judged}`,
      );
    }
    const { listRatio, httpRatio } = judgeRecall(cases);
    for (const [label, ratio] of [
      ['list ?q= / its raw SQL (p50)', listRatio],
      ['GET /memories?q= / its raw SQL (p50)', httpRatio],
    ]) {
      if (ratio !== null) {
        console.log(
          `  ${label.padEnd(40)} ${ratio.toFixed(2)}×  ${verdict(ratio <= LIST_RATIO_TARGET)} (≤ ${LIST_RATIO_TARGET}×)`,
        );
      }
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
