import { randomBytes } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { queryEventSchema, type QueryEvent } from '@assistant/contracts';
import { BUILT, run, startServer, type ServerProcess } from './processes';
import { dropSchema, freshRedisEnv, TEST_DATABASE_URL, TEST_SECRETS_KEY, TEST_REDIS_URL } from './targets';

/**
 * One hosted deployment of several API processes, as the ops team runs it behind a load balancer: one database
 * (a fresh schema, migrated once by the ops command) and one Redis (a key prefix of its own), any number of
 * instances on ports of their own.
 */
export interface HostedDeployment {
  instances: ServerProcess[];
  /** Every instance's settings (the database, Redis, the secrets key, and the test's own). */
  env: Record<string, string>;
  ownerToken: string;
  otherToken: string;
  /** Starts one more instance of the deployment. */
  startInstance(): Promise<ServerProcess>;
  stop(): Promise<void>;
}

export async function startHostedDeployment(
  count: number,
  env: Record<string, string> = {},
  { databaseUrl = TEST_DATABASE_URL, redisUrl = TEST_REDIS_URL } = {},
): Promise<HostedDeployment> {
  const schema = `e2e_${randomBytes(6).toString('hex')}`;
  const dbEnv = { ASSISTANT_DATABASE_URL: `${databaseUrl}?schema=${schema}` };
  const ops = async (...args: string[]) => {
    const result = await run(BUILT.hostedOps, args, dbEnv);
    if (result.code !== 0) throw new Error(`${args[0]} failed: ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  await ops('migrate');
  const tokenOf = (output: string) => (JSON.parse(output) as { token: string }).token;
  const ownerToken = tokenOf(await ops('create-account', '--email', 'owner@example.com'));
  const otherToken = tokenOf(await ops('create-account', '--email', 'other@example.com'));
  const allEnv = {
    ...dbEnv,
    ...freshRedisEnv(redisUrl),
    ASSISTANT_SECRETS_KEY: TEST_SECRETS_KEY,
    ASSISTANT_HOST: '127.0.0.1',
    ASSISTANT_PORT: '0',
    ...env,
  };
  const instances: ServerProcess[] = [];
  const startInstance = async () => {
    const instance = await startServer(BUILT.hosted, [], allEnv);
    instances.push(instance);
    return instance;
  };
  try {
    for (let i = 0; i < count; i++) await startInstance();
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.stop()));
    throw error;
  }
  return {
    instances,
    env: allEnv,
    ownerToken,
    otherToken,
    startInstance,
    stop: async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await dropSchema(schema, databaseUrl).catch(() => undefined);
    },
  };
}

/**
 * A query's event stream read event by event as it arrives (POST /queries, or GET …/events to resume): the test
 * acts in the middle of a run (resumes elsewhere, answers a confirmation) and stops reading when it likes.
 */
export class LiveStream {
  readonly events: QueryEvent[] = [];
  status = 0;
  private readonly controller = new AbortController();
  private waiters: Array<() => void> = [];
  private ended = false;
  readonly done: Promise<void>;

  constructor(url: string, token: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
    this.done = this.read(url, token, init).finally(() => {
      this.ended = true;
      this.notify();
    });
  }

  /** Resolves with the first event that `matches` (received already or later); rejects if the stream ends first. */
  async waitFor(matches: (event: QueryEvent) => boolean): Promise<QueryEvent> {
    for (;;) {
      const found = this.events.find(matches);
      if (found) return found;
      if (this.ended) throw new Error(`the stream ended without it: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Stops reading and closes the connection, as a client that goes away. */
  close(): void {
    this.controller.abort();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  private async read(
    url: string,
    token: string,
    init: { body?: unknown; headers?: Record<string, string> },
  ): Promise<void> {
    const response = await fetch(url, {
      method: init.body ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: this.controller.signal,
    });
    this.status = response.status;
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      throw new Error(`no stream (${response.status}): ${await response.text()}`);
    }
    const parser = createParser({
      onEvent: (message) => {
        this.events.push(queryEventSchema.parse(JSON.parse(message.data)));
        this.notify();
      },
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error;
    }
  }
}
