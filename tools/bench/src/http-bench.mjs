#!/usr/bin/env node
// HTTP benchmark of the self-hosted server against a bare Fastify 5 baseline, measured side by side in one run.
// On demand only (it is not a test): `npm run bench -- --help`.
//
// What it prints, for SQLite and (with --database-url) PostgreSQL:
//   - requests per second of GET /api/v1/me and GET /api/v1/discussions?limit=50, ours and bare, and ours/bare;
//   - time from spawn to the first 200 of GET /healthz, ours and bare, and ours/bare;
//   - the targets (PASS/MISS, informational: the exit code is 0 whatever the figures).
//
// Method:
//   1. Start our server (`assistant serve`, the CLI's bundle: lib/server.mjs) on a fresh temporary data directory: that first start
//      applies the migrations and writes credentials.json, whose token is used as `Authorization: Bearer`.
//      Seed 60 discussions with POST /api/v1/discussions, then capture the real responses of the measured paths.
//   2. Start the baseline (bare-server.mjs: `import Fastify from 'fastify'`, same version) serving those exact
//      bodies on the same paths, checking only that an Authorization header is present.
//   3. Each server is its own child process; autocannon runs in this process, so load generator and server do not
//      share an event loop (on 2 cores: one core each). Warm-up run per server and path, then interleaved rounds:
//      in every round each path is loaded on ours and on bare, alternating which goes first. Medians are reported.
//      Any non-2xx answer, socket error or timeout marks that round as failed: it is printed and left out of the
//      median, and the row reads FAILED instead of PASS/MISS.
//      CPU use of the server process (from /proc) and of this process is printed per round: a baseline whose
//      server is well below 100% CPU means the load generator, not the server, was the limit.
//   4. Start-up: stop both, then restart our server on the same (already migrated) data directory N times and the
//      bare server N times, interleaved, each time measuring from spawn to the first 200 of GET /healthz (polled
//      every 5 ms). Medians are reported.
//
// Run (the server must be built: `npx nx run-many -t build`):
//   npm run bench
//   npm run bench -- --duration 3 --rounds 3 --database-url 'postgres://postgres@127.0.0.1:5432/test'
// PostgreSQL: the bench adds `?schema=bench_<random>` to the URL (the server creates the schema) and drops that
// schema at the end; a URL that already names a schema is used as given and its schema is kept.
//
// Helpers shared with stream-bench.mjs (child processes, clean-up, /proc figures, statistics, formatting,
// options) live in ./lib/.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { formatRatio as ratio, percent, verdict } from './lib/format.mjs';
import { seedDiscussions } from './lib/api.mjs';
import { BARE_SERVER } from './lib/floors.mjs';
import { dropThrowawaySchemas, throwawaySchemaUrl } from './lib/postgres.mjs';
import { describeRun, formatInt, runLoad } from './lib/load.mjs';
import { interleaved, isNoisy, median } from './lib/measure.mjs';
import { optionHelpLines, parseOptionTable } from './lib/options.mjs';
import {
  describeExit,
  freePort,
  installSignalHandlers,
  makeTempDir,
  removeTempDirs,
  spawnNode,
  stopAll,
  stopProcess,
  waitForHealthz,
} from './lib/processes.mjs';
import {
  DEFAULT_SERVER,
  isServerStartOrStopLine,
  ourServerEnv,
  readToken,
  REPO_ROOT,
  serverArgs,
} from './lib/server.mjs';

const SEEDED_DISCUSSIONS = 60;
const POLL_INTERVAL_MS = 5;

/** The measured paths, with the minimum ours/bare ratio of requests per second we aim for (null: no target). */
const ENDPOINTS = [
  { label: 'GET /api/v1/me', path: '/api/v1/me', target: { sqlite: 0.6, postgres: 0.45 } },
  { label: 'GET /api/v1/discussions?limit=50', path: '/api/v1/discussions?limit=50', target: null },
];
/** Our start-up may take at most this many times the bare process's. */
const STARTUP_TARGET = 2;

