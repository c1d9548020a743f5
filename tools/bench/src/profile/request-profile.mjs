#!/usr/bin/env node
// Where the CPU of one request goes (issue 23, P5: `GET /api/v1/me`), in our server and in its floor, measured so
// that other processes on the machine barely move the figures:
//
//   1. CPU µs per request: the server process's own CPU time (/proc: user + system, every thread) over the
//      requests it answered under autocannon load, ours and the floor in interleaved rounds after a warm-up.
//      Throughput moves with the machine's load; the CPU a request costs much less.
//   2. Where it goes: both servers started again for `perf record` (every thread, call stacks; Node writes the
//      names of its compiled JavaScript for perf with --perf-basic-prof, and inlines nothing, so that each sample
//      keeps the function it is in), each sample given to a part of the request path by categories.mjs; the shares
//      times the CPU per request of step 1 give µs per request. Needs `perf` (linux-perf); without it, step 1 only.
//
//   node tools/bench/src/profile/request-profile.mjs [--server <main.js>] [--baseline <main.js>] [--path /api/v1/me]
//        [--duration 5] [--rounds 3] [--connections 20] [--floor request-floor.mjs, or a path]
//        [--floor-dialect sqlite-memory (P5's floor, /me only) | sqlite (on our file, /discussions too)]
//        [--no-floor] [--no-profile] [--top 30] [--json <file>] [--keep <dir>: keep the perf files]
//
// A/B: `--baseline` adds another build of our server (another checkout's) to the same interleaved rounds.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { floorScript } from '../lib/floors.mjs';
import { parseArgsUsage, textTable } from '../lib/format.mjs';
import { median, processCpuSeconds } from '../lib/measure.mjs';
import {
  freePort,
  installSignalHandlers,
  makeTempDir,
  removeTempDirs,
  spawnNode,
  stopAll,
  stopProcess,
  waitForOutput,
} from '../lib/processes.mjs';
import { DEFAULT_SERVER, startOurServer } from '../lib/server.mjs';
import { perfAvailable, perfCategories, startPerf } from './perf-samples.mjs';

const OPTIONS = {
  server: { type: 'string', default: DEFAULT_SERVER },
  path: { type: 'string', default: '/api/v1/me' },
  duration: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '3' },
  connections: { type: 'string', default: '20' },
  warmup: { type: 'string', default: '2' },
  baseline: { type: 'string' },
  floor: { type: 'string', default: 'request-floor.mjs' },
  'floor-dialect': { type: 'string', default: 'sqlite-memory' },
  'no-floor': { type: 'boolean', default: false },
  'no-profile': { type: 'boolean', default: false },
  top: { type: 'string', default: '0' },
  json: { type: 'string' },
  keep: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values: options } = parseArgs({ options: OPTIONS });
const seconds = Number(options.duration);
const connections = Number(options.connections);
/** Node's options for the profiled servers: JavaScript names for perf, and every function in a frame of its own. */
const PROFILED_NODE_ARGS = [
  '--perf-basic-prof',
  '--no-turbo-inlining',
  '--no-maglev-inlining',
  // V8's log would go to isolate-*.log in the working directory.
  '--logfile=/dev/null',
  '--no-logfile-per-isolate',
];

/** One build of our server on a fresh data directory of its own, started with `nodeArgs`. */
async function startOurs(name, entry, nodeArgs) {
  return { name, ...(await startOurServer(resolve(entry), {}, { nodeArgs })) };
}

/**
 * Our server, the floor on our server's database file (with our server's token), and with --baseline another
 * build of our server: each its own process, started with `nodeArgs`.
 */
async function startServers(nodeArgs = []) {
  const ours = await startOurs('ours', options.server, nodeArgs);
  const servers = { ours };
  if (options.baseline) servers.baseline = await startOurs('baseline', options.baseline, nodeArgs);
  if (!options['no-floor']) {
    const port = await freePort();
    const args = [
      String(port),
      options['floor-dialect'],
      join(ours.dataDir, 'assistant.sqlite'),
      'self-hosted',
    ];
    const script = isAbsolute(options.floor) ? options.floor : floorScript(options.floor);
    const handle = spawnNode('floor', script, args, process.env, { nodeArgs });
    await waitForOutput(handle, /floor listening on/, 'its address');
    servers.floor = {
      name: 'floor',
      handle,
      baseUrl: `http://127.0.0.1:${port}`,
      pid: handle.child.pid,
      token: ours.token,
    };
  }
  return servers;
}

/** One autocannon run: req/s, requests, and the server's CPU µs per request. */
async function load(server, duration = seconds) {
  const before = processCpuSeconds(server.pid);
  const result = await autocannon({
    url: `${server.baseUrl}${options.path}`,
    connections,
    duration,
    headers: { authorization: `Bearer ${server.token}` },
  });
  const cpu = processCpuSeconds(server.pid) - before;
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0)
    throw new Error(`${server.name}: ${failures} of ${result.requests.total} requests failed`);
  const requests = result.requests.total;
  return { rps: result.requests.average, requests, cpuUs: (cpu * 1e6) / requests };
}

