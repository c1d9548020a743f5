// Floors of the request path (issue 10, P5/P5b; issue 23): the essential work of GET /api/v1/me and
// GET /api/v1/discussions?limit=N and nothing else.
//   - Fastify 5, no logging;
//   - the bearer token's SHA-256, then ONE prepared read joining the token and its user;
//   - an in-memory fixed-window rate-limit counter per token, with the five X-RateLimit-* headers;
//   - /me: the same JSON as ours; /discussions: one prepared keyset query (user_id, id < cursor, newest first,
//     limit + 1) and the same { data, next_cursor } JSON.
// Where the rows are read from, by the second argument:
//   sqlite-memory  P5's floor on SQLite (issue 23: "a bare Fastify /me doing SHA-256, one prepared SQLite read on an
//                  in-memory database and the rate-limit headers"): at start, the users and tokens tables of our
//                  server's file (their CREATE statements as they are there, so the same columns and indexes, and
//                  every row) are copied into a `:memory:` database, and the file is closed. /me only.
//   sqlite         P5b's floor on SQLite: better-sqlite3 on our server's file (read-only; WAL lets both read it at
//                  once), so that /discussions reads the same pages ours reads.
//   postgres       a pg Pool whose connections each prepare the two statements once (named queries).
//
//   node tools/bench/src/floors/request-floor.mjs <port> sqlite-memory|sqlite <file> <deployment>
//   node tools/bench/src/floors/request-floor.mjs <port> postgres <url?schema=…> <deployment>
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { BENCH_CORE_RATE_LIMIT, DEFAULT_SERVER, sqliteDriver } from '../lib/server.mjs';

const [portArg, dialect, location, deployment] = process.argv.slice(2);
const requireFromServer = createRequire(DEFAULT_SERVER); // the PostgreSQL driver our server uses, same version

const ME_SQL = `SELECT t.id AS token_id, t.kind, t.scopes, t.expires_at, u.id, u.email, u.display_name,
  u.auto_approved_tools, u.created_at FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1`;
const PAGE_SQL = `SELECT id, title, message_count, created_at, updated_at FROM discussions
  WHERE user_id = $1 ORDER BY id DESC LIMIT $2`;
const PAGE_AFTER_SQL = PAGE_SQL.replace('WHERE user_id = $1', 'WHERE user_id = $1 AND id < $3');

/** SQLite text dates ("2026-11-24 12:00:00.000") and PostgreSQL Dates alike, as ISO strings. */
const iso = (value) =>
  (value instanceof Date
    ? value
    : new Date(value.includes('T') ? value : `${value.replace(' ', 'T')}Z`)
  ).toISOString();
const json = (value) => (typeof value === 'string' ? JSON.parse(value) : value);

/** The tables the in-memory floor copies from our server's file: all /me reads. */
const ME_TABLES = ['users', 'tokens'];

/**
 * A `:memory:` database holding the tables `tables` of the SQLite file `file`: each table's and index's CREATE
 * statement as our migrations wrote it, and every row (foreign keys off while copying: tokens may reference one
 * another).
 */
function copyIntoMemory(Database, file, tables) {
  const source = new Database(file, { readonly: true });
  const memory = new Database(':memory:');
  memory.pragma('foreign_keys = OFF');
  const list = tables.map(() => '?').join(', ');
  const schema = source
    .prepare(
      `SELECT sql FROM sqlite_master WHERE tbl_name IN (${list}) AND type IN ('table', 'index') AND sql IS NOT NULL
       ORDER BY type = 'table' DESC`,
    )
    .pluck()
    .all(...tables);
  for (const sql of schema) memory.exec(sql);
  for (const table of tables) {
    const rows = source.prepare(`SELECT * FROM "${table}"`).raw().all();
    if (rows.length === 0) continue;
    const insert = memory.prepare(`INSERT INTO "${table}" VALUES (${rows[0].map(() => '?').join(', ')})`);
    memory.transaction(() => rows.forEach((values) => insert.run(values)))();
  }
  source.close();
  memory.pragma('foreign_keys = ON');
  return memory;
}