// ------------------------------------------------------------------------------------------------ options

const OPTIONS = {
  duration: { env: 'BENCH_DURATION', default: '5', help: 'seconds of each measured autocannon run' },
  rounds: { env: 'BENCH_ROUNDS', default: '5', help: 'interleaved rounds per path and database' },
  connections: { env: 'BENCH_CONNECTIONS', default: '20', help: 'concurrent autocannon connections' },
  warmup: { env: 'BENCH_WARMUP', default: '2', help: 'seconds of warm-up per server and path (0: none)' },
  starts: {
    env: 'BENCH_STARTS',
    default: '7',
    help: 'start-up measurements per server and database (0: skip)',
  },
  'database-url': {
    env: 'BENCH_DATABASE_URL',
    default: '',
    help: 'postgres:// URL: also benchmark PostgreSQL',
  },
  server: {
    env: 'BENCH_SERVER',
    default: DEFAULT_SERVER,
    help: 'our server: an `assistant` command line (bin/run.js, run as serve) or a script that serves',
  },
};

function helpText() {
  const lines = optionHelpLines(OPTIONS);
  return [
    'Usage: npm run bench -- [options]        (or: node tools/bench/src/http-bench.mjs [options])',
    '',
    'Benchmarks our self-hosted server against a bare Fastify 5 server answering the same bodies, and prints',
    'medians and ours/bare ratios for GET /api/v1/me, GET /api/v1/discussions?limit=50 and the start-up time to the',
    'first 200 of GET /healthz. SQLite always (unless --skip-sqlite), PostgreSQL when --database-url is given.',
    '',
    'Options:',
    ...lines,
    '  --skip-sqlite    only benchmark PostgreSQL',
    '  -h, --help       this text',
    '',
    'Example: npm run bench -- --duration 3 --rounds 3 --database-url postgres://postgres@127.0.0.1:5432/test',
  ].join('\n');
}

function wholeNumber(name, raw, { allowZero = false } = {}) {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1))
    throw new Error(
      `--${name} must be a ${allowZero ? 'non-negative' : 'positive'} whole number (got "${raw}")`,
    );
  return value;
}

function parseOptions(argv, env) {
  const { values, raw } = parseOptionTable(OPTIONS, argv, env, ['skip-sqlite']);
  return {
    help: Boolean(values.help),
    duration: wholeNumber('duration', raw('duration')),
    rounds: wholeNumber('rounds', raw('rounds')),
    connections: wholeNumber('connections', raw('connections')),
    warmup: wholeNumber('warmup', raw('warmup'), { allowZero: true }),
    starts: wholeNumber('starts', raw('starts'), { allowZero: true }),
    databaseUrl: raw('database-url'),
    server: resolve(raw('server')),
    skipSqlite: Boolean(values['skip-sqlite']),
  };
}

/** The databases to run, in order. PostgreSQL gets a throwaway schema unless its URL names one. */
function databasesFrom(options) {
  const databases = [];
  if (!options.skipSqlite) databases.push({ name: 'SQLite', dialect: 'sqlite' });
  if (options.databaseUrl) {
    const named = new URL(options.databaseUrl).searchParams.get('schema');
    const url = named ? options.databaseUrl : throwawaySchemaUrl(options.databaseUrl).url;
    databases.push({ name: 'PostgreSQL', dialect: 'postgres', url });
  }
  return databases;
}

// -------------------------------------------------------------------------------------------- clean-up

let cleaningUp;
/** Stops every child process, drops the schemas this run created and removes the temporary directories. */
function cleanup() {
  cleaningUp ??= (async () => {
    await stopAll();
    await dropThrowawaySchemas();
    removeTempDirs();
  })();
  return cleaningUp;
}

// ---------------------------------------------------------------------------------------- child processes

async function spawnOurs(options, database, dataDir) {
  const port = await freePort();
  const env = ourServerEnv(dataDir, port, database.url ? { ASSISTANT_DATABASE_URL: database.url } : {});
  const handle = spawnNode('our server', options.server, serverArgs(options.server), env);
  return { handle, port };
}

