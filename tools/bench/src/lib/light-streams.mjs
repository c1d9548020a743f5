// Hundreds of streamed answers read at once by the cheapest client this process can be (the `tail` section).
//
// Why not lib/stream-queries.mjs: at 500 streams the client shares the 2 cores with the model stub and the server
// it measures, so every microsecond it spends per token is noise in the figure. This client uses Node's own HTTP
// parser, never decodes a body as UTF-8, never parses an event's JSON and never makes a BigInt per token: per read it
// takes one clock reading and picks the tokens out of the bytes with one regular expression (a token is the stub's
// process.hrtime.bigint() when it wrote it, plus a space: "1234567890123 "; every path carries it as a JSON string
// after "delta": or "content":). Per token it stores two numbers in preallocated arrays. Integrity is checked
// lightly (every token once, in order, HTTP 200, the stream ended, ours with query.completed); the full checks are
// those of the streams section.
import http from 'node:http';

const TOKEN = /"(?:delta|content)":"(\d+) "/g;

/** Where each kind of path takes a question, and with what body (see lib/stream-queries.mjs for the paths). */
function requestOf(target, text) {
  const base = new URL(target.url);
  if (target.kind === 'direct')
    return {
      path: `${base.pathname}/chat/completions`,
      headers: { authorization: 'Bearer bench' },
      body: { model: 'fixture', messages: [{ role: 'user', content: text }], stream: true },
    };
  if (target.kind === 'relay') return { path: '/v1/query', headers: {}, body: { text } };
  return { path: '/api/v1/queries', headers: { authorization: `Bearer ${target.token}` }, body: { text } };
}

/**
 * `streams` questions to `target` ({ kind, url, token? }), started `rampMs` / `streams` apart, each answered with
 * `tokens` tokens. Resolves { sentAt, delay (Float64Arrays of every token: the stub's send time and receive − send,
 * ns), count, firstSent[], lastSent[] (per stream), problems[] }.
 */
export async function lightStreams(target, { streams, tokens, rampMs }) {
  const { hostname, port } = new URL(target.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const sentAt = new Float64Array(streams * tokens);
  const delay = new Float64Array(streams * tokens);
  const firstSent = new Array(streams).fill(NaN);
  const lastSent = new Array(streams).fill(NaN);
  const problems = [];
  const problem = (text) => problems.length < 100 && problems.push(text);
  let count = 0;

  const one = (index) =>
    new Promise((resolveStream) => {
      const { path, headers, body } = requestOf(target, `Tail question ${index}`);
      const payload = Buffer.from(JSON.stringify(body));
      let received = 0;
      let previous = 0;
      let carry = '';
      let completed = false;
      const request = http.request(
        {
          host: hostname,
          port,
          path,
          method: 'POST',
          agent,
          headers: {
            accept: 'text/event-stream',
            'content-type': 'application/json',
            'content-length': payload.length,
            ...headers,
          },
        },
        (response) => {
          if (response.statusCode !== 200) {
            problem(`${target.kind}: HTTP ${response.statusCode}`);
            response.resume();
            response.on('end', resolveStream);
            return;
          }
          response.on('data', (chunk) => {
            const now = Number(process.hrtime.bigint());
            const text = carry + chunk.toString('latin1');
            const cut = text.lastIndexOf('\n') + 1;
            carry = text.slice(cut);
            TOKEN.lastIndex = 0;
            for (
              let match = TOKEN.exec(text);
              match !== null && match.index < cut;
              match = TOKEN.exec(text)
            ) {
              const sent = Number(match[1]);
              if (sent <= previous) problem(`${target.kind}: a token out of order or repeated`);
              previous = sent;
              if (received === 0) firstSent[index] = sent;
              lastSent[index] = sent;
              received += 1;
              if (count < sentAt.length) {
                sentAt[count] = sent;
                delay[count] = now - sent;
                count += 1;
              }
            }
            if (target.kind === 'ours' && !completed) completed = text.includes('query.completed');
          });
          response.on('end', () => {
            if (received !== tokens) problem(`${target.kind}: ${received} tokens of ${tokens}`);
            if (target.kind === 'ours' && !completed) problem('ours: no query.completed');
            resolveStream();
          });
          response.on('error', (error) => {
            problem(`${target.kind}: ${error.message}`);
            resolveStream();
          });
        },
      );
      request.on('error', (error) => {
        problem(`${target.kind}: ${error.message}`);
        resolveStream();
      });
      request.end(payload);
    });

  const started = [];
  const gap = rampMs / streams;
  const t0 = performance.now();
  for (let i = 0; i < streams; i += 1) {
    const wait = t0 + i * gap - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    started.push(one(i));
  }
  await Promise.all(started);
  agent.destroy();
  return { sentAt, delay, count, firstSent, lastSent, problems: [...new Set(problems)].slice(0, 5) };
}

/**
 * p50 and p99 of the transit of the tokens sent while every stream was open (from the last stream's first token to
 * the first stream's last one), so that the ramp up and down leave the figure alone; { p50, p99, tokens, windowMs }
 * in ns (NaN when there was no such moment: a stream got its first token after another got its last).
 */
export function steadyTransit({ sentAt, delay, count, firstSent, lastSent }) {
  const from = Math.max(...firstSent.filter(Number.isFinite));
  const to = Math.min(...lastSent.filter(Number.isFinite));
  const kept = [];
  for (let i = 0; i < count; i += 1) if (sentAt[i] >= from && sentAt[i] <= to) kept.push(delay[i]);
  const sorted = Float64Array.from(kept).sort();
  const at = (p) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), tokens: sorted.length, windowMs: (to - from) / 1e6 };
}
