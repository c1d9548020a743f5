#!/usr/bin/env node
// Where the CPU of a streamed token goes (issue 23: P3, and the per-query costs behind P1/P1b and the tail), in our
// server and in the two stream floors beside it — the bare relay and the essential-work floor — measured the same
// way for all three:
//
//   1. CPU µs per streamed token, on the main thread (the event loop) and on the other threads (V8's GC helpers
//      and compilers), from /proc: each server's CPU over interleaved rounds of `--concurrency` queries at once
//      (100 tokens 5 ms apart, the report's stub), divided by the tokens it streamed. A query's own costs (its
//      request, context, commits) are in it, spread over its tokens, as they are in the report's P3.
//   2. Where the main thread's goes: each server started again with V8's sampling profiler (`--cpu-prof`), the
//      same load, the samples of the measured window given to the phases of stream-phases.mjs; each phase's share
//      times the main thread's µs per token of step 1.
//
//   node tools/bench/src/profile/stream-profile.mjs [--server <bin/run.js>] [--baseline <bin/run.js>]
//        [--concurrency 10] [--batches 10] [--rounds 3] [--tokens 100] [--interval 5] [--top 0: each phase's N busiest functions] [--no-profile]
//
// A/B: `--baseline` adds another build of our server (another checkout's) to the same rounds and profile.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEssentialStreamFloor, startRelayFloor } from '../lib/floors.mjs';
import { parseArgsUsage, textTable } from '../lib/format.mjs';
import { median, rotated, threadCpuSeconds } from '../lib/measure.mjs';
import {
  installSignalHandlers,
  makeTempDir,
  removeTempDirs,
  stopAll,
  stopProcess,
} from '../lib/processes.mjs';
import { DEFAULT_SERVER, startOurServer, streamingEnv } from '../lib/server.mjs';
import { batch, streamTarget } from '../lib/stream-queries.mjs';
import { startStub } from '../lib/stub.mjs';
import { OTHER_PHASE, PHASES, phaseShares } from './stream-phases.mjs';

const OPTIONS = {
  server: { type: 'string', default: DEFAULT_SERVER },
  baseline: { type: 'string' },
  concurrency: { type: 'string', default: '10' },
  batches: { type: 'string', default: '10' },
  rounds: { type: 'string', default: '3' },
  warmup: { type: 'string', default: '5' },
  tokens: { type: 'string', default: '100' },
  interval: { type: 'string', default: '5' },
  'sampling-interval': { type: 'string', default: '250' },
  top: { type: 'string', default: '0' },
  'no-profile': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values: options } = parseArgs({ options: OPTIONS });
const load = { tokens: Number(options.tokens) };
const concurrency = Number(options.concurrency);

/**
 * Our server (and --baseline), the relay and the essential-work floor on our server's SQLite file, each with
 * `nodeArgs(name)`: { name: { handle, pid, target } }.
 */
async function startServers(stub, nodeArgs) {
  const servers = {};
  const ours = async (name, entry) => {
    const server = await startOurServer(resolve(entry), streamingEnv(stub.url), { nodeArgs: nodeArgs(name) });
    servers[name] = { ...server, target: streamTarget('ours', server.baseUrl, server.token) };
    return server;
  };
  const { dataDir, token } = await ours('ours', options.server);
  if (options.baseline) await ours('baseline', options.baseline);
  const relay = await startRelayFloor(stub.url, { nodeArgs: nodeArgs('relay') });
  servers.relay = { ...relay, target: streamTarget('relay', relay.url) };
  const essential = await startEssentialStreamFloor(
    stub.url,
    join(dataDir, 'assistant.sqlite'),
    makeTempDir('stream-profile-floor-'),
    { nodeArgs: nodeArgs('essential') },
  );
  // The floor answers in the relay's format, for our server's token.
  servers.essential = { ...essential, target: streamTarget('relay', essential.url, token) };
  return servers;
}

/** `--batches` batches of `--concurrency` queries on `server`; the tokens streamed (every query checked). */
async function stream(name, server, batches = Number(options.batches)) {
  let tokens = 0;
  for (let i = 0; i < batches; i++) {
    for (const result of await batch(server.target, concurrency, load)) {
      if (result.problems.length > 0) throw new Error(`${name}: ${result.problems.join('; ')}`);
      tokens += result.tokenDelaysNs.length;
    }
  }
  return tokens;
}

async function warmUp(servers) {
  for (const [name, server] of Object.entries(servers)) await stream(name, server, Number(options.warmup));
}

