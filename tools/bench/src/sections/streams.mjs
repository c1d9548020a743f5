// Issue 10, P1–P4: the query stream against the model stub directly and against the bare relay floor.
//
// Paths, all streaming the same stub (its own process; N timestamped tokens `interval` ms apart):
//   direct  the stub itself;  relay  floors/relay-server.mjs (its own process);
//   ours    our self-hosted server (SQLite);  hosted  our hosted API (PostgreSQL + Redis), with --hosted.
// After warm-up, every round runs each path at 1 query (`single` queries one after another) and at `atOnce`
// concurrent queries, rotating which path goes first. Per round and path: p50 TTFT and p50/p99 per-token transit
// at 1, p99 TTFT at `atOnce`; "added" is path − direct in the same round. Figures are medians over the rounds.
// Server CPU per streamed token: utime+stime of the relay's and of our server's process (/proc/<pid>/stat)
// across all their measured batches ÷ the tokens they streamed meanwhile.
// P4: server memory per idle open event stream (lib/stream-queries.mjs idleStreams), self-hosted only.
// Any query whose tokens were lost, duplicated, merged or out of order, or whose stream did not end properly, is
// a failure of the bench (not a figure): it is listed and makes the report exit non-zero.
import { processCpuSeconds, median, rotated } from '../lib/measure.mjs';
import { startHostedServer } from '../lib/hosted.mjs';
import { freePort, spawnNode, stopProcess, waitForOutput } from '../lib/processes.mjs';
import { startOurServer, streamingEnv } from '../lib/server.mjs';
import { batch, idleStreams, streamTarget, summarize } from '../lib/stream-queries.mjs';
import { floorScript } from '../lib/floors.mjs';
import { atMost, kb, ms, row, us } from '../lib/report.mjs';

export const TARGETS = {
  ttftAddedOverRelayMs: 1.0,
  ttftP99AtOnceRatio: 2,
  delayAddedP50Ratio: 1.5,
  delayAddedP99Ratio: 2,
  cpuPerTokenRatio: 1.5,
  idleStreamBytes: 16 * 1024,
};

/** Starts the bare relay floor in its own process, relaying the stub at `stubUrl`. */
async function startRelay(stubUrl) {
  const port = await freePort();
  const handle = spawnNode(
    'bare relay',
    floorScript('relay-server.mjs'),
    [String(port), stubUrl],
    process.env,
  );
  await waitForOutput(handle, /relay listening on/, 'its address');
  return { handle, url: `http://127.0.0.1:${port}`, pid: handle.child.pid };
}