function openDatabase() {
  if (dialect === 'sqlite' || dialect === 'sqlite-memory') {
    const Database = sqliteDriver();
    const db =
      dialect === 'sqlite'
        ? new Database(location, { readonly: true })
        : copyIntoMemory(Database, location, ME_TABLES);
    // better-sqlite3 binds $name parameters from an object: $1 → { 1: … }.
    const me = db.prepare(ME_SQL);
    if (dialect === 'sqlite-memory') return { me: async (digest) => me.get({ 1: digest }), page: null };
    const page = db.prepare(PAGE_SQL);
    const pageAfter = db.prepare(PAGE_AFTER_SQL);
    return {
      me: async (digest) => me.get({ 1: digest }),
      page: async (userId, limit, after) =>
        after ? pageAfter.all({ 1: userId, 2: limit, 3: after }) : page.all({ 1: userId, 2: limit }),
    };
  }
  const url = new URL(location);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const { Pool } = requireFromServer('pg');
  const pool = new Pool({ connectionString: url.toString(), options: `-c search_path="${schema}"`, max: 10 });
  return {
    me: async (digest) => (await pool.query({ name: 'me', text: ME_SQL, values: [digest] })).rows[0],
    page: async (userId, limit, after) =>
      (
        await pool.query(
          after
            ? { name: 'page-after', text: PAGE_AFTER_SQL, values: [userId, limit, after] }
            : { name: 'page', text: PAGE_SQL, values: [userId, limit] },
        )
      ).rows,
  };
}

const db = openDatabase();
const RATE_LIMIT = BENCH_CORE_RATE_LIMIT; // the same limit as our server's in the benches
const WINDOW_MS = 60_000;
const counters = new Map();

/** The caller's token and user, or null; counts the request and sets the rate-limit headers. */
async function authenticate(request, reply) {
  const header = request.headers.authorization ?? '';
  const secret = header.startsWith('Bearer ') ? header.slice(7) : '';
  const row = secret ? await db.me(createHash('sha256').update(secret, 'utf8').digest('hex')) : undefined;
  if (!row || (row.expires_at && new Date(iso(row.expires_at)) <= new Date())) return null;
  const now = Date.now();
  let counter = counters.get(row.token_id);
  if (!counter || counter.resetAt <= now)
    counters.set(row.token_id, (counter = { count: 0, resetAt: now + WINDOW_MS }));
  counter.count += 1;
  reply.headers({
    'x-ratelimit-limit': String(RATE_LIMIT),
    'x-ratelimit-remaining': String(Math.max(0, RATE_LIMIT - counter.count)),
    'x-ratelimit-used': String(Math.min(counter.count, RATE_LIMIT)),
    'x-ratelimit-reset': String(Math.ceil(counter.resetAt / 1000)),
    'x-ratelimit-resource': 'core',
  });
  return row;
}

const app = Fastify({ logger: false });
const unauthorized = (reply) =>
  reply.code(401).type('application/problem+json').send({ title: 'Unauthorized', status: 401 });

app.get('/api/v1/me', async (request, reply) => {
  const row = await authenticate(request, reply);
  if (!row) return unauthorized(reply);
  return {
    id: row.id,
    email: row.email,
    display_name: row.display_name,
    created_at: iso(row.created_at),
    deployment,
    auto_approved_tools: json(row.auto_approved_tools),
    token: {
      kind: row.kind,
      scopes: json(row.scopes),
      expires_at: row.expires_at ? iso(row.expires_at) : null,
    },
  };
});

// The in-memory floor copies what /me reads, nothing else: it has no /discussions.
if (db.page)
  app.get('/api/v1/discussions', async (request, reply) => {
    const row = await authenticate(request, reply);
    if (!row) return unauthorized(reply);
    const limit = Number(request.query.limit ?? 20);
    const after = request.query.cursor && Buffer.from(request.query.cursor, 'base64url').toString().slice(3);
    const rows = await db.page(row.id, limit + 1, after);
    const items = rows.slice(0, limit);
    return {
      data: items.map((d) => ({
        id: d.id,
        title: d.title,
        created_at: iso(d.created_at),
        updated_at: iso(d.updated_at),
        message_count: Number(d.message_count),
      })),
      next_cursor: rows.length > limit ? Buffer.from(`v1:${items.at(-1).id}`).toString('base64url') : null,
    };
  });

const stop = () => app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await app.listen({ host: '127.0.0.1', port: Number(portArg) });
process.stdout.write(`floor listening on http://127.0.0.1:${app.server.address().port}\n`);
