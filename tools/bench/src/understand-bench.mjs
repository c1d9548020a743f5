#!/usr/bin/env node
// The built-in model's understanding per request (issue 21): what reading one request costs — the families'
// sentence templates, the date parser, the look-up of the account's values (senders, events, files, devices,
// memories) — with an account the size of the target: 10,000 memories, 1,000 mail senders and 500 events known
// (and 300 files, 50 devices). Target: p99 under 1 ms per request.
//
// What it does: builds the built-in model's phrase book from the product's families (their built dist/), fills
// one account's vocabulary as the families' tool results would, then reads every request of the corpus
// (libs/server/src/lib/tools/builtin-corpus/corpus.ts) over and over, the follow-ups with their previous request
// understood first, as the model does. It also times learning: a tool result of 50 senders added to the account.
// On demand only (it is not a test): `node --expose-gc tools/bench/src/understand-bench.mjs [--rounds 50]`.
// The target is judged on CPU time per request (process.cpuUsage, µs resolution); wall time is printed beside it.
//
// Needs the build: `npx nx run-many -t build -p @assistant/agent-core @assistant/tools-memory @assistant/tools-web
// @assistant/tools-files @assistant/tools-home @assistant/tools-calendar @assistant/tools-email`.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { verdict } from './lib/format.mjs';
import { percentile } from './lib/measure.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 50;
const TARGET_P99_MS = 1;
const SIZES = { memory: 10_000, sender: 1_000, event: 500, file: 300, device: 50 };

const load = (path) => import(pathToFileURL(join(REPO_ROOT, path)).href);
const { PhraseBook, Vocabularies } = await load('libs/agent-core/dist/index.js');
const families = [];
for (const name of ['memory', 'web', 'files', 'home', 'calendar', 'email']) {
  families.push((await load(`libs/tools/${name}/dist/index.js`))[`${name}Family`]);
}

/** The corpus's requests, read out of its source: the bench runs what the test checks. */
function corpusRequests() {
  const source = readFileSync(join(REPO_ROOT, 'libs/server/src/lib/tools/builtin-corpus/corpus.ts'), 'utf8');
  const quoted = String.raw`(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`;
  const entries = [];
  for (const line of source.matchAll(
    new RegExp(String.raw`\{\s*say:\s*${quoted}(?:,\s*after:\s*${quoted})?`, 'g'),
  )) {
    entries.push({ say: line[1] ?? line[2], after: line[3] ?? line[4] });
  }
  return entries;
}

// A deterministic pseudo-random source, so that two runs seed the same account.
let seed = 21;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = (list) => list[Math.floor(random() * list.length)];
const WORDS =
  'garden invoice plumber birthday passport insurance school holiday lease boiler dentist yoga piano football recipe parcel refund booking tax bank car train flight hotel dinner lunch meeting review report budget project design launch party wedding gym swim tennis choir doctor vet nursery office kitchen'.split(
    ' ',
  );
const NAMES =
  'ada ben cleo dan eva finn gus hana ivan jo kai lena max nora otto pia quinn rosa sam tara uma vic wes xena yuri zoe'.split(
    ' ',
  );

function seedAccount(vocabularies) {
  const account = vocabularies.account('bench');
  const learned = [];
  for (let i = 0; i < SIZES.memory; i++) {
    const content = Array.from({ length: 12 }, () => pick(WORDS)).join(' ');
    learned.push({ kind: 'memory', value: `mem_${i}`, label: content });
  }
  for (let i = 0; i < SIZES.sender; i++) {
    const [first, last] = [pick(NAMES), pick(WORDS)];
    const address = `${first}.${last}${i}@${pick(WORDS)}-${i % 97}.example`;
    learned.push({ kind: 'sender', value: address, label: `${first} ${last} <${address}>` });
  }
  for (let i = 0; i < SIZES.event; i++)
    learned.push({ kind: 'event', value: `${pick(WORDS)} ${pick(WORDS)} ${i}` });
  for (let i = 0; i < SIZES.file; i++) {
    const path = `${pick(WORDS)}/${pick(WORDS)}-${pick(WORDS)}-${i}.txt`;
    learned.push({ kind: 'file', value: path, label: path.replace(/[-/.]/g, ' ') });
  }
  for (let i = 0; i < SIZES.device; i++) learned.push({ kind: 'device', value: `${pick(WORDS)} light ${i}` });
  const started = performance.now();
  account.learn(learned);
  return { account, seedMs: performance.now() - started };
}

function main() {
  const book = new PhraseBook(families);
  const vocabularies = new Vocabularies();
  const { account, seedMs } = seedAccount(vocabularies);
  const base = {
    now: new Date(),
    timeZone: 'Europe/Berlin',
    known: (kind, words) => account.known(kind, words),
    last: () => undefined,
  };
  const requests = corpusRequests();
  const understand = ({ say, after }) => {
    if (!after) return book.understand(say, base);
    const before = book.understand(after, base);
    const previous =
      before.kind === 'tool' && before.slots ? { intent: before.intent, slots: before.slots } : undefined;
    return book.understand(say, { ...base, previous, last: () => 'INBOX:1' });
  };

  for (const request of requests) understand(request); // warm-up: compiled templates, JIT
  globalThis.gc?.(); // the seeding's garbage is not the requests' (run with --expose-gc)
  const samples = [];
  const cpu = [];
  for (let round = 0; round < rounds; round++) {
    for (const request of requests) {
      const cpuStarted = process.cpuUsage();
      const started = process.hrtime.bigint();
      understand(request);
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      const used = process.cpuUsage(cpuStarted);
      cpu.push((used.user + used.system) / 1000);
    }
  }

  const learning = [];
  for (let round = 0; round < 200; round++) {
    const result = Array.from({ length: 50 }, (_, i) => {
      const address = `new.${round}.${i}@${pick(WORDS)}.example`;
      return { kind: 'sender', value: address, label: `${pick(NAMES)} <${address}>` };
    });
    const started = process.hrtime.bigint();
    vocabularies.learn('bench', 'discussion', result);
    learning.push(Number(process.hrtime.bigint() - started) / 1e6);
  }

  const ms = (x) => `${x.toFixed(3)} ms`;
  const p99 = percentile(cpu, 99);
  console.log(
    `built-in model: understanding one request (${requests.length} corpus requests × ${rounds} rounds)`,
  );
  console.log(
    `  account: ${SIZES.memory} memories, ${SIZES.sender} senders, ${SIZES.event} events, ${SIZES.file} files, ${SIZES.device} devices (seeded in ${ms(seedMs)})`,
  );
  const line = (name, values) =>
    `  ${name}  p50 ${ms(percentile(values, 50))}   p90 ${ms(percentile(values, 90))}   p99 ${ms(percentile(values, 99))}   max ${ms(Math.max(...values))}`;
  // CPU time is what a request costs; wall time adds whatever else the machine ran meanwhile (on a loaded
  // 2-core machine, preemptions of several milliseconds), so the target is judged on CPU time.
  console.log(line('cpu ', cpu));
  console.log(line('wall', samples));
  console.log(
    `  ${verdict(p99 < TARGET_P99_MS)} p99 (cpu) < ${TARGET_P99_MS} ms   (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`,
  );
  console.log(
    `  learning a result of 50 senders: p50 ${ms(percentile(learning, 50))}, p99 ${ms(percentile(learning, 99))}`,
  );
}

main();
