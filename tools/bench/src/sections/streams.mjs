// Issue 10 and 23, P1–P4: the query stream against the model stub directly, the bare relay floor and the floor
// doing the essential work.
//
// Paths, all streaming the same stub (its own process; N timestamped tokens `interval` ms apart):
//   direct  the stub itself;  relay  floors/relay-server.mjs (its own process);
//   essential  floors/essential-stream-floor.mjs: the relay plus the product's essential work (the token checked
//           against our file, the question and the answer stored in a commit each; decision 0014, proposed);
//   ours    our self-hosted server (SQLite);  hosted  our hosted API (PostgreSQL + Redis), with --hosted.
// After warm-up, every round runs each path at 1 query (`single` queries one after another) and at `atOnce`
// concurrent queries, rotating which path goes first. Per round and path: p50 TTFT and p50/p99 per-token transit
// at 1, p99 TTFT at `atOnce`; "added" is path − direct in the same round. Server CPU per streamed token: utime+stime
// of the relay's and of our server's process (/proc/<pid>/stat) over the round's batches ÷ the tokens they streamed;
// the hosted API's adds its PostgreSQL backends' (found by application name; Redis, shared with other clients, is
// not counted). Every figure is a per-round paired statistic (ours against the relay, and with --hosted the hosted
// API against the self-hosted server of the same round, issue 23) judged over adaptive rounds
// (lib/adaptive-rounds.mjs); the rounds go on until every figure of the section is decided.
// P4: server memory per idle open event stream (lib/stream-queries.mjs idleStreams), self-hosted only.
// Any query whose tokens were lost, duplicated, merged or out of order, or whose stream did not end properly, is
// a failure of the bench (not a figure): it is listed and makes the report exit non-zero.
import { adaptiveRounds, describeRule } from '../lib/adaptive-rounds.mjs';
import { join } from 'node:path';
import { startEssentialStreamFloor, startRelayFloor } from '../lib/floors.mjs';
import { startHostedServer, watchBackendsCpu } from '../lib/hosted.mjs';
import { median, processCpuSeconds, rotated } from '../lib/measure.mjs';
import { stopProcess } from '../lib/processes.mjs';
import { atMost, figureRow, kb, ms, msDiff, row, us } from '../lib/report.mjs';
import { startOurServer, streamingEnv } from '../lib/server.mjs';
import { batch, idleStreams, streamTarget, summarize } from '../lib/stream-queries.mjs';

export const TARGETS = {
  ttftAddedOverRelayMs: 1.0,
  ttftP99AtOnceRatio: 2,
  delayAddedP50Ratio: 1.5,
  delayAddedP99Ratio: 2,
  cpuPerTokenRatio: 1.5,
  idleStreamBytes: 16 * 1024,
  /** Issue 23: the hosted API's TTFT added and CPU per token, at most this many times the self-hosted server's. */
  hostedOverSelfHosted: 1.3,
};

/** The figures of one server of ours (`name`: ours or hosted) against the relay floor. */
function figuresAgainstRelay(name, atOnce) {
  const suffix = name === 'hosted' ? ' (hosted)' : '';
  const cpuWhat = name === 'hosted' ? 'API + its PostgreSQL backends' : 'server';
  return [
    {
      key: `${name}.ttft`,
      id: `P1${suffix}`,
      metric: 'TTFT added over direct, 1 query (p50)',
      compare: 'difference',
      target: { op: '<=', limit: TARGETS.ttftAddedOverRelayMs * 1e6 },
      targetText: `≤ relay + ${TARGETS.ttftAddedOverRelayMs} ms`,
      show: ms,
      values: (r) => ({ ours: r.added(name, 'ttftP50'), floor: r.added('relay', 'ttftP50') }),
    },
    {
      key: `${name}.ttftP99`,
      id: `P1b${suffix}`,
      metric: `TTFT p99, ${atOnce} concurrent`,
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.ttftP99AtOnceRatio },
      targetText: `≤ ${TARGETS.ttftP99AtOnceRatio} × relay`,
      show: ms,
      values: (r) => ({ ours: r.at(name, 'ttftP99', atOnce), floor: r.at('relay', 'ttftP99', atOnce) }),
    },
    {
      key: `${name}.delayP50`,
      id: `P2${suffix}`,
      metric: 'per-token transit added p50, 1 query',
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.delayAddedP50Ratio },
      targetText: `≤ ${TARGETS.delayAddedP50Ratio} × relay`,
      show: us,
      values: (r) => ({ ours: r.added(name, 'delayP50'), floor: r.added('relay', 'delayP50') }),
    },
    {
      key: `${name}.delayP99`,
      id: `P2${suffix}`,
      metric: 'per-token transit added p99, 1 query',
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.delayAddedP99Ratio },
      targetText: `≤ ${TARGETS.delayAddedP99Ratio} × relay`,
      show: us,
      values: (r) => ({ ours: r.added(name, 'delayP99'), floor: r.added('relay', 'delayP99') }),
    },
    {
      key: `${name}.cpu`,
      id: `P3${suffix}`,
      metric: `CPU per streamed token (${cpuWhat})`,
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.cpuPerTokenRatio },
      targetText: `≤ ${TARGETS.cpuPerTokenRatio} × relay`,
      show: (seconds) => us(seconds * 1e9),
      values: (r) => ({ ours: r.cpuPerToken(name), floor: r.cpuPerToken('relay') }),
    },
  ];
}

