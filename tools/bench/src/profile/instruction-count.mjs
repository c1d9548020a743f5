#!/usr/bin/env node
// Machine instructions one request costs in our server, counted by valgrind's callgrind: unlike CPU time, the count
// does not move with the machine's load or speed, so two builds can be compared on a busy or slow machine, and a
// change of one or two percent shows (CPU-time A/Bs of request-profile.mjs need a quiet machine for that).
//
//   node tools/bench/src/profile/instruction-count.mjs [--server <bin/run.js>] [--baseline <bin/run.js>]
//        [--path /api/v1/me] [--warmup 20000] [--requests 3000] [--repeat 2]
//
// Each server is started under callgrind with its counting off, on a fresh data directory, with V8 on one thread
// (`--single-threaded`: no background compiler or GC threads whose timing would change the count); after
// `--warmup` requests (one connection, one after another) counting is switched on for `--requests` more, and the
// instructions of every thread over them are divided by their number. Builds are taken in turns, `--repeat` times
// each. Instructions are not time: a system call or a cache miss counts for little, so this sees the cost of our
// code, not of the kernel's work (CPU per request: request-profile.mjs). Under callgrind a server runs ~50× slower:
// ~1 minute per server and repeat with the defaults. Needs valgrind (Debian's `valgrind`).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { interleaved, median } from '../lib/measure.mjs';
import {
  freePort,
  makeTempDir,
  removeTempDirs,
  sleep,
  spawnNode,
  stopAll,
  stopProcess,
  waitForHealthz,
} from '../lib/processes.mjs';
import { DEFAULT_SERVER, ourServerEnv, readToken, serverArgs } from '../lib/server.mjs';

const OPTIONS = {
  server: { type: 'string', default: DEFAULT_SERVER },
  baseline: { type: 'string' },
  path: { type: 'string', default: '/api/v1/me' },
  warmup: { type: 'string', default: '20000' },
  requests: { type: 'string', default: '3000' },
  repeat: { type: 'string', default: '2' },
  help: { type: 'boolean', short: 'h', default: false },
};

/** The server's calls of `path`, one after another on one connection; the number answered 2xx. */
function load(baseUrl, path, token, amount) {
  return new Promise((resolveLoad, reject) => {
    autocannon(
      { url: `${baseUrl}${path}`, connections: 1, amount, headers: { authorization: `Bearer ${token}` } },
      (error, result) => (error ? reject(error) : resolveLoad(result['2xx'])),
    );
  });
}

/** Instructions per request of the server `entry`, counted over `requests` after `warmup`. */
async function countOnce(entry, { path, warmup, requests }) {
  const dataDir = makeTempDir('instruction-count-data-');
  const outDir = makeTempDir('instruction-count-callgrind-');
  const port = await freePort();
  const handle = spawnNode(
    'our server under callgrind',
    entry,
    serverArgs(entry),
    ourServerEnv(dataDir, port),
    {
      maxOutput: 200,
      nodeArgs: ['--single-threaded'],
      wrapper: [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${outDir}/callgrind.%p`,
      ],
    },
  );
  try {
    await waitForHealthz(handle, port, 200);
    const baseUrl = `http://127.0.0.1:${port}`;
    const token = readToken(dataDir);
    await load(baseUrl, path, token, warmup);
    const control = (...args) =>
      execFileSync('callgrind_control', [...args, String(handle.child.pid)], { stdio: 'ignore' });
    control('--instr=on');
    const answered = await load(baseUrl, path, token, requests);
    control('--instr=off');
    control('--dump');
    if (answered !== requests) throw new Error(`${requests - answered} of ${requests} requests were not 2xx`);
    await sleep(500);
    let instructions = 0;
    for (const file of readdirSync(outDir)) {
      const totals = /^totals:\s+(\d+)/m.exec(readFileSync(`${outDir}/${file}`, 'utf8'));
      if (totals) instructions += Number(totals[1]);
    }
    if (instructions === 0) throw new Error(`callgrind wrote no count in ${outDir}`);
    return instructions / requests;
  } finally {
    await stopProcess(handle);
  }
}

async function main() {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    console.log(
      readFileSync(new URL(import.meta.url), 'utf8')
        .split('\n')
        .slice(1, 16)
        .map((line) => line.replace(/^\/\/ ?/, ''))
        .join('\n'),
    );
    return;
  }
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  const settings = {
    path: values.path,
    warmup: Number(values.warmup),
    requests: Number(values.requests),
  };
  const servers = { ours: values.server, ...(values.baseline ? { baseline: values.baseline } : {}) };
  const counts = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
  console.log(
    `${settings.path}: ${settings.requests} requests after ${settings.warmup}, under callgrind, V8 single-threaded`,
  );
  for (let round = 0; round < Number(values.repeat); round += 1) {
    const names = counts.baseline ? interleaved(round, 'ours', 'baseline') : ['ours'];
    for (const name of names) {
      const perRequest = await countOnce(servers[name], settings);
      counts[name].push(perRequest);
      console.log(
        `  round ${round + 1} ${name.padEnd(8)} ${Math.round(perRequest).toLocaleString('en-US')} instructions a request`,
      );
    }
  }
  for (const [name, values_] of Object.entries(counts))
    console.log(
      `${name.padEnd(8)} median ${Math.round(median(values_)).toLocaleString('en-US')} instructions a request`,
    );
  if (counts.baseline)
    console.log(`ours/baseline ${(median(counts.ours) / median(counts.baseline)).toFixed(4)}`);
}

main()
  .catch((error) => {
    console.error(error.message ?? error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    removeTempDirs();
  });
