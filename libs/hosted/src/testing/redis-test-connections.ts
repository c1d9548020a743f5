import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { RedisConnections } from '../lib/redis/redis-connections';

// Support for the Redis integration specs only: tsconfig.lib.json leaves it out of the build, so that it is
// never published.

/** The machine's Redis, for the integration specs (database 15 by default: the jest preset's jest-test-env.cjs). */
export const TEST_REDIS_URL = process.env['ASSISTANT_TEST_REDIS_URL'] as string;

/** A key prefix of one test's own: its keys and its bus channel touch no one else's. */
export const freshPrefix = () => `test-${randomBytes(6).toString('hex')}:`;

/** Deletes every key under the test's prefix through a connection still open, then closes them all. */
export async function cleanUp(...connections: RedisConnections[]): Promise<void> {
  const live = connections.find((redis) => redis.ready);
  let cursor = '0';
  if (live) {
    do {
      const [next, keys] = await live.command.scan(cursor, 'MATCH', `${live.prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await live.command.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  for (const redis of connections) redis.close();
}

export function openTestRedis(prefix = freshPrefix()): Promise<RedisConnections> {
  return RedisConnections.open(TEST_REDIS_URL, prefix);
}

/**
 * A link to the test Redis through a TCP proxy that the test can cut and restore: a network outage between one
 * instance and Redis, whose data survives it (as a blip does, unlike a restart).
 */
export interface CuttableLink {
  /** The test Redis's URL (its database too) through the proxy. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableLink(): Promise<CuttableLink> {
  const target = new URL(TEST_REDIS_URL);
  const sockets = new Set<Socket>();
  let isCut = false;
  const server = createServer((client) => {
    if (isCut) return void client.destroy();
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const cut = () => {
    isCut = true;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    cut,
    restore: () => (isCut = false),
    close: async () => {
      cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
