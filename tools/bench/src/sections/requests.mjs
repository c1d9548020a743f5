// Issue 10 and 23, P5/P5b: requests per second of GET /api/v1/me and GET /api/v1/discussions?limit=50 on our
// self-hosted server against floors/request-floor.mjs doing the same essential work:
//   P5  (/me)           SQLite: our server's users and tokens copied into an in-memory database (issue 23's floor);
//                       PostgreSQL: our server's throwaway schema;
//   P5b (/discussions)  SQLite: our server's own file (the listing reads the same pages ours reads);
//                       PostgreSQL: our server's throwaway schema.
// Before measuring, every floor's answer is compared with ours (lib/request-floors.mjs): a floor that answers
// differently would measure something else, so that is a bench failure. autocannon (lib/load.mjs) loads ours and
// the floor in turn, interleaved rounds after a warm-up, as many as the figure needs (lib/adaptive-rounds.mjs: the
// per-round ratio ours/floor). A run with a non-2xx answer, an error or a timeout gives its round nothing and is
// reported as a bench failure.
import { join } from 'node:path';
import { adaptiveRounds, describeRule } from '../lib/adaptive-rounds.mjs';
import { seedDiscussions } from '../lib/api.mjs';
import { describeRun, runLoad } from '../lib/load.mjs';
import { interleaved } from '../lib/measure.mjs';
import { throwawaySchemaUrl } from '../lib/postgres.mjs';
import { stopProcess } from '../lib/processes.mjs';
import { figureRow, rps } from '../lib/report.mjs';
import { differencesFromOurs, startRequestFloor } from '../lib/request-floors.mjs';
import { startOurServer } from '../lib/server.mjs';

const SEEDED_DISCUSSIONS = 60;
/** Each endpoint's floor and target (the least ours/floor of requests per second) by dialect. */
export const ENDPOINTS = [
  {
    id: 'P5',
    path: '/api/v1/me',
    label: 'GET /me req/s',
    floor: { sqlite: 'sqlite-memory', postgres: 'postgres' },
    target: { sqlite: 0.6, postgres: 0.5 },
  },
  {
    id: 'P5b',
    path: '/api/v1/discussions?limit=50',
    label: 'GET /discussions?limit=50 req/s',
    floor: { sqlite: 'sqlite', postgres: 'postgres' },
    target: { sqlite: 0.5, postgres: 0.5 },
  },
];
const FLOOR_WORDS = {
  'sqlite-memory': 'floor on an in-memory copy',
  sqlite: 'floor on our file',
  postgres: 'floor on our schema',
};

async function benchDatabase(ctx, database) {
  const { options, log } = ctx;
  const ours = await startOurServer(options.server, database.env);
  const floors = {};
  const failures = [];
  try {
    await seedDiscussions(ours.baseUrl, ours.token, SEEDED_DISCUSSIONS);
    for (const { floor } of ENDPOINTS)
      floors[floor[database.dialect]] ??= await startRequestFloor(
        floor[database.dialect],
        database.location(ours),
      );
    for (const { path, floor } of ENDPOINTS)
      failures.push(...(await differencesFromOurs(ours, floors[floor[database.dialect]], path, ours.token)));
    if (failures.length > 0) return { rows: [], failures };

    const load = (server, path, seconds) => runLoad(server, path, ours.token, seconds, options.connections);
    for (let round = 0; round < options.warmup; round += 1)
      for (const { path, floor } of ENDPOINTS)
        for (const server of [ours, floors[floor[database.dialect]]]) await load(server, path, 1);

    const rows = [];
    for (const { id, path, label, floor: floorOf, target } of ENDPOINTS) {
      const kind = floorOf[database.dialect];
      const servers = { ours, floor: floors[kind] };
      const figure = {
        key: id,
        id: `${id} (${database.name})`,
        metric: `${label} (${FLOOR_WORDS[kind]})`,
        compare: 'ratio',
        target: { op: '>=', limit: target[database.dialect] },
        targetText: `≥ ${target[database.dialect]} × floor`,
        show: rps,
      };
      const result = await adaptiveRounds({
        figures: [figure],
        rule: ctx.rule,
        round: async (index) => {
          const measured = {};
          for (const name of interleaved(index, 'ours', 'floor')) {
            const run = await load(servers[name], path, options.duration);
            log(`  ${database.name} ${label} round ${index + 1}: ${describeRun(name, run)}`);
            if (run.failed) failures.push(`${database.name} ${path} ${name}: ${describeRun(name, run)}`);
            measured[name] = run.failed ? NaN : run.rps;
          }
          return { [id]: measured };
        },
      });
      log(`  ${database.name} ${label}: ${result.rounds} rounds, stopped by ${result.stoppedBy}`);
      rows.push(figureRow(figure, result.figures[id]));
    }
    return { rows, failures };
  } finally {
    await Promise.all([ours, ...Object.values(floors)].map((server) => stopProcess(server.handle)));
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
      `requests: autocannon, ${ctx.options.connections} connections, ${ctx.options.duration} s per run; ${describeRule(ctx.rule)}`,
    ],
    failures,
  };
}