/**
 * Decision 0014 (proposed): the self-hosted server against the floor doing the essential work, with the targets
 * the issue sets against the relay.
 */
function figuresAgainstEssentialFloor(atOnce) {
  const proposed = ' (proposed, decision 0014)';
  return [
    {
      key: 'ours.ttftOverEssential',
      id: 'P1 (essential floor)',
      metric: 'TTFT added over direct, 1 query (p50), against the essential-work floor',
      compare: 'difference',
      target: { op: '<=', limit: TARGETS.ttftAddedOverRelayMs * 1e6 },
      targetText: `≤ floor + ${TARGETS.ttftAddedOverRelayMs} ms${proposed}`,
      show: ms,
      values: (r) => ({ ours: r.added('ours', 'ttftP50'), floor: r.added('essential', 'ttftP50') }),
    },
    {
      key: 'ours.ttftP99OverEssential',
      id: 'P1b (essential floor)',
      metric: `TTFT p99, ${atOnce} concurrent, against the essential-work floor`,
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.ttftP99AtOnceRatio },
      targetText: `≤ ${TARGETS.ttftP99AtOnceRatio} × floor${proposed}`,
      show: ms,
      values: (r) => ({ ours: r.at('ours', 'ttftP99', atOnce), floor: r.at('essential', 'ttftP99', atOnce) }),
    },
    {
      key: 'ours.cpuOverEssential',
      id: 'P3 (essential floor)',
      metric: 'CPU per streamed token (server), against the essential-work floor',
      compare: 'ratio',
      target: { op: '<=', limit: TARGETS.cpuPerTokenRatio },
      targetText: `≤ ${TARGETS.cpuPerTokenRatio} × floor${proposed}`,
      show: (seconds) => us(seconds * 1e9),
      values: (r) => ({ ours: r.cpuPerToken('ours'), floor: r.cpuPerToken('essential') }),
    },
  ];
}

/** Issue 23: the hosted API against the self-hosted server of the same round. */
function hostedAgainstSelfHosted() {
  const limit = TARGETS.hostedOverSelfHosted;
  return [
    {
      key: 'hostedOverOurs.ttft',
      id: 'P1 (hosted)',
      metric: 'TTFT added over direct, 1 query (p50), hosted against self-hosted',
      compare: 'ratio',
      target: { op: '<=', limit },
      targetText: `≤ ${limit} × self-hosted`,
      show: msDiff,
      values: (r) => ({ ours: r.added('hosted', 'ttftP50'), floor: r.added('ours', 'ttftP50') }),
    },
    {
      key: 'hostedOverOurs.cpu',
      id: 'P3 (hosted)',
      metric: 'CPU per streamed token, hosted (API + PostgreSQL backends) against self-hosted',
      compare: 'ratio',
      target: { op: '<=', limit },
      targetText: `≤ ${limit} × self-hosted`,
      show: (seconds) => us(seconds * 1e9),
      values: (r) => ({ ours: r.cpuPerToken('hosted'), floor: r.cpuPerToken('ours') }),
    },
  ];
}

