#!/usr/bin/env node
// Streaming benchmark: what our query stream adds on top of the model's own stream, measured side by side in one run.
// On demand only (it is not a test): `node tools/bench/src/stream-bench.mjs --help`.
//
// The "model" is the scripted OpenAI-compatible fixture of @assistant/test-services (no real model runs here),
// answering every chat-completions request with N content deltas on an absolute schedule (token i due at
// start + i × interval). Each delta's content is the fixture's process.hrtime.bigint() at the moment it wrote it,
// plus a space; the fixture runs in this process and our server on the same machine, so receive hrtime minus that
// value is the token's transit delay, with no clock skew.
//
// What it measures, interleaved in the same run (each round runs every concurrency on both paths, alternating
// which path goes first), at 1 and at 50 concurrent queries (--concurrency; at 1, --single queries one after
// another per round and path):
//   direct  POST <fixture>/v1/chat/completions (stream, include_usage), as our server's model provider calls it;
//   ours    POST /api/v1/queries {"text"} on our self-hosted server (SPEC §4 SSE), whose model is that fixture;
// and per path and concurrency:
//   - time to first token (TTFT): request written → first token parsed (direct: first non-empty delta.content;
//     ours: first output_text.delta);
//   - per-token transit delay: receive hrtime − the send hrtime inside the token (all events parsed from one
//     socket read share that read's receive time); "added" = ours − direct at the same percentile;
//   - total time: request written → end of stream ([DONE] / the terminal event);
//   - integrity: every token arrives exactly once, in order, none merged (a token is one delta that is exactly
//     "<digits> "), the stream ends properly (direct: [DONE]; ours: query.created first, consecutive
//     sequence_numbers and ids, one terminal event that is query.completed, whose text is the concatenated deltas).
// Then the server's memory per idle open stream: with the fixture hanging (model request accepted, no tokens),
// one query is started and --idle-streams GET /api/v1/queries/{id}/events streams are opened on it; the server's
// RSS (VmRSS of /proc/<pid>/status) is read before and after, and the difference per stream is reported.
//
// Targets (informational: the exit code is 0 whatever the figures, unless the bench itself fails):
//   TTFT at 1 query ≤ 1.02 × direct and ≤ 1 ms added (medians); TTFT p99 at 50 ≤ 1.10 × direct p99;
//   per-token added delay p50 ≤ 50 µs and p99 ≤ 300 µs; every token arrives; ≤ 16 KB per idle stream.
//
// Run (the server and the fixture must be built: `NX_DAEMON=false npx nx run-many -t build`):
//   node tools/bench/src/stream-bench.mjs
//   node tools/bench/src/stream-bench.mjs --tokens 200 --interval 5 --rounds 5 --concurrency 1,50 --idle-streams 1000
// Our server gets a fresh temporary data directory (SQLite), a free port, ASSISTANT_MODEL=openai-compatible:fixture,
// ASSISTANT_MODEL_BASE_URL=<fixture url> and rate limits high enough not to interfere; it is stopped and the
// directory removed at the end.
//
// Helpers shared with http-bench.mjs (child processes, clean-up, /proc figures, statistics, formatting,
// options) live in ./lib/.
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { formatRatio, percent, verdict } from './lib/format.mjs';
import {
  cpuSince,
  cpuSnapshot,
  interleaved,
  isNoisy,
  NOISY_OTHER_CPU,
  percentile,
  rssBytes,
} from './lib/measure.mjs';
import { optionHelpLines, parseOptionTable } from './lib/options.mjs';
import {
  freePort,
  installSignalHandlers,
  makeTempDir,
  removeTempDirs,
  sleep,
  spawnNode,
  stopAll,
  waitForOutput,
} from './lib/processes.mjs';
import { DEFAULT_SERVER, ourServerEnv, readToken, REPO_ROOT } from './lib/server.mjs';

const FIXTURE_DIST = join(REPO_ROOT, 'tools/test-services/dist/index.js');

