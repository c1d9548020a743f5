#!/usr/bin/env node
// Streaming benchmark: what our query stream adds on top of the model's own stream, measured side by side in one run.
// On demand only (it is not a test): `node tools/bench/src/stream-bench.mjs --help`.
//
// The "model" is the scripted OpenAI-compatible fixture of @assistant/test-services (no real model runs here),
// answering every chat-completions request with N content deltas on an absolute schedule (token i due at
// start + i × interval). Each delta's content is the fixture's process.hrtime.bigint() at the moment it wrote it,
// plus a space; the fixture runs in its own process (lib/stub.mjs) and our server in another, on the same machine,
// so receive hrtime minus that value is the token's transit delay, with no clock skew (CLOCK_MONOTONIC).
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
// RSS (VmRSS of /proc/<pid>/status) is read before and after, each time after a full garbage collection
// (lib/collect-garbage.mjs), and the difference per stream is reported.
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
// The queries themselves, their integrity checks and the idle-stream phase are shared with perf-report.mjs
// (lib/stream-queries.mjs); child processes, clean-up, /proc figures, statistics, formatting and options with
// http-bench.mjs (./lib/).
import { existsSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { formatRatio, percent, verdict } from './lib/format.mjs';
import { cpuSince, cpuSnapshot, interleaved, isNoisy, NOISY_OTHER_CPU, percentile } from './lib/measure.mjs';
import { optionHelpLines, parseOptionTable } from './lib/options.mjs';
import { installSignalHandlers, removeTempDirs, stopAll } from './lib/processes.mjs';
import { DEFAULT_SERVER, startOurServer, streamingEnv } from './lib/server.mjs';
import { batch, idleStreams, streamTarget, summarize } from './lib/stream-queries.mjs';
import { startStub } from './lib/stub.mjs';

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

let server = null;

/** Stops our server and the stub, and removes the data directory. */
async function cleanup() {
  await stopAll();
  removeTempDirs();
}

// ------------------------------------------------------------------------------------------ reporting

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
  if (!existsSync(options.server))
    throw new Error(
      `our server is not built (${options.server}): run NX_DAEMON=false npx nx run-many -t build`,
    );
  installSignalHandlers('the server', cleanup);
  const step = { tokens: options.tokens, intervalMs: options.intervalMs };
  const stub = await startStub(step);
  server = await startOurServer(options.server, streamingEnv(stub.url));
  console.log(
    `model stub ${stub.url} (pid ${stub.pid}); our server ${server.baseUrl} (pid ${server.pid}); ${os.cpus().length} cores`,
  );

  const maxConcurrency = Math.max(...options.concurrency);
  const targets = {
    direct: streamTarget('direct', stub.url),
    ours: streamTarget('ours', server.baseUrl, server.token),
  };

  for (let round = 0; round < options.warmup; round += 1) {
    for (const c of [...new Set([1, maxConcurrency])]) {
      await batch(targets.direct, c, options);
      await batch(targets.ours, c, options);
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
        const batchResults = await batch(targets[path], c, options);
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
  for (const target of Object.values(targets)) target.agent.destroy();

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
    idle = await idleStreams(targets.ours, server, stub, options.idleStreams, step);
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
    if (server?.handle.output.length) console.error(server.handle.output.slice(-30).join('\n'));
    process.exitCode = 1;
  })
  .finally(cleanup);
