import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, chownSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userInfo } from 'node:os';

/**
 * Services a fault test may stop and start at will: its own Redis and its own PostgreSQL cluster, on free ports,
 * so that the machine's shared ones (other suites use them) are never touched.
 */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntil(ready: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Redis of the test's own, without persistence: a stop loses everything, as an outage would. */
export class PrivateRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process = child;
    process.once('exit', () => child.kill('SIGKILL'));
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    await waitUntil(() => output.includes('Ready to accept connections'), 'redis-server');
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * A TCP proxy in front of a service, to cut the network between the servers and the service without stopping
 * it: what the service holds survives the cut (a network blip, not a restart). While cut, every connection is
 * closed at once and new ones are closed as they arrive.
 */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private isCut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<CuttableProxy> {
    const port = await freePort();
    const server = createServer((client) => proxy.accept(client, targetHost, targetPort));
    const proxy = new CuttableProxy(server, port);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return proxy;
  }

  /** Cuts every connection through the proxy, and every new one, until `restore`. */
  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.isCut) return void client.destroy();
    const upstream = connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}

const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the test's own in a temporary folder (initdb, pg_ctl). PostgreSQL refuses to run as
 * root; as root, the cluster runs as the `postgres` user.
 */
export class PrivatePostgres {
  private stopped = false;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'assistant-pg-'));
    const cluster = new PrivatePostgres(await freePort(), dir);
    if (userInfo().uid === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), -1);
    cluster.pg('initdb', '-D', cluster.data, '-A', 'trust', '-U', 'postgres');
    cluster.ctl('start');
    // Should the suite be cut short (a hook's timeout), the cluster still goes with the test process.
    process.once('exit', () => cluster.stop());
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A restart as an operator does it: connections are cut, running statements fail. */
  restart(): void {
    this.ctl('restart', '-m', 'fast');
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.ctl('stop', '-m', 'immediate');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private get data(): string {
    return join(this.dir, 'data');
  }

  private ctl(command: string, ...args: string[]): void {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    this.pg('pg_ctl', '-D', this.data, '-o', options, '-l', join(this.dir, 'log'), '-w', command, ...args);
  }

  private pg(program: string, ...args: string[]): void {
    const binary = join(PG_BIN, program);
    if (userInfo().uid === 0)
      execFileSync('runuser', ['-u', 'postgres', '--', binary, ...args], { stdio: 'ignore' });
    else execFileSync(binary, args, { stdio: 'ignore' });
  }
}
