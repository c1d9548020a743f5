import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ALL_SCOPES, type Scope } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import { openStorage, type Dialect, type Storage } from '@assistant/storage';
import { dropTestSchema, testPostgresConfig } from '@assistant/storage/testing';
import type { ToolFamily } from '@assistant/tool-kit';
import { createAccount } from '../lib/accounts/create-account';
import { type ServerConfig, HTTP_TIMEOUTS, type HttpTimeouts, selfHostConfig } from '@assistant/server-kit';
import { createHttpApp } from '../lib/bootstrap/create-http-app';
import { MemoryQueryEventLog } from '@assistant/queries';
import { MemoryRateLimitStore } from '../lib/rate-limit/rate-limit.store';
import { closeParts, type ServerParts } from '../lib/bootstrap/server-parts';

/**
 * The real API in-process, for tests that must fail where a bug is: the Nest app of `createHttpApp` (guard,
 * problem filter, rate-limit hook, logging, timeouts — everything both deployments share) on a fresh SQLite
 * database in a temporary directory (or a fresh PostgreSQL schema: `dialect`), with one user and a token. No build, no child process, no port unless a
 * test asks for one.
 *
 * Query runs load the AI SDK (ESM) with a dynamic import: jest must run under `node --experimental-vm-modules`
 * for them, as the server's `test` target does. Raw requests (malformed, stalled) go through `listen()` and
 * `sendRaw` (./raw-http).
 *
 * ```ts
 * const api = await startInProcessApp({ scopes: ['read:memories'] });
 * const res = await api.inject({ method: 'GET', url: '/api/v1/memories' }); // sends api.token
 * expect(res.statusCode).toBe(200);
 * await api.close();
 * ```
 */
export interface InProcessAppOptions {
  /** Scopes of the test user's token (`api.token`); every scope when absent. */
  scopes?: Scope[];
  /**
   * The database: a fresh SQLite file (the default), or `postgres`, a fresh schema of the test PostgreSQL
   * ($ASSISTANT_TEST_DATABASE_URL), dropped at close.
   */
  dialect?: Dialect;
  /**
   * `ASSISTANT_*` variables to read the configuration from, as a user would set them (e.g.
   * `ASSISTANT_BUILTIN_PACING_MS`); none of the shell's. The built-in model answers without pauses by default.
   */
  env?: Record<string, string>;
  /**
   * Replaces fields of the configuration: `rateLimits`, `logLevel`, `queries`, `trustProxy`, … The base is the
   * self-hosted configuration of `env`.
   */
  config?: Partial<ServerConfig>;
  /** The tool families to offer instead of the product's (FAMILIES), e.g. a fake family with a test provider. */
  families?: readonly ToolFamily[];
  /** How custom tool modules are imported (`importWithNode` of ./custom-tools for a folder of modules). */
  customToolImporter?: ServerParts['customToolImporter'];
  /** Shorter HTTP deadlines than HTTP_TIMEOUTS, for tests of stalled requests. */
  timeouts?: Partial<HttpTimeouts>;
}

export interface InjectRequest extends InjectOptions {
  /** The bearer token to send: `api.token` when absent, none when null. */
  token?: string | null;
}

export interface InProcessApp {
  app: NestFastifyApplication;
  config: ServerConfig;
  storage: Storage;
  userId: string;
  /** A personal token of `userId` with the scopes asked for. */
  token: string;
  /** Sends one request through Fastify's light-my-request: the whole stack, no socket. */
  inject(request: InjectRequest): Promise<LightMyRequestResponse>;
  /** Another token of the same user, e.g. with fewer scopes or an expiry. */
  issueToken(scopes: Scope[], expiresAt?: Date): Promise<string>;
  /** Listens on 127.0.0.1 on a free port, for tests that need real sockets; returns `http://127.0.0.1:<port>`. */
  listen(): Promise<string>;
  /** Every log line written so far, parsed (the app logs JSON lines; none reach stdout). */
  logs(): Record<string, unknown>[];
  /** Closes the app and its parts and deletes the database. */
  close(): Promise<void>;
}

export async function startInProcessApp(options: InProcessAppOptions = {}): Promise<InProcessApp> {
  const dir = mkdtempSync(join(tmpdir(), 'assistant-in-process-'));
  // A given environment, not process.env: the tests must not depend on the shell they run in.
  const base = selfHostConfig(
    { dataDir: dir, host: '127.0.0.1', port: 0 },
    { ASSISTANT_BUILTIN_PACING_MS: '0', ...options.env },
  );
  const postgres = options.dialect === 'postgres' ? testPostgresConfig() : null;
  const config: ServerConfig = {
    ...base,
    ...(postgres ? { database: postgres.config } : {}),
    ...options.config,
  };
  const dropDatabase = async () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgres) await dropTestSchema(postgres.schema);
  };
  const lines: string[] = [];
  let parts: ServerParts | undefined;
  let app: NestFastifyApplication | undefined;
  try {
    const storage: Storage = await openStorage(config.database, { migrations: 'run' });
    parts = {
      storage,
      rateLimits: new MemoryRateLimitStore(),
      queryEvents: new MemoryQueryEventLog(),
      families: options.families,
      customToolImporter: options.customToolImporter,
      logDestination: { write: (line: string) => void lines.push(line) },
    };
    const account = await createAccount(storage, {
      email: 'tester@example.test',
      scopes: options.scopes ?? ALL_SCOPES,
    });
    const nest = await createHttpApp(config, parts, { ...HTTP_TIMEOUTS, ...options.timeouts });
    app = nest;
    await nest.init();
    const fastify = nest.getHttpAdapter().getInstance();
    const tokens = nest.get(TokenService);
    let closed = false;
    return {
      app: nest,
      config,
      storage,
      userId: account.user_id,
      token: account.token,
      inject: ({ token, ...request }) => {
        const secret = token === undefined ? account.token : token;
        const headers = {
          ...(secret === null ? {} : { authorization: `Bearer ${secret}` }),
          ...request.headers,
        };
        return fastify.inject({ ...request, headers });
      },
      issueToken: async (scopes, expiresAt) =>
        (await tokens.issue({ userId: account.user_id, kind: 'personal', name: 'test', scopes, expiresAt }))
          .secret,
      listen: async () => {
        await fastify.listen({ host: '127.0.0.1', port: 0 });
        const address = fastify.server.address();
        if (!address || typeof address === 'string') throw new Error('the test server has no TCP address');
        return `http://127.0.0.1:${address.port}`;
      },
      logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await nest.close();
          await closeParts(parts as ServerParts);
        } finally {
          await dropDatabase();
        }
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    if (parts) await closeParts(parts).catch(() => undefined);
    await dropDatabase().catch(() => undefined);
    throw error;
  }
}
