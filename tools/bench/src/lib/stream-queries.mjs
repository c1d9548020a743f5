// Streamed queries as the benches send them, checked and timed the same way whatever answers them. Shared by
// stream-bench.mjs and perf-report.mjs (through sections/streams.mjs).
//
// Every path streams the answer of the model stub (lib/stub.mjs), whose tokens are its process.hrtime.bigint()
// when it wrote them plus a space; the client's hrtime on receipt minus that is the token's transit delay (same
// machine, same monotonic clock). The kinds of path:
//   direct  POST <stub>/chat/completions (stream, include_usage), as our model provider calls it;
//   relay   POST <relay>/v1/query {"text"} on the bare relay floor (floors/relay-server.mjs);
//   ours    POST <server>/api/v1/queries {"text"} on our server (SPEC §4 SSE), self-hosted or hosted.
// Integrity, for every query: every token arrives exactly once, in order, alone in its delta, and the stream ends
// properly (direct and relay: [DONE]; ours: query.created first, consecutive sequence_numbers and ids, exactly
// one terminal event, query.completed, whose text is the concatenated deltas).
import http from 'node:http';
import { collectGarbage } from './collect-garbage.mjs';
import { percentile, rssBytes } from './measure.mjs';
import { sleep } from './processes.mjs';
import { sseParser, streamRequest } from './sse.mjs';

export const TERMINAL_EVENTS = new Set(['query.completed', 'query.failed', 'query.incomplete']);
const TOKEN_PATTERN = /^\d+ $/;

/** A target to stream from: { kind: 'direct' | 'relay' | 'ours', url, token? }, with its keep-alive agent. */
export function streamTarget(kind, url, token) {
  return { kind, url, token, agent: new http.Agent({ keepAlive: true, maxSockets: Infinity }) };
}

/** Checks the tokens of one answer: exactly `expected`, each alone in its delta, each once, in order. */
function checkTokens(deltas, expected) {
  const problems = [];
  const sent = [];
  let merged = 0;
  for (const { text } of deltas) {
    if (!TOKEN_PATTERN.test(text)) merged += 1;
    for (const part of text.match(/\d+ /g) ?? []) sent.push(BigInt(part.trim()));
  }
  if (merged > 0) problems.push(`${merged} deltas not exactly one token`);
  const unique = new Set(sent.map(String)).size;
  if (unique !== sent.length) problems.push(`${sent.length - unique} duplicate tokens`);
  if (unique < expected) problems.push(`${expected - unique} tokens missing`);
  if (sent.length > expected) problems.push(`${sent.length - expected} extra tokens`);
  for (let i = 1; i < sent.length; i += 1) {
    if (sent[i] <= sent[i - 1]) {
      problems.push('tokens out of order');
      break;
    }
  }
  return problems;
}

function measure(result, deltas, expected, problems) {
  const tokenDelaysNs = [];
  for (const { text, receivedAt } of deltas) {
    if (TOKEN_PATTERN.test(text)) tokenDelaysNs.push(Number(receivedAt - BigInt(text.trim())));
  }
  return {
    ttftNs: deltas.length > 0 ? Number(deltas[0].receivedAt - result.startedAt) : null,
    totalNs: result.endedAt ? Number(result.endedAt - result.startedAt) : null,
    tokenDelaysNs,
    problems: [...problems, ...checkTokens(deltas, expected)],
  };
}

export function failed(problem) {
  return { ttftNs: null, totalNs: null, tokenDelaysNs: [], problems: [problem] };
}

/** A stream that carries its deltas in `delta(data)` and ends with `data: [DONE]` (the stub, the relay). */
async function doneTerminatedQuery(target, request, delta, tokens) {
  const deltas = [];
  const problems = [];
  let sawDone = false;
  let afterDone = 0;
  const result = await streamRequest({
    ...request,
    agent: target.agent,
    onEvent: (event, receivedAt) => {
      if (sawDone) {
        afterDone += 1;
        return true;
      }
      if (event.data === '[DONE]') {
        sawDone = true;
        return true;
      }
      const content = delta(JSON.parse(event.data));
      if (content) deltas.push({ text: content, receivedAt });
      return false;
    },
  });
  if (result.status !== 200) return failed(`${target.kind}: HTTP ${result.status} ${result.body}`);
  if (!sawDone) problems.push('no [DONE]');
  if (afterDone > 0) problems.push('events after [DONE]');
  return measure(result, deltas, tokens, problems);
}