async function spawnBare(routesFile) {
  const port = await freePort();
  const handle = spawnNode('bare fastify', BARE_SERVER, [String(port), routesFile], process.env);
  return { handle, port };
}

async function startReady(spawned) {
  await waitForHealthz(spawned.handle, spawned.port, POLL_INTERVAL_MS);
  return { ...spawned, baseUrl: `http://127.0.0.1:${spawned.port}` };
}

// ------------------------------------------------------------------------------------------ preparation

/** One real response per path, to be served verbatim by the bare server. */
async function captureRoute(baseUrl, path, token) {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`capturing ${path}: ${response.status} ${body}`);
  return { path, status: 200, contentType: response.headers.get('content-type'), body, public: !token };
}

async function captureRoutes(baseUrl, token) {
  const routes = [await captureRoute(baseUrl, '/healthz', null)];
  for (const endpoint of ENDPOINTS) routes.push(await captureRoute(baseUrl, endpoint.path, token));
  const page = JSON.parse(routes.find((r) => r.path.startsWith('/api/v1/discussions')).body);
  if (page.data?.length !== 50)
    throw new Error(`expected 50 discussions in the captured page, got ${page.data?.length}`);
  return routes;
}

// ------------------------------------------------------------------------------------------- measurement

async function warmUp(servers, token, options) {
  if (options.warmup === 0) return;
  console.log(`  warm-up: ${options.warmup} s per server and path`);
  for (const endpoint of ENDPOINTS) {
    for (const [name, server] of Object.entries(servers)) {
      const run = await runLoad(server, endpoint.path, token, options.warmup, options.connections);
      if (run.failed) console.log(`  warm-up ${endpoint.label}: ${describeRun(name, run)}`);
    }
  }
}

/** Interleaved rounds: every round loads every path on both servers, alternating which server goes first. */
async function measureThroughput(servers, token, options) {
  const runs = Object.fromEntries(ENDPOINTS.map((e) => [e.path, { ours: [], bare: [] }]));
  for (let round = 0; round < options.rounds; round++) {
    const order = interleaved(round, 'ours', 'bare');
    for (const endpoint of ENDPOINTS) {
      const parts = [];
      for (const name of order) {
        const run = await runLoad(servers[name], endpoint.path, token, options.duration, options.connections);
        runs[endpoint.path][name].push(run);
        parts.push(describeRun(name, run));
      }
      console.log(`  round ${round + 1}/${options.rounds} ${endpoint.label}\n    ${parts.join('\n    ')}`);
    }
  }
  return runs;
}

/** Spawn-to-first-200 of GET /healthz, in milliseconds; the process is stopped afterwards. */
async function timeStartup(spawnServer) {
  const t0 = performance.now();
  const spawned = await spawnServer();
  await waitForHealthz(spawned.handle, spawned.port, POLL_INTERVAL_MS);
  const elapsed = performance.now() - t0;
  await stopProcess(spawned.handle);
  return { ms: elapsed, handle: spawned.handle };
}

async function measureStartup(options, database, dataDir, routesFile) {
  const times = { ours: [], bare: [] };
  const problems = [];
  const spawners = { ours: () => spawnOurs(options, database, dataDir), bare: () => spawnBare(routesFile) };
  console.log(`  start-up: load average ${os.loadavg()[0].toFixed(2)}`);
  for (let i = 0; i < options.starts; i++) {
    const order = interleaved(i, 'ours', 'bare');
    for (const name of order) {
      const start = await timeStartup(spawners[name]);
      times[name].push(start.ms);
      const found = name === 'ours' ? ourServerProblems(start.handle, dataDir) : bareProblems(start.handle);
      problems.push(...found.map((line) => `${name}, start ${i + 1}: ${line}`));
    }
    console.log(
      `  start ${i + 1}/${options.starts}: ours ${times.ours.at(-1).toFixed(0)} ms, bare ${times.bare.at(-1).toFixed(0)} ms`,
    );
  }
  return { times, problems };
}