async function warmUp(servers) {
  for (const server of Object.values(servers))
    for (let i = 0; i < Number(options.warmup); i++) await load(server, 2);
}

/** The order of round `round`: each server goes first in turn. */
const rotated = (names, round) => names.map((_, i) => names[(i + round) % names.length]);

async function measureCpu() {
  const servers = await startServers();
  try {
    await warmUp(servers);
    const names = Object.keys(servers);
    const runs = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < Number(options.rounds); round++) {
      for (const name of rotated(names, round)) {
        const run = await load(servers[name]);
        runs[name].push(run);
        console.log(
          `  round ${round + 1} ${name.padEnd(8)} ${Math.round(run.rps).toString().padStart(6)} req/s  ${run.cpuUs.toFixed(1).padStart(5)} µs CPU/request`,
        );
      }
    }
    return Object.fromEntries(
      names.map((name) => [
        name,
        { rps: median(runs[name].map((r) => r.rps)), cpuUs: median(runs[name].map((r) => r.cpuUs)) },
      ]),
    );
  } finally {
    await Promise.all(Object.values(servers).map((server) => stopProcess(server.handle)));
  }
}

/** Shares of each server's CPU by category, from perf samples of one loaded run. */
async function profileShares() {
  const servers = await startServers(PROFILED_NODE_ARGS);
  const dir = makeTempDir('assistant-profile-perf-');
  try {
    await warmUp(servers);
    for (const [name, server] of Object.entries(servers)) {
      const perf = startPerf(server.pid, join(dir, `${name}.data`));
      await load(server);
      await perf.stop();
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => stopProcess(server.handle)));
  }
  const shares = {};
  for (const [name, server] of Object.entries(servers)) {
    shares[name] = perfCategories(join(dir, `${name}.data`));
    const map = `/tmp/perf-${server.pid}.map`;
    if (options.keep) {
      mkdirSync(options.keep, { recursive: true });
      cpSync(join(dir, `${name}.data`), join(options.keep, `${name}.data`));
      cpSync(map, join(options.keep, `${name}.map`));
      console.log(
        `kept ${join(options.keep, `${name}.data`)} (perf script -i …; its JavaScript names: ${map})`,
      );
    } else rmSync(map, { force: true });
  }
  return shares;
}

async function main() {
  if (options.help) {
    console.log(parseArgsUsage('tools/bench/src/profile/request-profile.mjs', OPTIONS));
    return;
  }
  if (!existsSync(resolve(options.server))) throw new Error(`${options.server} does not exist: build first`);
  installSignalHandlers('the servers', async () => {
    await stopAll();
    removeTempDirs();
  });
  console.log(
    `${resolve(options.server)}\n${options.path}: ${connections} connections, ${options.rounds} rounds × ${seconds} s`,
  );
  const cpu = await measureCpu();
  const names = Object.keys(cpu);
  console.log('\nmedians');
  for (const name of names)
    console.log(
      `  ${name.padEnd(8)} ${Math.round(cpu[name].rps)} req/s, ${cpu[name].cpuUs.toFixed(1)} µs CPU/request`,
    );
  for (const other of ['floor', 'baseline'].filter((name) => cpu[name]))
    console.log(
      `  ours/${other}: req/s ${(cpu.ours.rps / cpu[other].rps).toFixed(2)}, ` +
        `CPU per request ${(cpu.ours.cpuUs / cpu[other].cpuUs).toFixed(3)}× (${other}/ours ${(cpu[other].cpuUs / cpu.ours.cpuUs).toFixed(2)})`,
    );
  const result = { path: options.path, cpu, categories: {} };

  if (!options['no-profile']) {
    if (!perfAvailable()) console.log('\nperf is not available here: no breakdown (install linux-perf)');
    else {
      const shares = await profileShares();
      const categories = new Set(names.flatMap((name) => [...shares[name].byCategory.keys()]));
      const usOf = (name, category) =>
        ((shares[name].byCategory.get(category) ?? 0) / shares[name].total) * cpu[name].cpuUs;
      const rows = [...categories]
        .sort((a, b) => usOf('ours', b) - usOf('ours', a))
        .map((category) => [
          category,
          ...names.map((name) =>
            shares[name].byCategory.has(category) ? usOf(name, category).toFixed(2) : '',
          ),
        ]);
      rows.push(['total', ...names.map((name) => cpu[name].cpuUs.toFixed(1))]);
      console.log(
        `\nµs of CPU per request (perf samples ${names.map((n) => `${n} ${shares[n].total}`).join(', ')})\n`,
      );
      console.log(textTable(rows, ['part of the request path', ...names.map((n) => `${n} µs`)]));
      for (const name of names) {
        result.categories[name] = Object.fromEntries([...categories].map((c) => [c, usOf(name, c)]));
        if (Number(options.top) === 0) continue;
        console.log(`\n${name}: the innermost function of the most samples`);
        const top = [...shares[name].byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(options.top));
        for (const [key, count] of top)
          console.log(
            `  ${((count / shares[name].total) * cpu[name].cpuUs).toFixed(2).padStart(6)} µs  ${key}`,
          );
      }
    }
  }
  if (options.json) writeFileSync(options.json, `${JSON.stringify(result, null, 2)}\n`);
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
