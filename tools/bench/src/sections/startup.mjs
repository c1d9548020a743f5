// Issue 10, P10: start-up and the command line.
//   start-up  spawn → first 200 of GET /healthz (polled every 5 ms) of `assistant serve` (apps/cli/bin/run.js, the
//             CLI's bundle; --server another, lib/server.mjs) on
//             a fresh data directory each time, so its migrations run in the measured time, against a bare
//             Fastify process answering that one route (bare-server.mjs); both include starting Node.
//   chat      wall time of `assistant chat "<question>" --url --token` against a running server (builtin model,
//             pacing 0) until it exits, against `curl` doing the same POST /api/v1/queries and reading the stream
//             to its end. Both are spawned the same way by this process, which adds the same to each.
// A round is one start (or chat) of each, alternating which goes first; the figures are the per-round ratio of the
// starts and difference of the chats, over adaptive rounds (lib/adaptive-rounds.mjs).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { adaptiveRounds } from '../lib/adaptive-rounds.mjs';
import { interleaved } from '../lib/measure.mjs';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  spawnNode,
  stopProcess,
  waitForHealthz,
} from '../lib/processes.mjs';
import { figureRow, ms, msDiff } from '../lib/report.mjs';
import { callerEnvWithoutSettings, cliOf, ourServerEnv, serverArgs, startOurServer } from '../lib/server.mjs';
import { BARE_SERVER } from '../lib/floors.mjs';

const POLL_INTERVAL_MS = 5;
const STARTUP_RATIO = 2;
const CHAT_ADDED_MS = 150;
const QUESTION = 'What can you do?';

/** Milliseconds from spawn to the first 200 of /healthz; the process is stopped afterwards. */
async function timeStart(name, script, args, env, port) {
  const t0 = performance.now();
  const handle = spawnNode(name, script, args, env, { maxOutput: 100 });
  await waitForHealthz(handle, port, POLL_INTERVAL_MS);
  const elapsed = performance.now() - t0;
  await stopProcess(handle);
  return elapsed;
}

async function startOurs(server) {
  const dataDir = makeTempDir('assistant-bench-start-');
  const port = await freePort();
  try {
    return await timeStart('assistant serve', server, serverArgs(server), ourServerEnv(dataDir, port), port);
  } finally {
    removeTempDir(dataDir);
  }
}

async function startBare(routesFile) {
  const port = await freePort();
  return timeStart('bare fastify', BARE_SERVER, [String(port), routesFile], process.env, port);
}

/** Runs a command to its end; resolves { ms, stdout }, rejects on a non-zero exit. */
function timeCommand(file, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(file, args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const elapsed = performance.now() - t0;
      if (error) reject(new Error(`${file} ${args[0]} failed: ${error.message}${stderr}`));
      else resolve({ ms: elapsed, stdout });
    });
  });
}

export async function startup(ctx) {
  const { options, log } = ctx;
  const failures = [];
  const routesFile = join(makeTempDir('assistant-bench-routes-'), 'routes.json');
  const healthz = {
    path: '/healthz',
    status: 200,
    contentType: 'application/json',
    body: '{"status":"ok"}',
    public: true,
  };
  writeFileSync(routesFile, JSON.stringify({ routes: [healthz] }));
  const startFigure = {
    key: 'start',
    id: 'P10',
    metric: 'start-up to first 200, fresh data dir',
    compare: 'ratio',
    target: { op: '<=', limit: STARTUP_RATIO },
    targetText: `≤ ${STARTUP_RATIO} × bare Fastify`,
    show: (milliseconds) => ms(milliseconds * 1e6),
  };
  const starts = await adaptiveRounds({
    figures: [startFigure],
    rule: ctx.rule,
    round: async (index) => {
      const measured = {};
      for (const name of interleaved(index, 'ours', 'floor'))
        measured[name] = name === 'ours' ? await startOurs(options.server) : await startBare(routesFile);
      log(`  start ${index + 1}: ours ${measured.ours.toFixed(0)} ms, bare ${measured.floor.toFixed(0)} ms`);
      return { start: measured };
    },
  });
  const rows = [figureRow(startFigure, starts.figures.start)];

  const server = await startOurServer(options.server, {
    ASSISTANT_MODEL: 'builtin',
    ASSISTANT_BUILTIN_PACING_MS: '0',
  });
  try {
    const env = callerEnvWithoutSettings();
    const chat = () =>
      timeCommand(
        process.execPath,
        [cliOf(options.server), 'chat', QUESTION, '--url', server.baseUrl, '--token', server.token],
        env,
      );
    const curl = () =>
      timeCommand(
        'curl',
        [
          '-sSfN',
          '-X',
          'POST',
          `${server.baseUrl}/api/v1/queries`,
          '-H',
          `authorization: Bearer ${server.token}`,
          '-H',
          'content-type: application/json',
          '-H',
          'accept: text/event-stream',
          '--data',
          JSON.stringify({ text: QUESTION }),
        ],
        env,
      );
    const chatFigure = {
      key: 'chat',
      id: 'P10',
      metric: '`assistant chat` wall, one short query (floor: curl)',
      compare: 'difference',
      target: { op: '<=', limit: CHAT_ADDED_MS },
      targetText: `≤ curl + ${CHAT_ADDED_MS} ms`,
      show: (milliseconds) => ms(milliseconds * 1e6),
      showCompared: (milliseconds) => msDiff(milliseconds * 1e6),
    };
    const chats = await adaptiveRounds({
      figures: [chatFigure],
      rule: ctx.rule,
      round: async (index) => {
        const walls = {};
        for (const name of interleaved(index, 'chat', 'curl')) {
          const result = await (name === 'chat' ? chat() : curl());
          if (name === 'curl' && !result.stdout.includes('query.completed'))
            failures.push(`curl: the stream did not end with query.completed: ${result.stdout.slice(-300)}`);
          if (name === 'chat' && result.stdout.trim() === '')
            failures.push('assistant chat printed no answer');
          walls[name] = result.ms;
        }
        log(
          `  chat ${index + 1}: assistant chat ${walls.chat.toFixed(0)} ms, curl ${walls.curl.toFixed(0)} ms`,
        );
        return { chat: { ours: walls.chat, floor: walls.curl } };
      },
    });
    rows.push(figureRow(chatFigure, chats.figures.chat));
  } finally {
    await stopProcess(server.handle);
  }
  return { rows, notes: [], failures };
}