/** Our server's output other than the lines it prints when it starts and stops. */
function unexpectedOutput(lines) {
  return lines.filter((line) => !isServerStartOrStopLine(line));
}

function bareProblems(handle) {
  return handle.exit.code === 0 ? [] : [`exited by ${describeExit(handle.exit)} after SIGTERM`];
}

/** What looked wrong about a stopped instance of our server: its output, its exit, a lock file left behind. */
function ourServerProblems(handle, dataDir) {
  const problems = unexpectedOutput(handle.output);
  if (handle.exit.code !== 0)
    problems.push(`exited by ${describeExit(handle.exit)} after SIGTERM (expected code 0)`);
  if (existsSync(join(dataDir, 'server.lock')))
    problems.push('left server.lock in the data directory after SIGTERM');
  return problems;
}

// ------------------------------------------------------------------------------------ statistics, output

/** A warning when other processes used the CPUs during some runs. */
function noiseWarnings(runs) {
  const all = Object.values(runs).flatMap(({ ours, bare }) => [...ours, ...bare]);
  const noisy = all.filter((run) => isNoisy(run.otherCpu));
  if (noisy.length === 0) return [];
  const worst = Math.max(...noisy.map((run) => run.otherCpu));
  return [
    `bench: ${noisy.length} of ${all.length} runs shared the CPUs with other processes (up to ${percent(worst)} of a core): less reliable`,
  ];
}

/** One summary row per path: medians over the rounds without failures. */
function throughputRows(database, runs) {
  return ENDPOINTS.map((endpoint) => {
    const { ours, bare } = runs[endpoint.path];
    const ok = (list) => list.filter((run) => !run.failed).map((run) => run.rps);
    const failedRounds = ours.filter((r) => r.failed).length + bare.filter((r) => r.failed).length;
    const oursRps = median(ok(ours));
    const bareRps = median(ok(bare));
    const value = oursRps / bareRps;
    const target = endpoint.target?.[database.dialect];
    let status =
      target === undefined ? '(no target)' : `target ≥ ${target.toFixed(2)}×  ${verdict(value >= target)}`;
    if (failedRounds > 0)
      status = `FAILED (${failedRounds} failed run(s) left out; non-2xx or errors, see above)`;
    return `  ${endpoint.label.padEnd(34)} ours ${formatInt(oursRps).padStart(7)}  bare ${formatInt(bareRps).padStart(7)} req/s  ours/bare ${ratio(value).padStart(6)}  ${status}`;
  });
}

function startupRow(startup) {
  const ours = median(startup.times.ours);
  const bare = median(startup.times.bare);
  const value = ours / bare;
  const range = (list) => `${Math.min(...list).toFixed(0)}–${Math.max(...list).toFixed(0)}`;
  return (
    `  ${'start-up to first 200 /healthz'.padEnd(34)} ours ${ours.toFixed(0).padStart(5)} ms (${range(startup.times.ours)})  ` +
    `bare ${bare.toFixed(0).padStart(4)} ms (${range(startup.times.bare)})  ours/bare ${ratio(value)}  ` +
    `target ≤ ${STARTUP_TARGET.toFixed(2)}×  ${verdict(value <= STARTUP_TARGET)}`
  );
}