const QUERY_TIMEOUT_MS = 120_000;
const TERMINAL_EVENTS = new Set(['query.completed', 'query.failed', 'query.incomplete']);
const TOKEN_PATTERN = /^\d+ $/;

const TARGETS = {
  ttftRatioAt1: 1.02,
  ttftAddedMsAt1: 1,
  ttftP99RatioAtMax: 1.1,
  addedDelayP50Us: 50,
  addedDelayP99Us: 300,
  idleStreamBytes: 16 * 1024,
};

// ------------------------------------------------------------------------------------------------ options

const OPTIONS = {
  tokens: { env: 'BENCH_TOKENS', default: '100', help: 'tokens per answer' },
  interval: { env: 'BENCH_INTERVAL', default: '5', help: 'milliseconds between tokens (absolute schedule)' },
  rounds: {
    env: 'BENCH_ROUNDS',
    default: '5',
    help: 'interleaved rounds (each: every concurrency, both paths)',
  },
  concurrency: { env: 'BENCH_CONCURRENCY', default: '1,50', help: 'comma-separated concurrent query counts' },
  single: {
    env: 'BENCH_SINGLE',
    default: '10',
    help: 'queries per round and path at concurrency 1, one after another',
  },
  warmup: { env: 'BENCH_WARMUP', default: '1', help: 'unmeasured warm-up rounds' },
  'idle-streams': {
    env: 'BENCH_IDLE_STREAMS',
    default: '1000',
    help: 'idle GET …/events streams for the memory figure (0: skip)',
  },
  server: { env: 'BENCH_SERVER', default: DEFAULT_SERVER, help: 'entry point of our server' },
};

function helpText() {
  const lines = optionHelpLines(OPTIONS);
  return [
    'Usage: node tools/bench/src/stream-bench.mjs [options]',
    '',
    'Streams answers of a scripted OpenAI-compatible fixture (timestamped tokens) directly and through our',
    'self-hosted server (POST /api/v1/queries), interleaved, and prints time to first token, per-token transit',
    'delay, total time and token integrity per path and concurrency, the ours/direct ratios against the targets,',
    "and the server's memory per idle open event stream. Build first: NX_DAEMON=false npx nx run-many -t build",
    '',
    'Options:',
    ...lines,
    '  -h, --help       this text',
    '',
    'Example: node tools/bench/src/stream-bench.mjs --tokens 200 --interval 5 --rounds 3 --idle-streams 500',
  ].join('\n');
}