export async function streams(ctx) {
  const { options, log } = ctx;
  const stub = await ctx.stub();
  const relay = await startRelay(stub.url);
  const ours = await startOurServer(options.server, streamingEnv(stub.url));
  const hosted = options.hosted
    ? await startHostedServer(options.databaseUrl, options.redisUrl, streamingEnv(stub.url))
    : null;
  const paths = {
    direct: { target: streamTarget('direct', stub.url), pid: null },
    relay: { target: streamTarget('relay', relay.url), pid: relay.pid },
    ours: { target: streamTarget('ours', ours.baseUrl, ours.token), pid: ours.pid },
    ...(hosted
      ? { hosted: { target: streamTarget('ours', hosted.baseUrl, hosted.token), pid: hosted.pid } }
      : {}),
  };
  const names = Object.keys(paths);
  const load = { tokens: options.tokens, single: options.single };
  const levels = [1, options.atOnce];
  try {
    for (let round = 0; round < options.warmup; round += 1)
      for (const c of levels) for (const name of names) await batch(paths[name].target, c, load);
    log(`  streams: ${options.warmup} warm-up round(s) done`);

    const perRound = Object.fromEntries(names.map((n) => [n, { 1: [], [options.atOnce]: [] }]));
    const cpu = Object.fromEntries(names.map((n) => [n, { seconds: 0, tokens: 0 }]));
    const failures = [];
    for (let round = 0; round < options.rounds; round += 1) {
      for (const c of levels) {
        for (const name of rotated(round, names)) {
          const { target, pid } = paths[name];
          const before = pid === null ? null : processCpuSeconds(pid);
          const results = await batch(target, c, load);
          const after = pid === null ? null : processCpuSeconds(pid);
          const summary = summarize(results);
          perRound[name][c].push(summary);
          if (before !== null && after !== null) {
            cpu[name].seconds += after - before;
            cpu[name].tokens += summary.tokens;
          }
          for (const problem of summary.problems) failures.push(`${name} @${c}: ${problem}`);
        }
      }
      const at1 = (n) => ms(perRound[n][1].at(-1).ttftP50);
      log(
        `  streams round ${round + 1}/${options.rounds}: TTFT p50 at 1 ${names.map((n) => `${n} ${at1(n)}`).join(', ')}`,
      );
    }

    const rows = [];
    const addedMedian = (name, key, c = 1) =>
      median(perRound[name][c].map((s, i) => s[key] - perRound.direct[c][i][key]));
    const figureMedian = (name, key, c) => median(perRound[name][c].map((s) => s[key]));
    const cpuPerToken = (name) => (cpu[name].tokens > 0 ? cpu[name].seconds / cpu[name].tokens : NaN);
    const relayTtft = addedMedian('relay', 'ttftP50');
    const relayP99 = figureMedian('relay', 'ttftP99', options.atOnce);
    const relayD50 = addedMedian('relay', 'delayP50');
    const relayD99 = addedMedian('relay', 'delayP99');
    const relayCpu = cpuPerToken('relay');
    for (const name of names.filter((n) => n === 'ours' || n === 'hosted')) {
      const suffix = name === 'hosted' ? ' (hosted)' : '';
      const ttft = addedMedian(name, 'ttftP50');
      rows.push(
        row(
          'P1' + suffix,
          'TTFT added over direct, 1 query (p50)',
          ms(relayTtft),
          ms(ttft),
          `≤ relay + ${TARGETS.ttftAddedOverRelayMs} ms`,
          atMost(ttft, relayTtft + TARGETS.ttftAddedOverRelayMs * 1e6),
        ),
      );
      const p99 = figureMedian(name, 'ttftP99', options.atOnce);
      rows.push(
        row(
          'P1b' + suffix,
          `TTFT p99, ${options.atOnce} concurrent`,
          ms(relayP99),
          ms(p99),
          `≤ ${TARGETS.ttftP99AtOnceRatio} × relay`,
          atMost(p99, TARGETS.ttftP99AtOnceRatio * relayP99),
        ),
      );
      const d50 = addedMedian(name, 'delayP50');
      rows.push(
        row(
          'P2' + suffix,
          'per-token transit added p50, 1 query',
          us(relayD50),
          us(d50),
          `≤ ${TARGETS.delayAddedP50Ratio} × relay`,
          atMost(d50, TARGETS.delayAddedP50Ratio * relayD50),
        ),
      );
      const d99 = addedMedian(name, 'delayP99');
      rows.push(
        row(
          'P2' + suffix,
          'per-token transit added p99, 1 query',
          us(relayD99),
          us(d99),
          `≤ ${TARGETS.delayAddedP99Ratio} × relay`,
          atMost(d99, TARGETS.delayAddedP99Ratio * relayD99),
        ),
      );
      const perToken = cpuPerToken(name);
      rows.push(
        row(
          'P3' + suffix,
          'server CPU per streamed token',
          us(relayCpu * 1e9),
          us(perToken * 1e9),
          `≤ ${TARGETS.cpuPerTokenRatio} × relay`,
          atMost(perToken, TARGETS.cpuPerTokenRatio * relayCpu),
        ),
      );
    }
    const notes = [
      `streams: direct TTFT p50 at 1 ${ms(figureMedian('direct', 'ttftP50', 1))}, transit p50/p99 ` +
        `${us(figureMedian('direct', 'delayP50', 1))}/${us(figureMedian('direct', 'delayP99', 1))}; ` +
        `${options.tokens} tokens every ${options.intervalMs} ms, ${options.rounds} rounds`,
    ];

    if (options.idleStreams > 0) {
      const step = { tokens: options.tokens, intervalMs: options.intervalMs };
      const idle = await idleStreams(paths.ours.target, ours, stub, options.idleStreams, step);
      if (idle.failures.length > 0)
        failures.push(
          `idle streams: ${idle.failures.length} failed (${[...new Set(idle.failures)].slice(0, 3).join('; ')})`,
        );
      rows.push(
        row(
          'P4',
          `memory per idle open stream (${idle.count} streams)`,
          '',
          kb(idle.perStream),
          `≤ ${TARGETS.idleStreamBytes / 1024} KB`,
          atMost(idle.perStream, TARGETS.idleStreamBytes),
        ),
      );
    }
    return { rows, notes, failures };
  } finally {
    for (const { target } of Object.values(paths)) target.agent.destroy();
    await Promise.all([relay.handle, ours.handle, hosted?.handle].filter(Boolean).map(stopProcess));
  }
}