export async function streams(ctx) {
  const { options, log } = ctx;
  const stub = await ctx.stub();
  const relay = await startRelayFloor(stub.url);
  const ours = await startOurServer(options.server, streamingEnv(stub.url));
  const essential = await startEssentialStreamFloor(
    stub.url,
    join(ours.dataDir, 'assistant.sqlite'),
    ours.dataDir,
  );
  const hosted = options.hosted
    ? await startHostedServer(options.databaseUrl, options.redisUrl, streamingEnv(stub.url))
    : null;
  const backends = hosted ? await watchBackendsCpu(hosted) : null;
  const paths = {
    direct: { target: streamTarget('direct', stub.url), pid: null },
    relay: { target: streamTarget('relay', relay.url), pid: relay.pid },
    essential: { target: streamTarget('relay', essential.url, ours.token), pid: essential.pid },
    ours: { target: streamTarget('ours', ours.baseUrl, ours.token), pid: ours.pid },
    ...(hosted
      ? { hosted: { target: streamTarget('ours', hosted.baseUrl, hosted.token), pid: hosted.pid } }
      : {}),
  };
  const names = Object.keys(paths);
  const load = { tokens: options.tokens, single: options.single };
  const levels = [1, options.atOnce];
  const failures = [];

  /** One batch of `c` queries on path `name`: its summary and the CPU seconds its server used. */
  const measureBatch = async (name, c) => {
    const { target, pid } = paths[name];
    const before = pid === null ? null : processCpuSeconds(pid);
    const backendsSince = name === 'hosted' ? await backends.start() : null;
    const summary = summarize(await batch(target, c, load));
    const after = pid === null ? null : processCpuSeconds(pid);
    const backendSeconds = backendsSince ? await backendsSince() : 0;
    for (const problem of summary.problems) failures.push(`${name} @${c}: ${problem}`);
    const cpuSeconds = before === null || after === null ? NaN : after - before + backendSeconds;
    return { summary, cpuSeconds };
  };

  try {
    for (let round = 0; round < options.warmup; round += 1)
      for (const c of levels) for (const name of names) await measureBatch(name, c);
    log(`  streams: ${options.warmup} warm-up round(s) done`);

    const figures = [
      ...figuresAgainstRelay('ours', options.atOnce),
      ...figuresAgainstEssentialFloor(options.atOnce),
      ...(hosted ? [...figuresAgainstRelay('hosted', options.atOnce), ...hostedAgainstSelfHosted()] : []),
    ];
    const direct = { ttftP50: [], delayP50: [], delayP99: [] };
    const result = await adaptiveRounds({
      figures,
      rule: ctx.rule,
      round: async (index) => {
        const summaries = Object.fromEntries(names.map((n) => [n, {}]));
        const cpu = Object.fromEntries(names.map((n) => [n, { seconds: 0, tokens: 0 }]));
        for (const c of levels) {
          for (const name of rotated(index, names)) {
            const { summary, cpuSeconds } = await measureBatch(name, c);
            summaries[name][c] = summary;
            cpu[name].seconds += cpuSeconds;
            cpu[name].tokens += summary.tokens;
          }
        }
        const measured = {
          at: (name, key, c = 1) => summaries[name][c][key] ?? NaN,
          added: (name, key) => (summaries[name][1][key] ?? NaN) - (summaries.direct[1][key] ?? NaN),
          cpuPerToken: (name) => (cpu[name].tokens > 0 ? cpu[name].seconds / cpu[name].tokens : NaN),
        };
        for (const key of Object.keys(direct)) direct[key].push(measured.at('direct', key));
        log(
          `  streams round ${index + 1}: TTFT p50 at 1 ${names.map((n) => `${n} ${ms(measured.at(n, 'ttftP50'))}`).join(', ')}`,
        );
        return Object.fromEntries(figures.map((f) => [f.key, f.values(measured)]));
      },
    });
    log(`  streams: ${result.rounds} rounds, stopped by ${result.stoppedBy}`);

    const rows = figures.map((f) => figureRow(f, result.figures[f.key]));
    const notes = [
      `streams: direct TTFT p50 at 1 ${ms(median(direct.ttftP50))}, transit p50/p99 ` +
        `${us(median(direct.delayP50))}/${us(median(direct.delayP99))}; ` +
        `${options.tokens} tokens every ${options.intervalMs} ms; ${describeRule(ctx.rule)}`,
      ...(backends ? [`streams: the hosted API used ${backends.seen.size} PostgreSQL backends`] : []),
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
          { rounds: 1 },
        ),
      );
    }
    return { rows, notes, failures };
  } finally {
    for (const { target } of Object.values(paths)) target.agent.destroy();
    await backends?.close();
    await Promise.all(
      [relay.handle, essential.handle, ours.handle, hosted?.handle].filter(Boolean).map(stopProcess),
    );
  }
}
