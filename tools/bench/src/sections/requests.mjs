// Issue 10, P5/P5b: requests per second of GET /api/v1/me and GET /api/v1/discussions?limit=50 on our
// self-hosted server against floors/request-floor.mjs doing the same essential work on the same database
// (SQLite: our server's own file; PostgreSQL: our server's throwaway schema).
// Before measuring, both answers of every path are compared: a floor that answers differently from ours would
// measure something else, so that is a bench failure. autocannon (lib/load.mjs) loads each server in turn,
// interleaved rounds after a warm-up; medians over the rounds. A run with a non-2xx answer, an error or a
// timeout is left out of the median and reported as a bench failure.
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { seedDiscussions } from '../lib/api.mjs';
import { floorScript } from '../lib/floors.mjs';
import { describeRun, runLoad } from '../lib/load.mjs';
import { interleaved, median } from '../lib/measure.mjs';
import { throwawaySchemaUrl } from '../lib/postgres.mjs';
import { freePort, spawnNode, stopProcess, waitForOutput } from '../lib/processes.mjs';
import { atLeast, row, rps } from '../lib/report.mjs';
import { startOurServer } from '../lib/server.mjs';

const SEEDED_DISCUSSIONS = 60;
const ENDPOINTS = [
  { id: 'P5', path: '/api/v1/me', label: 'GET /me req/s', target: { sqlite: 0.6, postgres: 0.5 } },
  {
    id: 'P5b',
    path: '/api/v1/discussions?limit=50',
    label: 'GET /discussions?limit=50 req/s',
    target: { sqlite: 0.5, postgres: 0.5 },
  },
];

async function startFloor(dialect, location) {
  const port = await freePort();
  const args = [String(port), dialect, location, 'self-hosted'];
  const handle = spawnNode(`request floor (${dialect})`, floorScript('request-floor.mjs'), args, process.env);
  await waitForOutput(handle, /floor listening on/, 'its address');
  return { handle, baseUrl: `http://127.0.0.1:${port}` };
}

async function getJson(baseUrl, path, token) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  return { status: response.status, body, rateLimited: response.headers.has('x-ratelimit-remaining') };
}

/** Differences between the floor's answers and ours (empty when both answer the same). */
async function compareAnswers(ours, floor, token) {
  const problems = [];
  for (const { path } of ENDPOINTS) {
    const [a, b] = await Promise.all([
      getJson(ours.baseUrl, path, token),
      getJson(floor.baseUrl, path, token),
    ]);
    if (a.status !== 200 || b.status !== 200) problems.push(`${path}: ours ${a.status}, floor ${b.status}`);
    else if (!isDeepStrictEqual(a.body, b.body))
      problems.push(
        `${path}: the floor's JSON differs from ours:\n  ours  ${JSON.stringify(a.body)}\n  floor ${JSON.stringify(b.body)}`,
      );
    if (!b.rateLimited) problems.push(`${path}: the floor sent no rate-limit headers`);
  }
  return problems;
}

async function benchDatabase(ctx, database) {
  const { options, log } = ctx;
  const ours = await startOurServer(options.server, database.env);
  const floor = await startFloor(database.dialect, database.location(ours));
  const servers = { ours, floor };
  try {
    await seedDiscussions(ours.baseUrl, ours.token, SEEDED_DISCUSSIONS);
    const failures = await compareAnswers(ours, floor, ours.token);
    if (failures.length > 0) return { rows: [], failures };
    const load = (name, path, seconds) =>
      runLoad(servers[name], path, ours.token, seconds, options.connections);
    for (let round = 0; round < options.warmup; round += 1)
      for (const { path } of ENDPOINTS) for (const name of ['ours', 'floor']) await load(name, path, 1);

    const runs = Object.fromEntries(ENDPOINTS.map(({ path }) => [path, { ours: [], floor: [] }]));
    for (let round = 0; round < options.rounds; round += 1) {
      for (const { path, label } of ENDPOINTS) {
        for (const name of interleaved(round, 'ours', 'floor')) {
          const run = await load(name, path, options.duration);
          runs[path][name].push(run);
          log(`  ${database.name} round ${round + 1} ${label}: ${describeRun(name, run)}`);
          if (run.failed) failures.push(`${database.name} ${path} ${name}: ${describeRun(name, run)}`);
        }
      }
    }
    const rows = ENDPOINTS.map(({ id, path, label, target }) => {
      const good = (name) => median(runs[path][name].filter((r) => !r.failed).map((r) => r.rps));
      const [oursRps, floorRps] = [good('ours'), good('floor')];
      const ratio = target[database.dialect];
      return row(
        `${id} (${database.name})`,
        `${label} (ours/floor ${(oursRps / floorRps).toFixed(2)})`,
        rps(floorRps),
        rps(oursRps),
        `≥ ${ratio} × floor`,
        atLeast(oursRps, ratio * floorRps),
      );
    });
    return { rows, failures };
  } finally {
    await Promise.all([stopProcess(ours.handle), stopProcess(floor.handle)]);
  }
}

export async function requests(ctx) {
  const databases = [
    {
      name: 'SQLite',
      dialect: 'sqlite',
      env: {},
      location: (ours) => join(ours.dataDir, 'assistant.sqlite'),
    },
  ];
  if (ctx.options.databaseUrl) {
    const { url } = throwawaySchemaUrl(ctx.options.databaseUrl);
    databases.push({
      name: 'PostgreSQL',
      dialect: 'postgres',
      env: { ASSISTANT_DATABASE_URL: url },
      location: () => url,
    });
  }
  const rows = [];
  const failures = [];
  for (const database of databases) {
    const result = await benchDatabase(ctx, database);
    rows.push(...result.rows);
    failures.push(...result.failures);
  }
  return {
    rows,
    notes: [
      `requests: ${ctx.options.connections} connections, ${ctx.options.rounds} rounds × ${ctx.options.duration} s`,
    ],
    failures,
  };
}
