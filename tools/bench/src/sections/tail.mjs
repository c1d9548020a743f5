// Issue 23: "500 concurrent streams at 20 tokens a second: added transit p99 ≤ 2 × the relay's in the same run."
//
// The same model stub as the streams section, its tokens 50 ms apart, and three paths, each its own process: the
// stub directly, the bare relay floor (floors/relay-server.mjs) and our self-hosted server. A round runs 500
// concurrent questions on each path in turn (rotating which goes first), started evenly over one second so that
// their tokens are spread over the interval as a real crowd's would be rather than 500 at the same instant, and read
// by the cheapest client this process can be (lib/light-streams.mjs; client, stub and servers share the same cores,
// so the client is part of the noise). Transit is measured on the tokens sent while all 500 streams were open (the
// ramp up and down left out); "added" is a path's transit p50 / p99 minus the stub's own in the same round. The
// figure is the per-round ratio ours/relay of the added p99, over adaptive rounds (lib/adaptive-rounds.mjs).
import { adaptiveRounds, describeRule } from '../lib/adaptive-rounds.mjs';
import { startRelayFloor } from '../lib/floors.mjs';
import { lightStreams, steadyTransit } from '../lib/light-streams.mjs';
import { percent } from '../lib/format.mjs';
import { cpuSince, cpuSnapshot, isNoisy, median, processCpuSeconds, rotated } from '../lib/measure.mjs';
import { stopProcess } from '../lib/processes.mjs';
import { figureRow, row, times, us } from '../lib/report.mjs';
import { startOurServer, streamingEnv } from '../lib/server.mjs';
import { streamTarget } from '../lib/stream-queries.mjs';

export const TAIL_P99_RATIO = 2;
/** The starts of a round's streams are spread over this long. */
const RAMP_MS = 1000;

export async function tail(ctx) {
  const { options, log } = ctx;
  const load = { streams: options.tailStreams, tokens: options.tailTokens, rampMs: RAMP_MS };
  if (load.tokens * options.tailInterval < 2 * RAMP_MS)
    throw new Error(
      `--tail-tokens × --tail-interval must be at least ${2 * RAMP_MS} ms, so that all streams are open for a while`,
    );
  const stub = await ctx.stub();
  await stub.setDefault({ tokens: load.tokens, intervalMs: options.tailInterval });
  const relay = await startRelayFloor(stub.url);
  const ours = await startOurServer(options.server, streamingEnv(stub.url));
  const paths = {
    direct: { target: streamTarget('direct', stub.url), pid: null },
    relay: { target: streamTarget('relay', relay.url), pid: relay.pid },
    ours: { target: streamTarget('ours', ours.baseUrl, ours.token), pid: ours.pid },
  };
  const failures = [];
  const cpu = { relay: [], ours: [] };
  const p50 = { relay: [], ours: [] };
  /** Measured rounds of each path with no moment when all its streams were open. */
  let windowless = {};
  /** One batch on path `name`: its steady transit, and who used the cores meanwhile (in the round's log line). */
  const run = async (name) => {
    const { target, pid } = paths[name];
    const snapshot = cpuSnapshot(pid ?? stub.pid);
    const stubBefore = processCpuSeconds(stub.pid);
    const result = await lightStreams(target, load);
    const used = cpuSince(snapshot, pid ?? stub.pid);
    const seconds = Number(process.hrtime.bigint() - snapshot.wall) / 1e9;
    const stubCores = pid === null ? used.server : (processCpuSeconds(stub.pid) - stubBefore) / seconds;
    for (const problem of result.problems) failures.push(`${name}: ${problem}`);
    const transit = steadyTransit(result);
    // Not a failure of the bench but of the path under this load (e.g. a server too busy to start every stream
    // in time): the round gives the figure nothing, and the notes say how often.
    if (transit.tokens === 0) windowless[name] = (windowless[name] ?? 0) + 1;
    if (pid !== null) cpu[name].push((used.server * seconds) / result.count);
    const server = pid === null ? '' : `server ${percent(used.server)}, `;
    // cpuSince counts the stub among the others when it measured a server: here it is one of ours.
    const others = pid === null || used.others === null ? used.others : Math.max(0, used.others - stubCores);
    const noisy = isNoisy(others) ? ', OTHER PROCESSES' : ', others';
    transit.cores = `${server}stub ${percent(stubCores)}, client ${percent(used.own)}${noisy} ${percent(others)}`;
    return transit;
  };
  try {
    // At least one warm-up round, even with --quick: a cold round's first tokens wait for JIT compilation of every
    // process, which leaves no moment when all streams are open at once.
    for (let round = 0; round < Math.max(1, options.warmup); round += 1)
      for (const name of Object.keys(paths)) await run(name);
    windowless = {};
    const figure = {
      key: 'p99',
      id: `P2 (${load.streams} streams)`,
      metric: `per-token transit added p99, ${load.streams} streams at ${Math.round(1000 / options.tailInterval)} tokens/s`,
      compare: 'ratio',
      target: { op: '<=', limit: TAIL_P99_RATIO },
      targetText: `≤ ${TAIL_P99_RATIO} × relay`,
      show: us,
    };
    const result = await adaptiveRounds({
      figures: [figure],
      rule: ctx.rule,
      round: async (index) => {
        const transit = {};
        for (const name of rotated(index, Object.keys(paths))) transit[name] = await run(name);
        const added = (name, key) => transit[name][key] - transit.direct[key];
        for (const name of ['relay', 'ours']) p50[name].push(added(name, 'p50'));
        log(
          `  tail round ${index + 1}: transit p50/p99 ` +
            Object.entries(transit)
              .map(
                ([name, t]) =>
                  `\n    ${name} ${us(t.p50)}/${us(t.p99)} (${t.tokens} tokens in ${t.windowMs.toFixed(0)} ms; ${t.cores})`,
              )
              .join(''),
        );
        return { p99: { ours: added('ours', 'p99'), floor: added('relay', 'p99') } };
      },
    });
    log(`  tail: ${result.rounds} rounds, stopped by ${result.stoppedBy}`);
    const p50ratios = p50.ours
      .map((x, i) => (p50.relay[i] > 0 ? x / p50.relay[i] : NaN))
      .filter(Number.isFinite);
    const rows = [
      figureRow(figure, result.figures.p99),
      row(
        figure.id,
        `per-token transit added p50, ${load.streams} streams`,
        us(median(p50.relay.filter(Number.isFinite))),
        us(median(p50.ours.filter(Number.isFinite))),
        'reported',
        null,
        { judged: times(median(p50ratios)), rounds: p50ratios.length },
      ),
    ];
    const notes = [
      `tail: ${load.streams} streams of ${load.tokens} tokens ${options.tailInterval} ms apart, started over ` +
        `${RAMP_MS} ms; server CPU per token relay ${us(median(cpu.relay) * 1e9)}, ours ${us(median(cpu.ours) * 1e9)}; ` +
        describeRule(ctx.rule),
      ...Object.entries(windowless).map(
        ([name, rounds]) =>
          `tail: ${name} had no moment when all ${load.streams} streams were open in ${rounds} round(s) (a ` +
          `stream's first token came after another's last): those rounds give the figure nothing`,
      ),
    ];
    return { rows, notes, failures: [...new Set(failures)].slice(0, 10) };
  } finally {
    for (const { target } of Object.values(paths)) target.agent.destroy();
    await Promise.all([relay.handle, ours.handle].map(stopProcess));
    await stub.setDefault({ tokens: options.tokens, intervalMs: options.intervalMs });
  }
}