function gitRevision() {
  try {
    return execFileSync('git', ['-C', REPO_ROOT, 'describe', '--always', '--dirty'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown';
  }
}

function printHeader(options, databases) {
  const cpus = os.cpus();
  const fastifyVersion = createRequire(BARE_SERVER)('fastify/package.json').version;
  console.log(
    'HTTP benchmark: our self-hosted server vs a bare Fastify server (ratios measured side by side)',
  );
  console.log(
    `  node ${process.version}, ${os.platform()} ${os.release()}, ${cpus.length} cores: ${cpus[0]?.model ?? 'unknown CPU'}`,
  );
  console.log(`  our server: ${options.server} (git ${gitRevision()}); baseline: fastify ${fastifyVersion}`);
  console.log(
    `  settings: ${options.rounds} rounds × ${options.duration} s, ${options.connections} connections, ` +
      `warm-up ${options.warmup} s, ${options.starts} starts, ${SEEDED_DISCUSSIONS} seeded discussions`,
  );
  console.log(`  databases: ${databases.map((d) => (d.url ? `${d.name} (${d.url})` : d.name)).join(', ')}`);
  const load = os.loadavg().map((x) => x.toFixed(2));
  console.log(
    `  load average before the run: ${load.join(', ')} (other processes on the machine skew the figures)`,
  );
}

// ----------------------------------------------------------------------------------------------- main

/** Everything for one database: prepare, throughput rounds, start-up; returns the summary lines. */
async function benchDatabase(options, database) {
  console.log(`\n== ${database.name}`);
  const dataDir = makeTempDir('assistant-bench-data-');

  const ours = await startReady(await spawnOurs(options, database, dataDir));
  const token = readToken(dataDir);
  await seedDiscussions(ours.baseUrl, token, SEEDED_DISCUSSIONS);
  const routesFile = join(dataDir, 'bare-routes.json');
  writeFileSync(routesFile, JSON.stringify({ routes: await captureRoutes(ours.baseUrl, token) }));
  const bare = await startReady(await spawnBare(routesFile));
  console.log(
    `  ours on ${ours.baseUrl} (pid ${ours.handle.child.pid}), bare on ${bare.baseUrl} (pid ${bare.handle.child.pid})`,
  );

  await warmUp({ ours, bare }, token, options);
  const runs = await measureThroughput({ ours, bare }, token, options);
  await Promise.all([stopProcess(ours.handle), stopProcess(bare.handle)]);
  const problems = ourServerProblems(ours.handle, dataDir).map((line) => `ours, load phase: ${line}`);
  problems.push(...noiseWarnings(runs));

  const lines = throughputRows(database, runs);
  if (options.starts > 0) {
    const startup = await measureStartup(options, database, dataDir, routesFile);
    lines.push(startupRow(startup));
    problems.push(...startup.problems);
  }
  return { database, lines, problems };
}

/** A database whose run breaks (server does not start, seeding fails...) is reported; the next one still runs. */
async function benchDatabaseOrReport(options, database) {
  try {
    return await benchDatabase(options, database);
  } catch (error) {
    console.error(`  ${database.name} run failed: ${error.message}`);
    await stopAll();
    return { database, lines: [`  run FAILED: ${error.message.split('\n')[0]}`], problems: [] };
  }
}

/** Notes as `context: text`, the same text from several contexts printed once ("ours, start 1, 2, 3: ..."). */
function groupedNotes(notes) {
  const contexts = new Map();
  for (const note of notes) {
    const [context, text] = note.split(/: (.*)/s);
    contexts.set(text, [...(contexts.get(text) ?? []), context]);
  }
  return [...contexts].map(([text, where]) => `${where.join('; ')}: ${text}`);
}

function printSummary(results) {
  console.log('\n== Summary (medians; ratios are ours/bare; targets are informational)');
  for (const { database, lines, problems } of results) {
    console.log(`${database.name}`);
    for (const line of lines) console.log(line);
    for (const line of groupedNotes(problems)) console.log(`    ${line}`);
  }
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${error.message}\n\n${helpText()}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(helpText());
    return;
  }
  if (!existsSync(options.server)) {
    console.error(`${options.server} does not exist: build first (npx nx run-many -t build)`);
    process.exit(1);
  }
  const databases = databasesFrom(options);
  installSignalHandlers('the servers', cleanup);
  printHeader(options, databases);
  const results = [];
  try {
    for (const database of databases) results.push(await benchDatabaseOrReport(options, database));
  } finally {
    await cleanup();
  }
  printSummary(results);
}

main().catch((error) => {
  console.error(`bench failed: ${error.stack ?? error}`);
  cleanup().finally(() => process.exit(1));
});