function directQuery(target, text, tokens) {
  const request = {
    url: `${target.url}/chat/completions`,
    headers: { authorization: 'Bearer bench' },
    body: {
      model: 'fixture',
      messages: [{ role: 'user', content: text }],
      stream: true,
      stream_options: { include_usage: true },
    },
  };
  return doneTerminatedQuery(target, request, (chunk) => chunk.choices?.[0]?.delta?.content, tokens);
}

/** The relay floors: the bare relay (no token) and the essential-work floor (a bearer token). */
function relayQuery(target, text, tokens) {
  const headers = target.token ? { authorization: `Bearer ${target.token}` } : {};
  const request = { url: `${target.url}/v1/query`, headers, body: { text } };
  return doneTerminatedQuery(target, request, (data) => data.delta, tokens);
}

async function ourQuery(target, text, tokens) {
  const deltas = [];
  const problems = [];
  let expectedSequence = 1;
  let terminal = null;
  let events = 0;
  const result = await streamRequest({
    url: `${target.url}/api/v1/queries`,
    agent: target.agent,
    headers: { authorization: `Bearer ${target.token}` },
    body: { text },
    onEvent: (event, receivedAt) => {
      events += 1;
      if (terminal) {
        problems.push(`event after the terminal event: ${event.event}`);
        return true;
      }
      const data = JSON.parse(event.data);
      if (events === 1 && data.type !== 'query.created') problems.push(`first event is ${data.type}`);
      if (data.type !== event.event) problems.push(`event: ${event.event} but data.type ${data.type}`);
      if (data.sequence_number !== expectedSequence || event.id !== String(expectedSequence))
        problems.push(`sequence ${data.sequence_number} (id ${event.id}), expected ${expectedSequence}`);
      expectedSequence += 1;
      if (data.type === 'output_text.delta') deltas.push({ text: data.delta, receivedAt });
      if (TERMINAL_EVENTS.has(data.type)) {
        terminal = data;
        return true;
      }
      return false;
    },
  });
  if (result.status !== 200) return failed(`ours: HTTP ${result.status} ${result.body}`);
  if (!terminal) problems.push('no terminal event');
  else if (terminal.type !== 'query.completed')
    problems.push(`terminal ${terminal.type}: ${JSON.stringify(terminal.error ?? terminal.reason)}`);
  else if (terminal.text !== deltas.map((d) => d.text).join(''))
    problems.push('query.completed text differs from the deltas');
  return measure(result, deltas, tokens, problems);
}

const QUERY_OF_KIND = { direct: directQuery, relay: relayQuery, ours: ourQuery };

/** One query on `target`, expecting `tokens` tokens; never rejects (a failure is a result with a problem). */
export function streamQuery(target, text, tokens) {
  return QUERY_OF_KIND[target.kind](target, text, tokens).catch((error) =>
    failed(`${target.kind}: ${error.message}`),
  );
}

let nextQuery = 1;

/** `concurrency` queries at once on `target`; at concurrency 1, `single` queries one after another. */
export async function batch(target, concurrency, { tokens, single }) {
  const text = () => `Benchmark query ${nextQuery++}`;
  if (concurrency === 1) {
    const results = [];
    for (let i = 0; i < single; i += 1) results.push(await streamQuery(target, text(), tokens));
    return results;
  }
  return Promise.all(Array.from({ length: concurrency }, () => streamQuery(target, text(), tokens)));
}

/** p50/p99 of TTFT, per-token delay and total time over `results`, and what went wrong (at most 5 problems). */
export function summarize(results) {
  const ttft = results.map((r) => r.ttftNs).filter((v) => v !== null);
  const total = results.map((r) => r.totalNs).filter((v) => v !== null);
  const delays = results.flatMap((r) => r.tokenDelaysNs);
  const bad = results.filter((r) => r.problems.length > 0);
  return {
    queries: results.length,
    ok: results.length - bad.length,
    problems: [...new Set(bad.flatMap((r) => r.problems))].slice(0, 5),
    ttftP50: percentile(ttft, 50),
    ttftP99: percentile(ttft, 99),
    delayP50: percentile(delays, 50),
    delayP99: percentile(delays, 99),
    totalP50: percentile(total, 50),
    tokens: delays.length,
  };
}