/** Step 1: µs of CPU per token, main thread and others, medians over interleaved rounds. */
async function measureCpu(stub) {
  const servers = await startServers(stub, () => []);
  try {
    await warmUp(servers);
    const names = Object.keys(servers);
    const runs = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < Number(options.rounds); round++) {
      for (const name of rotated(round, names)) {
        const before = threadCpuSeconds(servers[name].pid);
        const tokens = await stream(name, servers[name]);
        const after = threadCpuSeconds(servers[name].pid);
        const run = {
          main: ((after.main - before.main) * 1e6) / tokens,
          others: ((after.others - before.others) * 1e6) / tokens,
        };
        runs[name].push(run);
        console.log(
          `  round ${round + 1} ${name.padEnd(9)} main ${run.main.toFixed(1).padStart(6)}  others ${run.others.toFixed(1).padStart(5)} µs/token`,
        );
      }
    }
    return Object.fromEntries(
      names.map((name) => [
        name,
        { main: median(runs[name].map((r) => r.main)), others: median(runs[name].map((r) => r.others)) },
      ]),
    );
  } finally {
    await Promise.all(Object.values(servers).map((server) => stopProcess(server.handle)));
  }
}

/** Step 2: each server's main-thread samples of one measured window, by phase. */
async function profilePhases(stub) {
  const dirs = {};
  const servers = await startServers(stub, (name) => {
    dirs[name] = makeTempDir(`stream-profile-${name}-`);
    return [
      '--cpu-prof',
      `--cpu-prof-dir=${dirs[name]}`,
      `--cpu-prof-interval=${options['sampling-interval']}`,
    ];
  });
  const windows = {};
  try {
    await warmUp(servers);
    for (const [name, server] of Object.entries(servers)) {
      const from = Number(process.hrtime.bigint() / 1000n);
      await stream(name, server);
      windows[name] = [from, Number(process.hrtime.bigint() / 1000n)];
    }
  } finally {
    // The profile is written as the process exits.
    await Promise.all(Object.values(servers).map((server) => stopProcess(server.handle)));
  }
  const shares = {};
  for (const [name, dir] of Object.entries(dirs)) {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name} wrote no CPU profile (did it exit cleanly?)`);
    shares[name] = phaseShares(JSON.parse(readFileSync(join(dir, file), 'utf8')), ...windows[name]);
  }
  return shares;
}

async function main() {
  if (options.help) {
    console.log(parseArgsUsage('tools/bench/src/profile/stream-profile.mjs', OPTIONS));
    return;
  }
  for (const entry of [options.server, options.baseline].filter(Boolean))
    if (!existsSync(resolve(entry))) throw new Error(`${entry} does not exist: build first`);
  installSignalHandlers('the servers', async () => {
    await stopAll();
    removeTempDirs();
  });
  console.log(
    `${resolve(options.server)}\n${concurrency} queries at once × ${options.batches} per round, ${options.rounds} rounds; ` +
      `${options.tokens} tokens ${options.interval} ms apart`,
  );
  const stub = await startStub({ tokens: load.tokens, intervalMs: Number(options.interval) });
  try {
    const cpu = await measureCpu(stub);
    const names = Object.keys(cpu);
    console.log('\nmedians, µs of CPU per streamed token');
    for (const name of names)
      console.log(
        `  ${name.padEnd(9)} ${(cpu[name].main + cpu[name].others).toFixed(1).padStart(6)} ` +
          `(main ${cpu[name].main.toFixed(1)}, others ${cpu[name].others.toFixed(1)})` +
          (name === 'relay'
            ? ''
            : `  ${((cpu[name].main + cpu[name].others) / (cpu.relay.main + cpu.relay.others)).toFixed(2)}× the relay`),
      );
    if (options['no-profile']) return;
    const shares = await profilePhases(stub);
    const usOf = (name, phase) =>
      ((shares[name].byPhase.get(phase) ?? 0) / shares[name].total) * cpu[name].main;
    const phases = [...PHASES.map(([phase]) => phase), OTHER_PHASE];
    const rows = phases.map((phase) => [phase, ...names.map((name) => usOf(name, phase).toFixed(1))]);
    rows.push(['other threads (GC helpers, compilers)', ...names.map((name) => cpu[name].others.toFixed(1))]);
    rows.push(['total', ...names.map((name) => (cpu[name].main + cpu[name].others).toFixed(1))]);
    console.log(
      `\nµs of CPU per streamed token, by phase (main-thread samples: ${names.map((n) => `${n} ${shares[n].total}`).join(', ')})\n`,
    );
    console.log(textTable(rows, ['phase', ...names.map((n) => `${n} µs`)]));
    for (const name of names) {
      if (Number(options.top) === 0) break;
      console.log(`\n${name}: each phase's functions of the most samples (self time), µs per token`);
      for (const phase of phases) {
        const functions = shares[name].byFunction.get(phase);
        if (!functions) continue;
        console.log(`  ${phase}`);
        const top = [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(options.top));
        for (const [key, count] of top)
          console.log(
            `    ${((count / shares[name].total) * cpu[name].main).toFixed(2).padStart(6)}  ${key}`,
          );
      }
    }
  } finally {
    await stub.stop();
  }
}

main()
  .catch((error) => {
    console.error(error.stack ?? error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    removeTempDirs();
  });
