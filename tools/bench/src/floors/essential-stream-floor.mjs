// Floor of the query stream doing the product's essential work (decision 0014, proposed): what a bare server must
// do for a question that opens a discussion, and nothing else — so that P1, P1b and P3 can be read against the
// work itself as well as against the bare relay (floors/relay-server.mjs), which authenticates nobody and stores
// nothing. Per query:
//   - Fastify 5, no logging; the bearer token's SHA-256, then one prepared read joining the token and its user in
//     our server's SQLite file (read-only; WAL lets both read it), 401 without a match; an in-memory rate-limit
//     counter per token;
//   - the question in one commit: a discussion, its user message and a query record (its own SQLite file, WAL,
//     synchronous=NORMAL, as our server keeps its file); the discussion's last messages read back for the model;
//   - the model's stream relayed as the relay does (undici + eventsource-parser, one SSE event per delta);
//   - the answer in one commit: the assistant message, the discussion's count, the query's end and its text.
// It keeps no event log, runs no agent loop, offers no resume and survives no crash: those are ours to justify.
//
//   node tools/bench/src/floors/essential-stream-floor.mjs <port> <model base URL with /v1> <our SQLite file> <dir>
//   POST /v1/query {"text"}, Authorization: Bearer <token> → text/event-stream: `data: {"delta":"…"}` per token,
//   then `data: [DONE]` (the relay's format).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import Fastify from 'fastify';
import { request } from 'undici';
import { sqliteDriver } from '../lib/server.mjs';

const [portArg, modelUrl, ourFile, dir] = process.argv.slice(2);
const Database = sqliteDriver();

const accounts = new Database(ourFile, { readonly: true });
// better-sqlite3 binds $name parameters from an object: $1 → { 1: … }.
const tokenOf = accounts.prepare(`SELECT t.id AS token_id, t.expires_at, u.id AS user_id
  FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1`);

const db = new Database(join(dir, 'essential-floor.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS discussions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, title TEXT NOT NULL,
    message_count INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, discussion_id TEXT NOT NULL, role TEXT NOT NULL,
    content TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS messages_discussion ON messages (discussion_id, id);
  CREATE TABLE IF NOT EXISTS queries (id TEXT PRIMARY KEY, discussion_id TEXT NOT NULL, status TEXT NOT NULL,
    text TEXT, created_at TEXT NOT NULL, ended_at TEXT)`);
const insertDiscussion = db.prepare(`INSERT INTO discussions VALUES (?, ?, ?, 1, ?, ?)`);
const insertMessage = db.prepare(`INSERT INTO messages VALUES (?, ?, ?, ?, ?)`);
const insertQuery = db.prepare(`INSERT INTO queries VALUES (?, ?, 'running', NULL, ?, NULL)`);
const lastMessages = db.prepare(
  `SELECT role, content FROM messages WHERE discussion_id = ? ORDER BY id DESC LIMIT 20`,
);
const countMessage = db.prepare(
  `UPDATE discussions SET message_count = message_count + 1, updated_at = ? WHERE id = ?`,
);
const endQuery = db.prepare(`UPDATE queries SET status = 'completed', text = ?, ended_at = ? WHERE id = ?`);

/** Ids that sort by creation, as ours do. */
let sequence = 0;
const newId = (prefix) => `${prefix}_${Date.now().toString(36)}${(sequence++).toString(36).padStart(6, '0')}`;

const askQuestion = db.transaction((userId, text, now) => {
  const discussionId = newId('dsc');
  const queryId = newId('qry');
  insertDiscussion.run(discussionId, userId, text.slice(0, 80), now, now);
  insertMessage.run(newId('msg'), discussionId, 'user', text, now);
  insertQuery.run(queryId, discussionId, now);
  return { discussionId, queryId };
});
const storeAnswer = db.transaction((discussionId, queryId, text, now) => {
  insertMessage.run(newId('msg'), discussionId, 'assistant', text, now);
  countMessage.run(now, discussionId);
  endQuery.run(text, now, queryId);
});

const WINDOW_MS = 60_000;
const counters = new Map();

/** The caller's user id, or null; counts the request against its token. */
function authenticate(header) {
  const secret = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const row = secret
    ? tokenOf.get({ 1: createHash('sha256').update(secret, 'utf8').digest('hex') })
    : undefined;
  // SQLite keeps times as UTC text, "2026-11-24 12:00:00.000".
  if (!row || (row.expires_at && new Date(`${row.expires_at.replace(' ', 'T')}Z`) <= new Date())) return null;
  const now = Date.now();
  let counter = counters.get(row.token_id);
  if (!counter || counter.resetAt <= now)
    counters.set(row.token_id, (counter = { count: 0, resetAt: now + WINDOW_MS }));
  counter.count += 1;
  return row.user_id;
}

const app = Fastify({ logger: false });

app.post('/v1/query', async (req, reply) => {
  const userId = authenticate(req.headers.authorization);
  if (!userId) return reply.code(401).send({ title: 'Unauthorized', status: 401 });
  const { discussionId, queryId } = askQuestion(userId, req.body.text, new Date().toISOString());
  const history = lastMessages.all(discussionId).reverse();
  const upstream = await request(`${modelUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer floor' },
    body: JSON.stringify({ model: 'fixture', messages: history, stream: true }),
  });
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let answer = '';
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data === '[DONE]') return;
      const content = JSON.parse(data).choices[0]?.delta?.content;
      if (!content) return;
      answer += content;
      reply.raw.write(`data: ${JSON.stringify({ delta: content })}\n\n`);
    },
  });
  const utf8 = new StringDecoder('utf8');
  upstream.body.on('data', (chunk) => parser.feed(utf8.write(chunk)));
  await new Promise((resolve, reject) => upstream.body.once('end', resolve).once('error', reject));
  storeAnswer(discussionId, queryId, answer, new Date().toISOString());
  reply.raw.end('data: [DONE]\n\n');
});

const stop = () => app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await app.listen({ host: '127.0.0.1', port: Number(portArg) });
process.stdout.write(`essential floor listening on http://127.0.0.1:${app.server.address().port}\n`);