function number(name, raw, { min = 0, integer = true } = {}) {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value)))
    throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min} (got "${raw}")`);
  return value;
}

function parseOptions(argv, env) {
  const { values, raw } = parseOptionTable(OPTIONS, argv, env);
  const concurrency = String(raw('concurrency'))
    .split(',')
    .map((part) => number('concurrency', part.trim(), { min: 1 }));
  return {
    help: Boolean(values.help),
    tokens: number('tokens', raw('tokens'), { min: 1 }),
    intervalMs: number('interval', raw('interval'), { integer: false }),
    rounds: number('rounds', raw('rounds'), { min: 1 }),
    concurrency,
    single: number('single', raw('single'), { min: 1 }),
    warmup: number('warmup', raw('warmup')),
    idleStreams: number('idle-streams', raw('idle-streams')),
    server: resolve(raw('server')),
  };
}

// ------------------------------------------------------------------------------- resources and clean-up

let serverHandle = null;
let fixture = null;

/** Stops our server, closes the fixture and removes the data directory. */
async function cleanup() {
  await stopAll();
  if (fixture) await fixture.close().catch(() => undefined);
  removeTempDirs();
  serverHandle = null;
  fixture = null;
}

// ---------------------------------------------------------------------------------------- our server

/** Starts our server and resolves once it prints "Assistant is listening on <url>". */
async function startServer(options, fixtureUrl) {
  const dataDir = makeTempDir('assistant-stream-bench-');
  const port = await freePort();
  const env = ourServerEnv(dataDir, port, {
    ASSISTANT_MODEL: 'openai-compatible:fixture',
    ASSISTANT_MODEL_BASE_URL: fixtureUrl,
    ASSISTANT_RATE_LIMIT_QUERIES: '100000000',
    ASSISTANT_MAX_CONCURRENT_QUERIES: '1000',
  });
  serverHandle = spawnNode('our server', options.server, [], env, { maxOutput: 500 });
  const [, address] = await waitForOutput(
    serverHandle,
    /Assistant is listening on (http:\/\/\S+)/,
    'its address',
  );
  const baseUrl = address.replace(/\/+$/, '');
  return { baseUrl, token: readToken(dataDir), pid: serverHandle.child.pid };
}

// ------------------------------------------------------------------------------------------------ SSE

/**
 * Incremental SSE parser (text/event-stream): events end at a blank line; `data:` lines are joined with "\n";
 * comments (": ping") are skipped. `onEvent(event, receivedAt)` gets { event, data, id } with the hrtime of the
 * socket read that completed it.
 */
function sseParser(onEvent) {
  let buffer = '';
  let event = { event: 'message', data: [], id: undefined };
  return (text, receivedAt) => {
    buffer += text;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      let line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (event.data.length > 0) onEvent({ ...event, data: event.data.join('\n') }, receivedAt);
        event = { event: 'message', data: [], id: undefined };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') event.data.push(value);
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  };
}

/**
 * Sends one streamed POST and feeds the response to `onEvent`. `onEvent` returns true once the stream is
 * logically complete. Resolves { status, startedAt, endedAt, body? (on a non-200 answer) }.
 */
function streamRequest({ url, agent, headers, body, onEvent, signalStarted }) {
  return new Promise((resolveRequest, reject) => {
    const target = new URL(url);
    const payload = Buffer.from(JSON.stringify(body));
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: body === undefined ? 'GET' : 'POST',
        agent,
        headers: {
          accept: 'text/event-stream',
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': payload.length }),
          ...headers,
        },
      },
      (response) => {
        response.setEncoding('utf8');
        if (response.statusCode !== 200) {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolveRequest({ status: response.statusCode, startedAt, body: text }));
          return;
        }
        let done = false;
        const feed = sseParser((event, receivedAt) => {
          if (!done && onEvent(event, receivedAt)) done = true;
        });
        response.on('data', (chunk) => feed(chunk, process.hrtime.bigint()));
        response.on('end', () =>
          resolveRequest({ status: 200, startedAt, endedAt: process.hrtime.bigint(), complete: done }),
        );
        response.on('error', reject);
      },
    );
    request.setTimeout(QUERY_TIMEOUT_MS, () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    const startedAt = process.hrtime.bigint();
    signalStarted?.(startedAt);
    request.end(body === undefined ? undefined : payload);
  });
}

// ------------------------------------------------------------------------------------------ one query

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
  const allProblems = [...problems, ...checkTokens(deltas, expected)];
  return {
    ttftNs: deltas.length > 0 ? Number(deltas[0].receivedAt - result.startedAt) : null,
    totalNs: result.endedAt ? Number(result.endedAt - result.startedAt) : null,
    tokenDelaysNs,
    problems: allProblems,
  };
}

async function directQuery(ctx, i) {
  const deltas = [];
  const problems = [];
  let sawDone = false;
  let afterDone = 0;
  const result = await streamRequest({
    url: `${ctx.fixtureUrl}/chat/completions`,
    agent: ctx.directAgent,
    headers: { authorization: 'Bearer bench' },
    body: {
      model: 'fixture',
      messages: [{ role: 'user', content: `Benchmark query ${i}` }],
      stream: true,
      stream_options: { include_usage: true },
    },
    onEvent: (event, receivedAt) => {
      if (sawDone) {
        afterDone += 1;
        return true;
      }
      if (event.data === '[DONE]') {
        sawDone = true;
        return true;
      }
      const chunk = JSON.parse(event.data);
      const content = chunk.choices?.[0]?.delta?.content;
      if (content) deltas.push({ text: content, receivedAt });
      return false;
    },
  });
  if (result.status !== 200) return failed(`direct: HTTP ${result.status} ${result.body}`);
  if (!sawDone) problems.push('no [DONE]');
  if (afterDone > 0) problems.push('events after [DONE]');
  return measure(result, deltas, ctx.options.tokens, problems);
}

async function ourQuery(ctx, i) {
  const deltas = [];
  const problems = [];
  let expectedSequence = 1;
  let terminal = null;
  let events = 0;
  const result = await streamRequest({
    url: `${ctx.server.baseUrl}/api/v1/queries`,
    agent: ctx.ourAgent,
    headers: { authorization: `Bearer ${ctx.server.token}` },
    body: { text: `Benchmark query ${i}` },
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
  return measure(result, deltas, ctx.options.tokens, problems);
}

function failed(problem) {
  return { ttftNs: null, totalNs: null, tokenDelaysNs: [], problems: [problem] };
}

/** `concurrency` queries at once; at concurrency 1, `--single` queries one after another. */
async function batch(ctx, path, concurrency) {
  const run = path === 'direct' ? directQuery : ourQuery;
  if (concurrency === 1) {
    const results = [];
    for (let i = 0; i < ctx.options.single; i += 1) {
      results.push(await run(ctx, ctx.nextQuery++).catch((error) => failed(`${path}: ${error.message}`)));
    }
    return results;
  }
  const first = ctx.nextQuery;
  ctx.nextQuery += concurrency;
  return Promise.all(
    Array.from({ length: concurrency }, (_, i) =>
      run(ctx, first + i).catch((error) => failed(`${path}: ${error.message}`)),
    ),
  );
}

// ---------------------------------------------------------------------------------------- idle streams

async function idleStreams(ctx, count) {
  const { server } = ctx;
  fixture.setDefault({ hang: true });
  const requestsBefore = fixture.requests.length;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open = [];
  try {
    // The query whose event stream the idle clients attach to: its model request hangs, so it keeps running.
    let queryId = null;
    let resolveCreated;
    const created = new Promise((r) => (resolveCreated = r));
    const original = streamRequest({
      url: `${server.baseUrl}/api/v1/queries`,
      agent,
      headers: { authorization: `Bearer ${server.token}` },
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
    await fixture.waitForRequests(requestsBefore + 1, 10_000);
    await sleep(1000);
    const before = await sampleRss(server.pid);

    let attached = 0;
    const failures = [];
    const openOne = () =>
      new Promise((resolveOpen) => {
        const request = http.request(
          {
            host: new URL(server.baseUrl).hostname,
            port: new URL(server.baseUrl).port,
            path: `/api/v1/queries/${queryId}/events`,
            agent,
            headers: { accept: 'text/event-stream', authorization: `Bearer ${server.token}` },
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
    fixture.setDefault({ tokens: ctx.options.tokens, intervalMs: ctx.options.intervalMs });
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

// ------------------------------------------------------------------------------------------ reporting

function summarize(results) {
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

const ms = (ns) => (ns === null ? '-' : (ns / 1e6).toFixed(3));
const us = (ns) => (ns === null ? '-' : (ns / 1e3).toFixed(1));
const ratio = (a, b) => (a === null || b === null || b === 0 ? null : a / b);
const fmtRatio = (r) => formatRatio(r, 3, '-');

function printTable(summaries, options) {
  console.log(
    `\n== Streams (${options.tokens} tokens every ${options.intervalMs} ms, ${options.rounds} rounds; times in ms, delays in µs)`,
  );
  const header = [
    'path',
    'conc',
    'queries ok',
    'TTFT p50',
    'TTFT p99',
    'delay p50',
    'delay p99',
    'total p50',
    'tokens',
  ];
  const rows = [];
  for (const c of options.concurrency) {
    for (const path of ['direct', 'ours']) {
      const s = summaries[path][c];
      rows.push([
        path,
        String(c),
        `${s.ok}/${s.queries}`,
        ms(s.ttftP50),
        ms(s.ttftP99),
        us(s.delayP50),
        us(s.delayP99),
        ms(s.totalP50),
        String(s.tokens),
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((cell, i) => cell.padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  for (const path of ['direct', 'ours']) {
    for (const c of options.concurrency) {
      for (const problem of summaries[path][c].problems) console.log(`  ${path} @${c}: ${problem}`);
    }
  }
}

function printTargets(summaries, idle, options) {
  console.log('\n== Targets (ours against direct, same run; informational)');
  const one = options.concurrency.includes(1) ? 1 : null;
  const max = Math.max(...options.concurrency);
  const row = (label, value, target, ok) =>
    console.log(`  ${verdict(ok)}  ${label.padEnd(44)} ${value.padStart(14)}   target ${target}`);
  if (one !== null) {
    const d = summaries.direct[1];
    const o = summaries.ours[1];
    const r = ratio(o.ttftP50, d.ttftP50);
    row(
      'TTFT p50 at 1, ours/direct',
      fmtRatio(r),
      `≤ ${TARGETS.ttftRatioAt1}×`,
      r === null ? null : r <= TARGETS.ttftRatioAt1,
    );
    const added = o.ttftP50 === null || d.ttftP50 === null ? null : o.ttftP50 - d.ttftP50;
    row(
      'TTFT p50 at 1, added',
      added === null ? '-' : `${ms(added)} ms`,
      `≤ ${TARGETS.ttftAddedMsAt1} ms`,
      added === null ? null : added <= TARGETS.ttftAddedMsAt1 * 1e6,
    );
  }
  if (max !== 1) {
    const r = ratio(summaries.ours[max].ttftP99, summaries.direct[max].ttftP99);
    row(
      `TTFT p99 at ${max}, ours/direct`,
      fmtRatio(r),
      `≤ ${TARGETS.ttftP99RatioAtMax}×`,
      r === null ? null : r <= TARGETS.ttftP99RatioAtMax,
    );
  }
  for (const c of options.concurrency) {
    const d = summaries.direct[c];
    const o = summaries.ours[c];
    for (const [p, key, target] of [
      [50, 'delayP50', TARGETS.addedDelayP50Us],
      [99, 'delayP99', TARGETS.addedDelayP99Us],
    ]) {
      const added = o[key] === null || d[key] === null ? null : o[key] - d[key];
      row(
        `per-token added delay p${p} at ${c}`,
        added === null ? '-' : `${us(added)} µs`,
        `≤ ${target} µs`,
        added === null ? null : added <= target * 1e3,
      );
    }
  }
  for (const c of options.concurrency) {
    for (const path of ['direct', 'ours']) {
      const s = summaries[path][c];
      row(
        `every token, once, in order: ${path} at ${c}`,
        `${s.ok}/${s.queries} ok`,
        'all',
        s.ok === s.queries,
      );
    }
  }
  if (idle) {
    const value = idle.perStream === null ? '-' : `${(idle.perStream / 1024).toFixed(1)} KB`;
    row(
      `server memory per idle stream (${idle.count})`,
      value,
      `≤ ${TARGETS.idleStreamBytes / 1024} KB`,
      idle.perStream === null || idle.failures.length > 0 ? null : idle.perStream <= TARGETS.idleStreamBytes,
    );
  }
}

// ------------------------------------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), process.env);
  if (options.help) {
    console.log(helpText());
    return;
  }
  for (const [what, file] of [
    ['the fixture (@assistant/test-services)', FIXTURE_DIST],
    ['our server', options.server],
  ]) {
    if (!existsSync(file))
      throw new Error(`${what} is not built (${file}): run NX_DAEMON=false npx nx run-many -t build`);
  }
  installSignalHandlers('the server', cleanup);
  const { startOpenAiFixture } = createRequire(import.meta.url)(FIXTURE_DIST);
  fixture = await startOpenAiFixture({
    defaultStep: { tokens: options.tokens, intervalMs: options.intervalMs },
  });
  const server = await startServer(options, fixture.url);
  console.log(
    `fixture ${fixture.url}; our server ${server.baseUrl} (pid ${server.pid}); ${os.cpus().length} cores`,
  );

  const maxConcurrency = Math.max(...options.concurrency);
  const ctx = {
    options,
    server,
    fixtureUrl: fixture.url,
    directAgent: new http.Agent({ keepAlive: true, maxSockets: Infinity }),
    ourAgent: new http.Agent({ keepAlive: true, maxSockets: Infinity }),
    nextQuery: 1,
  };

  for (let round = 0; round < options.warmup; round += 1) {
    for (const c of [...new Set([1, maxConcurrency])]) {
      await batch(ctx, 'direct', c);
      await batch(ctx, 'ours', c);
    }
  }
  if (options.warmup > 0) console.log(`warm-up: ${options.warmup} round(s)`);

  const results = { direct: {}, ours: {} };
  for (const c of options.concurrency) {
    results.direct[c] = [];
    results.ours[c] = [];
  }
  let batches = 0;
  let noisyBatches = 0;
  for (let round = 0; round < options.rounds; round += 1) {
    for (const c of options.concurrency) {
      const order = interleaved(round, 'direct', 'ours');
      for (const path of order) {
        const snapshot = cpuSnapshot(server.pid);
        const batchResults = await batch(ctx, path, c);
        const cpu = cpuSince(snapshot, server.pid);
        results[path][c].push(...batchResults);
        batches += 1;
        const bad = batchResults.filter((r) => r.problems.length > 0).length;
        const ttft = percentile(
          batchResults.map((r) => r.ttftNs).filter((v) => v !== null),
          50,
        );
        const noisy = isNoisy(cpu.others);
        if (noisy) noisyBatches += 1;
        const pct = (cores) => percent(cores, '-');
        console.log(
          `round ${round + 1}: ${path.padEnd(6)} @${String(c).padEnd(3)} TTFT p50 ${ms(ttft).padStart(8)} ms; ` +
            `CPU server ${pct(cpu.server)}, bench ${pct(cpu.own)}, other processes ${pct(cpu.others)}` +
            `${noisy ? ' (NOISY)' : ''}${bad ? `; ${bad} with problems` : ''}`,
        );
      }
    }
  }
  ctx.directAgent.destroy();
  ctx.ourAgent.destroy();

  const summaries = { direct: {}, ours: {} };
  for (const path of ['direct', 'ours'])
    for (const c of options.concurrency) summaries[path][c] = summarize(results[path][c]);
  printTable(summaries, options);
  if (noisyBatches > 0)
    console.log(
      `\nNOTE: in ${noisyBatches} of ${batches} batches other processes used more than ${NOISY_OTHER_CPU * 100}% of a core; ` +
        'rerun on a quiet machine before believing the ratios.',
    );

  let idle = null;
  if (options.idleStreams > 0) {
    idle = await idleStreams(ctx, options.idleStreams);
    console.log(`\n== Idle event streams on one running query`);
    console.log(
      `  ${idle.count} streams opened, ${idle.attached} received their replay, ${idle.failures.length} failed` +
        (idle.failures.length ? ` (${[...new Set(idle.failures)].slice(0, 3).join('; ')})` : ''),
    );
    const mb = (b) => (b === null ? '-' : `${(b / 1024 / 1024).toFixed(1)} MB`);
    console.log(`  server RSS before ${mb(idle.before)}, after ${mb(idle.after)}`);
  }
  printTargets(summaries, idle, options);
}

main()
  .catch((error) => {
    console.error(`stream-bench: ${error.message}`);
    if (serverHandle?.output.length) console.error(serverHandle.output.slice(-30).join('\n'));
    process.exitCode = 1;
  })
  .finally(cleanup);
