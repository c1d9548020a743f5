// Issue 10, P10: start-up and the command line.
//   start-up  spawn → first 200 of GET /healthz (polled every 5 ms) of `assistant serve` (apps/cli/bin/run.js) on
//             a fresh data directory each time, so its migrations run in the measured time, against a bare
//             Fastify process answering that one route (bare-server.mjs); both include starting Node.
//   chat      wall time of `assistant chat "<question>" --url --token` against a running server (builtin model,
//             pacing 0) until it exits, against `curl` doing the same POST /api/v1/queries and reading the stream
//             to its end. Both are spawned the same way by this process, which adds the same to each.
// Starts and chats alternate which goes first; medians.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { interleaved, median } from '../lib/measure.mjs';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  spawnNode,
  stopProcess,
  waitForHealthz,
} from '../lib/processes.mjs';
import { atMost, ms, row } from '../lib/report.mjs';
import { callerEnvWithoutSettings, CLI, ourServerEnv, startOurServer } from '../lib/server.mjs';
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

async function startOurs() {
  const dataDir = makeTempDir('assistant-bench-start-');
  const port = await freePort();
  try {
    return await timeStart('assistant serve', CLI, ['serve'], ourServerEnv(dataDir, port), port);
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
  const starts = { ours: [], bare: [] };
  for (let i = 0; i < options.starts; i += 1) {
    for (const name of interleaved(i, 'ours', 'bare'))
      starts[name].push(name === 'ours' ? await startOurs() : await startBare(routesFile));
    log(
      `  start ${i + 1}/${options.starts}: ours ${starts.ours.at(-1).toFixed(0)} ms, bare ${starts.bare.at(-1).toFixed(0)} ms`,
    );
  }
  const [oursStart, bareStart] = [median(starts.ours), median(starts.bare)];
  const rows = [
    row(
      'P10',
      `start-up to first 200, fresh data dir (ours/bare ${(oursStart / bareStart).toFixed(2)})`,
      ms(bareStart * 1e6),
      ms(oursStart * 1e6),
      `≤ ${STARTUP_RATIO} × bare Fastify`,
      atMost(oursStart, STARTUP_RATIO * bareStart),
    ),
  ];

  const server = await startOurServer(options.server, {
    ASSISTANT_MODEL: 'builtin',
    ASSISTANT_BUILTIN_PACING_MS: '0',
  });
  try {
    const env = callerEnvWithoutSettings();
    const chat = () =>
      timeCommand(
        process.execPath,
        [CLI, 'chat', QUESTION, '--url', server.baseUrl, '--token', server.token],
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
    const walls = { chat: [], curl: [] };
    for (let i = 0; i < options.chats; i += 1) {
      for (const name of interleaved(i, 'chat', 'curl')) {
        const result = await (name === 'chat' ? chat() : curl());
        if (name === 'curl' && !result.stdout.includes('query.completed'))
          failures.push(`curl: the stream did not end with query.completed: ${result.stdout.slice(-300)}`);
        if (name === 'chat' && result.stdout.trim() === '') failures.push('assistant chat printed no answer');
        walls[name].push(result.ms);
      }
      log(
        `  chat ${i + 1}/${options.chats}: assistant chat ${walls.chat.at(-1).toFixed(0)} ms, curl ${walls.curl.at(-1).toFixed(0)} ms`,
      );
    }
    const [chatMs, curlMs] = [median(walls.chat), median(walls.curl)];
    rows.push(
      row(
        'P10',
        '`assistant chat` wall, one short query',
        ms(curlMs * 1e6),
        ms(chatMs * 1e6),
        `≤ curl + ${CHAT_ADDED_MS} ms`,
        atMost(chatMs, curlMs + CHAT_ADDED_MS),
      ),
    );
  } finally {
    await stopProcess(server.handle);
  }
  return { rows, notes: [], failures };
}
