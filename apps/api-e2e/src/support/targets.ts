import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { BUILT, run, startServer, type ServerProcess } from './processes';

/** The machine's PostgreSQL; each run gets its own schema, dropped afterwards. */
export const TEST_DATABASE_URL =
  process.env.ASSISTANT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type TargetName = 'self-host-sqlite' | 'self-host-postgres' | 'hosted-postgres';

export interface Target {
  name: TargetName;
  url: string;
  /** A token with every scope for the first account. */
  ownerToken: string;
  /** A token with every scope for a second account, to check that accounts cannot see each other. */
  otherToken: string;
  deployment: 'self-hosted' | 'hosted';
  server: ServerProcess;
  dataDir?: string;
  stop(): Promise<void>;
}

export function freshSchemaUrl(): { url: string; schema: string } {
  const schema = `e2e_${randomBytes(6).toString('hex')}`;
  return { url: `${TEST_DATABASE_URL}?schema=${schema}`, schema };
}

export async function dropSchema(schema: string, databaseUrl = TEST_DATABASE_URL): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

function tokenFrom(output: string): string {
  return (JSON.parse(output) as { token: string }).token;
}

async function checked(promise: ReturnType<typeof run>): Promise<string> {
  const result = await promise;
  if (result.code !== 0) throw new Error(`command failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

export async function startSelfHost(
  database: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'assistant-e2e-'));
  const pg = database === 'postgres' ? freshSchemaUrl() : undefined;
  const dbEnv: Record<string, string> = pg ? { ASSISTANT_DATABASE_URL: pg.url } : {};
  const server = await startServer(BUILT.selfHost, [], {
    ASSISTANT_DATA_DIR: dataDir,
    ASSISTANT_PORT: '0',
    ...dbEnv,
    ...env,
  });
  const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as {
    token: string;
  };
  const other = await checked(
    run(BUILT.cli, ['accounts', 'add', '--data-dir', dataDir, '--email', 'other@example.com'], dbEnv),
  );
  return {
    name: `self-host-${database}`,
    url: server.url,
    ownerToken: credentials.token,
    otherToken: tokenFrom(other),
    deployment: 'self-hosted',
    server,
    dataDir,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (pg) await dropSchema(pg.schema);
    },
  };
}

/** The hosted API's key for connection secrets in these tests (ASSISTANT_SECRETS_KEY). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 42).toString('base64');

/**
 * The machine's Redis (database 15 by default: the jest preset's jest-test-env.cjs); each hosted deployment of a
 * test gets its own key prefix (its keys and its channel).
 */
export const TEST_REDIS_URL = process.env.ASSISTANT_TEST_REDIS_URL as string;

/** Settings of a hosted deployment of its own on the test Redis: pass the same to every instance of one deployment. */
export function freshRedisEnv(url = TEST_REDIS_URL): Record<string, string> {
  return { ASSISTANT_REDIS_URL: url, ASSISTANT_REDIS_KEY_PREFIX: `e2e-${randomBytes(6).toString('hex')}:` };
}

export async function startHosted(env: Record<string, string> = {}): Promise<Target> {
  const pg = freshSchemaUrl();
  const dbEnv = { ASSISTANT_DATABASE_URL: pg.url };
  await checked(run(BUILT.hostedOps, ['migrate'], dbEnv));
  const owner = await checked(
    run(BUILT.hostedOps, ['create-account', '--email', 'owner@example.com'], dbEnv),
  );
  const other = await checked(
    run(BUILT.hostedOps, ['create-account', '--email', 'other@example.com'], dbEnv),
  );
  const server = await startServer(BUILT.hosted, [], {
    ...dbEnv,
    ...freshRedisEnv(),
    ASSISTANT_SECRETS_KEY: TEST_SECRETS_KEY,
    ASSISTANT_HOST: '127.0.0.1',
    ASSISTANT_PORT: '0',
    ...env,
  });
  return {
    name: 'hosted-postgres',
    url: server.url,
    ownerToken: tokenFrom(owner),
    otherToken: tokenFrom(other),
    deployment: 'hosted',
    server,
    stop: async () => {
      await server.stop();
      await dropSchema(pg.schema);
    },
  };
}

export function startTarget(name: TargetName, env: Record<string, string> = {}): Promise<Target> {
  if (name === 'self-host-sqlite') return startSelfHost('sqlite', env);
  if (name === 'self-host-postgres') return startSelfHost('postgres', env);
  return startHosted(env);
}
