#!/usr/bin/env node
// The performance report of issues 10 and 23: every figure of their targets, measured in one run against floors
// built into the same run, printed beside its target with PASS, MISS or UNDECIDED.
//
//   node tools/bench/src/perf-report.mjs [--quick] [--sections streams,requests,...] [--markdown report.md]
//   npm run bench:perf -- --help
//
// Sections (each in sections/, each floor its own process under floors/):
//   streams   P1–P4  the query stream: the model stub directly, the bare relay floor, ours (and --hosted, also
//                    against the self-hosted server of the same rounds)
//   tail      P2     500 concurrent streams at 20 tokens a second through the relay floor and ours
//   requests  P5/P5b GET /api/v1/me and /discussions?limit=50 req/s against floor servers (SQLite, PostgreSQL)
//   startup   P10    spawn → first 200 of `assistant serve` vs bare Fastify; `assistant chat` wall vs curl
//   recall    P7     memory recall at 100,000 memories (SQLite) and 1,000,000 over 1,000 users (PostgreSQL)
//   agent     P9     agent step: tool result → next model request written
//   rows      P12    rows written and bytes stored per answered query, short and long (SQLite; --hosted: PostgreSQL)
// Each figure compared with a floor runs interleaved rounds of ours and the floor until its verdict is clear (or
// says it could not tell): lib/adaptive-rounds.mjs. The model stub is the OpenAI-compatible fixture of
// @assistant/test-services in its own process (lib/stub.mjs).
//
// Exit code: 0 whatever the figures; 1 when the bench itself failed (a section could not run, a token was lost
// or duplicated, a floor answered differently from ours); 2 for bad options.
import { writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { optionHelpLines, parseOptionTable } from './lib/options.mjs';
import { dropThrowawaySchemas } from './lib/postgres.mjs';
import { installSignalHandlers, removeTempDirs, stopAll } from './lib/processes.mjs';
import { DEFAULT_RULE, describeRule } from './lib/adaptive-rounds.mjs';
import { machineSpeed } from './lib/machine-reference.mjs';
import { markdownTable, row, textTable } from './lib/report.mjs';
import { DEFAULT_SERVER } from './lib/server.mjs';
import { startStub } from './lib/stub.mjs';
import { DEFAULT_REDIS_URL } from './lib/hosted.mjs';
import { streams } from './sections/streams.mjs';
import { requests } from './sections/requests.mjs';
import { startup } from './sections/startup.mjs';
import { recall } from './sections/recall.mjs';
import { agentStep } from './sections/agent-step.mjs';
import { rows as rowsWritten } from './sections/rows.mjs';
import { tail } from './sections/tail.mjs';

const SECTIONS = { streams, tail, requests, startup, recall, agent: agentStep, rows: rowsWritten };
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

const OPTIONS = {
  sections: { env: 'BENCH_SECTIONS', default: Object.keys(SECTIONS).join(','), help: 'sections to run' },
  rounds: {
    env: 'BENCH_ROUNDS',
    default: '',
    quick: '2',
    help: 'a fixed number of interleaved rounds per figure instead of adaptive rounds',
  },
  'min-rounds': {
    env: 'BENCH_MIN_ROUNDS',
    default: String(DEFAULT_RULE.minRounds),
    help: 'adaptive rounds: at least',
  },
  'max-rounds': {
    env: 'BENCH_MAX_ROUNDS',
    default: String(DEFAULT_RULE.maxRounds),
    help: 'adaptive rounds: at most',
  },
  budget: {
    env: 'BENCH_BUDGET',
    default: String(DEFAULT_RULE.budgetMs / 1000),
    help: 'adaptive rounds: no new round after this many seconds of a figure',
  },
  precision: {
    env: 'BENCH_PRECISION',
    default: String(DEFAULT_RULE.precision),
    help: 'adaptive rounds: an interval this narrow (half-width / target) is called by its median',
  },
  warmup: {
    env: 'BENCH_WARMUP',
    default: '1',
    quick: '0',
    help: 'unmeasured warm-up rounds (streams, requests, tail)',
  },
  tokens: { env: 'BENCH_TOKENS', default: '100', quick: '30', help: 'tokens per streamed answer' },
  interval: { env: 'BENCH_INTERVAL', default: '5', help: 'milliseconds between tokens' },
  single: {
    env: 'BENCH_SINGLE',
    default: '10',
    quick: '3',
    help: 'queries one after another per round at 1',
  },
  'at-once': { env: 'BENCH_AT_ONCE', default: '50', help: 'concurrent queries of the P1b figure' },
  'idle-streams': {
    env: 'BENCH_IDLE_STREAMS',
    default: '1000',
    quick: '200',
    help: 'idle streams for P4 (0: skip)',
  },
  'tail-streams': {
    env: 'BENCH_TAIL_STREAMS',
    default: '500',
    help: 'concurrent streams of the tail section',
  },
  'tail-tokens': {
    env: 'BENCH_TAIL_TOKENS',
    default: '100',
    quick: '60',
    help: 'tokens per stream of the tail section',
  },
  'tail-interval': { env: 'BENCH_TAIL_INTERVAL', default: '50', help: 'milliseconds between tokens (tail)' },
  duration: { env: 'BENCH_DURATION', default: '3', quick: '1', help: 'seconds of each autocannon run' },
  connections: { env: 'BENCH_CONNECTIONS', default: '20', help: 'autocannon connections' },
  memories: {
    env: 'BENCH_MEMORIES',
    default: '100000',
    quick: '10000',
    help: 'memories of one user (SQLite)',
  },
  'pg-memories': {
    env: 'BENCH_PG_MEMORIES',
    default: '1000000',
    quick: '50000',
    help: 'memories on PostgreSQL',
  },
  'pg-users': {
    env: 'BENCH_PG_USERS',
    default: '1000',
    quick: '50',
    help: 'users the PostgreSQL memories belong to',
  },
  'pg-schema': {
    env: 'BENCH_PG_SCHEMA',
    default: '',
    help: 'keep the PostgreSQL memories in this schema and reuse them in later runs of the same sizes',
  },
  recalls: { env: 'BENCH_RECALLS', default: '200', quick: '30', help: 'timed recalls per question' },
  'row-queries': {
    env: 'BENCH_ROW_QUERIES',
    default: '3',
    quick: '1',
    help: 'answers of each length whose rows are counted (P12)',
  },
  'database-url': {
    env: 'BENCH_DATABASE_URL',
    default: DEFAULT_DATABASE_URL,
    help: 'PostgreSQL for the PG figures ("none": skip them); each run gets a throwaway schema',
  },
  'redis-url': { env: 'BENCH_REDIS_URL', default: DEFAULT_REDIS_URL, help: 'Redis for --hosted' },
  server: {
    env: 'BENCH_SERVER',
    default: DEFAULT_SERVER,
    help: 'our server: an `assistant` command line (bin/run.js, run as serve) or a script that serves',
  },
  markdown: {
    env: 'BENCH_MARKDOWN',
    default: '',
    help: "also write the table as markdown to this file (the README's Performance table)",
  },
};

function helpText() {
  return [
    'Usage: node tools/bench/src/perf-report.mjs [options]      (or: npm run bench:perf -- [options])',
    '',
    'Measures every figure of issues 10 and 23 against floors built into the same run (bare relay, floor /me and',
    '/discussions servers on SQLite and PostgreSQL, bare Fastify, curl, raw SQL) and prints one table:',
    '# | metric | floor | ours | judged [95% interval] | rounds | target | verdict. Each figure runs interleaved',
    'rounds until the interval decides PASS or MISS, or it reads UNDECIDED (spread ±x% after N rounds).',
    'Build first: NX_DAEMON=false npx nx run-many -t build',
    '',
    'Options:',
    ...optionHelpLines(OPTIONS),
    '  --quick          a fast smoke run (the --quick values above; figures are noisy and UNDECIDED)',
    '  --hosted         also run the streams and rows against the hosted API (PostgreSQL + Redis)',
    '  -h, --help       this text',
    '',
    `Sections: ${Object.keys(SECTIONS).join(', ')}.`,
    'Example: node tools/bench/src/perf-report.mjs --quick --sections streams,agent --markdown /tmp/perf.md',
  ].join('\n');
}

function count(name, raw, min = 0) {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be an integer ≥ ${min} (got "${raw}")`);
  return value;
}

function positive(name, raw) {
  const value = Number(raw);
  if (!(value > 0)) throw new Error(`--${name} must be a number > 0 (got "${raw}")`);
  return value;
}

function parseOptions(argv, env) {
  const { values, raw } = parseOptionTable(OPTIONS, argv, env, ['quick', 'hosted'], (v) =>
    v.quick ? 'quick' : null,
  );
  const sections = String(raw('sections'))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = sections.filter((s) => !(s in SECTIONS));
  if (unknown.length > 0)
    throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  const databaseUrl = raw('database-url') === 'none' ? null : raw('database-url');
  if (values.hosted && !databaseUrl) throw new Error('--hosted needs PostgreSQL (--database-url)');
  const intervalMs = Number(raw('interval'));
  if (!(intervalMs >= 0)) throw new Error(`--interval must be a number ≥ 0 (got "${raw('interval')}")`);
  return {
    help: Boolean(values.help),
    quick: Boolean(values.quick),
    hosted: Boolean(values.hosted),
    sections,
    rule: {
      ...DEFAULT_RULE,
      fixed: raw('rounds') === '' ? null : count('rounds', raw('rounds'), 1),
      minRounds: count('min-rounds', raw('min-rounds'), 1),
      maxRounds: count('max-rounds', raw('max-rounds'), 1),
      budgetMs: 1000 * positive('budget', raw('budget')),
      precision: positive('precision', raw('precision')),
    },
    warmup: count('warmup', raw('warmup')),
    tokens: count('tokens', raw('tokens'), 1),
    intervalMs,
    single: count('single', raw('single'), 1),
    atOnce: count('at-once', raw('at-once'), 2),
    tailStreams: count('tail-streams', raw('tail-streams'), 2),
    tailTokens: count('tail-tokens', raw('tail-tokens'), 2),
    tailInterval: count('tail-interval', raw('tail-interval'), 1),
    idleStreams: count('idle-streams', raw('idle-streams')),
    duration: count('duration', raw('duration'), 1),
    connections: count('connections', raw('connections'), 1),
    memories: count('memories', raw('memories'), 100),
    pgMemories: count('pg-memories', raw('pg-memories'), 100),
    pgUsers: count('pg-users', raw('pg-users'), 1),
    pgSchema: raw('pg-schema') || null,
    recalls: count('recalls', raw('recalls'), 1),
    rowQueries: count('row-queries', raw('row-queries'), 1),
    databaseUrl,
    redisUrl: raw('redis-url'),
    server: resolve(raw('server')),
    markdown: raw('markdown') || null,
  };
}

async function cleanup() {
  await stopAll();
  await dropThrowawaySchemas();
  removeTempDirs();
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
  if (!existsSync(options.server))
    throw new Error(
      `our server is not built (${options.server}): run NX_DAEMON=false npx nx run-many -t build`,
    );
  installSignalHandlers('the servers', cleanup);

  const log = (line) => console.log(line);
  let stub = null;
  const ctx = {
    options,
    /** How many rounds each figure runs (lib/adaptive-rounds.mjs). */
    rule: options.rule,
    log,
    /** The model stub, started by the first section that needs it and shared by the next ones. */
    stub: async () => (stub ??= await startStub({ tokens: options.tokens, intervalMs: options.intervalMs })),
  };
  const cpus = os.cpus();
  const startLoad = os.loadavg()[0].toFixed(2);
  log(
    `perf report: node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  log(`  sections ${options.sections.join(', ')}${options.quick ? ' (--quick: noisy smoke figures)' : ''}`);

  const rows = [];
  const notes = [];
  const failures = [];
  try {
    for (const name of options.sections) {
      log(`\n== ${name}`);
      const started = Date.now();
      try {
        const result = await SECTIONS[name](ctx);
        rows.push(...result.rows);
        notes.push(...result.notes);
        failures.push(...result.failures.map((f) => `${name}: ${f}`));
      } catch (error) {
        failures.push(`${name}: ${error.message}`);
        rows.push(row('-', `${name}: section FAILED (${error.message.split('\n')[0]})`, '', '', '', null));
        console.error(error.stack ?? error);
      }
      log(`  (${name}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
      // Servers of one section must not compete for the CPUs with the next one's.
      await stopAll();
      stub = null;
    }
  } finally {
    await cleanup();
  }

  const table = textTable(rows);
  const machine = machineSpeed(rows);
  log(`\n== Targets of issues 10 and 23 (floors measured in the same run)\n${table}`);
  if (machine) log(`  machine: ${machine.sentence}`);
  for (const note of notes) log(`  note: ${note}`);
  for (const failure of failures) log(`  BENCH FAILURE: ${failure}`);
  if (options.markdown) {
    // The README's Performance section pastes the sentence and the table as they are.
    const lines = [
      `Figures of ${new Date().toISOString().slice(0, 10)} on a ${cpus.length}-core machine ` +
        `(${cpus[0]?.model ?? 'unknown CPU'}), Node ${process.version.replace(/^v/, '')}, load average ${startLoad} ` +
        `at the start${options.quick ? ', --quick (noisy smoke figures)' : ''}; ${describeRule(options.rule)}` +
        `${machine ? `; ${machine.sentence}` : ''}:`,
      '',
      markdownTable(rows),
      '',
      ...notes.map((n) => `- ${n}`),
      ...failures.map((f) => `- **bench failure**: ${f}`),
      '',
    ];
    writeFileSync(options.markdown, lines.join('\n'));
    log(`markdown written to ${options.markdown}`);
  }
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`perf-report: ${error.stack ?? error}`);
  cleanup().finally(() => process.exit(1));
});