// ---------------------------------------------------------------------------------------- idle streams

/**
 * Server memory per idle open event stream: with the stub hanging (the model request accepted, no token ever
 * sent), one query is started on our server `target` (`server`: startOurServer's { handle, pid }, spawned with
 * INSPECT_ON_SIGNAL), its VmRSS read after a full garbage collection (median of 5 readings), `count`
 * GET /api/v1/queries/{id}/events streams opened on it (each waits for its replayed query.created), and VmRSS
 * read again after 2 s and another collection. The stub answers with `restoreStep` again afterwards.
 */
export async function idleStreams(target, server, stub, count, restoreStep) {
  await stub.setDefault({ hang: true });
  const requestsBefore = await stub.requestCount();
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open = [];
  try {
    // The query whose event stream the idle clients attach to: its model request hangs, so it keeps running.
    let queryId = null;
    let resolveCreated;
    const created = new Promise((r) => (resolveCreated = r));
    const original = streamRequest({
      url: `${target.url}/api/v1/queries`,
      agent,
      headers: { authorization: `Bearer ${target.token}` },
      body: { text: 'Benchmark idle query' },
      onEvent: (event) => {
        const data = JSON.parse(event.data);
        if (data.type === 'query.created') {
          queryId = data.query_id;
          resolveCreated();
        }
        return TERMINAL_EVENTS.has(data.type);
      },
    });
    const endedEarly = original.then(
      (r) => {
        if (queryId === null)
          throw new Error(
            `idle phase: POST /api/v1/queries ended before query.created (HTTP ${r.status} ${r.body ?? ''})`,
          );
      },
      (error) => {
        if (queryId === null) throw error;
      },
    );
    endedEarly.catch(() => undefined);
    await Promise.race([created, endedEarly]);
    await stub.waitForRequests(requestsBefore + 1, 10_000);
    await sleep(1000);
    await collectGarbage(server.handle);
    const before = await sampleRss(server.pid);

    let attached = 0;
    const failures = [];
    const { hostname, port } = new URL(target.url);
    const openOne = () =>
      new Promise((resolveOpen) => {
        const request = http.request(
          {
            host: hostname,
            port,
            path: `/api/v1/queries/${queryId}/events`,
            agent,
            headers: { accept: 'text/event-stream', authorization: `Bearer ${target.token}` },
          },
          (response) => {
            if (response.statusCode !== 200) {
              failures.push(`HTTP ${response.statusCode}`);
              response.resume();
              resolveOpen();
              return;
            }
            response.setEncoding('utf8');
            const feed = sseParser(() => {
              attached += 1;
              resolveOpen();
            });
            response.on('data', (chunk) => feed(chunk, 0n));
            response.on('error', () => undefined);
            // Counted anyway if no event comes within 5 s (the stream is open; the replay may be empty).
            setTimeout(resolveOpen, 5000).unref();
          },
        );
        request.on('error', (error) => {
          failures.push(error.message);
          resolveOpen();
        });
        request.end();
        open.push(request);
      });
    for (let done = 0; done < count; done += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - done) }, openOne));
    }
    await sleep(2000);
    await collectGarbage(server.handle);
    const after = await sampleRss(server.pid);
    return {
      count,
      attached,
      failures,
      before,
      after,
      perStream: before !== null && after !== null ? (after - before) / count : null,
    };
  } finally {
    for (const request of open) request.destroy();
    agent.destroy();
    await stub.setDefault(restoreStep);
  }
}

/** Median of five RSS readings 200 ms apart. */
async function sampleRss(pid) {
  const samples = [];
  for (let i = 0; i < 5; i += 1) {
    samples.push(rssBytes(pid));
    await sleep(200);
  }
  if (samples.some((s) => s === null)) return null;
  return percentile(samples, 50);
}
