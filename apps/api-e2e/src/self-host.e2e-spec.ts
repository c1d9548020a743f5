import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Account, ListEnvelope, Memory, Problem } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { BUILT, childEnv, run, startServer, type ServerProcess } from './support/processes';
import { dropSchema, freshSchemaUrl } from './support/targets';
import { readStream } from './support/sse';

describe('the self-hosted server and `assistant serve`', () => {
  let dataDir: string;
  const running: ServerProcess[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-self-host-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
    const server = await startServer(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--port', '0', ...args],
      env,
    );
    running.push(server);
    return server;
  }

  function credentials(): { base_url: string; token: string; user_id: string } {
    return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  }

  it('prints its address, creates the owner and a private credentials file on first run', async () => {
    const server = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).toContain('First run: created the owner account');
    expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(server.output()).not.toContain(credentials().token);

    const me = await new ApiClient(server.url, credentials().token).get<Account>('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: credentials().user_id, deployment: 'self-hosted' });
    expect(credentials().base_url).toBe(server.url);
  });

  it('keeps everything, and the same owner token, across a restart on the same data directory', async () => {
    const first = await serve();
    const { token } = credentials();
    const api = new ApiClient(first.url, token);
    const memory = await api.post<Memory>('/memories', { content: 'The spare key is under the blue pot' });
    expect(memory.status).toBe(201);
    expect(await first.stop()).toBe(0);
    running.length = 0;

    const second = await serve();
    expect(second.output()).not.toContain('First run');
    expect(credentials().token).toBe(token);
    // The same token, at the address of this start (port 0: another one), so that local clients find it.
    expect(credentials().base_url).toBe(second.url);
    const after = new ApiClient(second.url, token);
    expect((await after.get<Memory>(`/memories/${memory.body.id}`)).body.content).toBe(
      'The spare key is under the blue pot',
    );
    const found = await after.get<ListEnvelope<Memory>>('/memories?q=spare+key');
    expect(found.body.data.map((m) => m.id)).toEqual([memory.body.id]);
  });

  it('refuses a second server on the same data directory with one clear line, and the first one keeps working', async () => {
    const first = await serve();
    const second = await run(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    expect(second.code).not.toBe(0);
    expect(second.stderr.trim()).toMatch(
      /^assistant: another Assistant server \(pid \d+\) is using the data directory/,
    );
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect((await new ApiClient(first.url, credentials().token).get('/me')).status).toBe(200);
  });

  it('remembers the PostgreSQL database it was set up with: accounts add and the next serve use it without the URL', async () => {
    const pg = freshSchemaUrl();
    try {
      const first = await serve(['--database-url', pg.url]);
      expect(statSync(join(dataDir, 'database.json')).mode & 0o777).toBe(0o600);
      const added = await run(
        BUILT.cli,
        ['accounts', 'add', '--data-dir', dataDir, '--email', 'sam@example.com'],
        {},
      );
      expect(added.code).toBe(0);
      const sam = JSON.parse(added.stdout).token as string;
      // The running server knows the account: it was made in its database, not in a new SQLite one.
      expect((await new ApiClient(first.url, sam).get('/me')).status).toBe(200);
      expect(existsSync(join(dataDir, 'assistant.sqlite'))).toBe(false);

      expect(await first.stop()).toBe(0);
      running.length = 0;
      const second = await serve();
      expect(second.output()).toContain('(PostgreSQL)');
      expect(second.output()).not.toContain(pg.url);
      expect((await new ApiClient(second.url, sam).get('/me')).status).toBe(200);
      expect((await new ApiClient(second.url, credentials().token).get('/me')).status).toBe(200);
    } finally {
      await Promise.all(running.splice(0).map((server) => server.stop()));
      await dropSchema(pg.schema);
    }
  });

  it('refuses to make an empty database beside a server that runs on a PostgreSQL it does not name', async () => {
    // A data directory set up on PostgreSQL before it remembered the database: credentials, and nothing else.
    writeFileSync(join(dataDir, 'credentials.json'), '{"token":"asp_x","user_id":"usr_x"}\n', {
      mode: 0o600,
    });
    for (const args of [
      ['accounts', 'add', '--data-dir', dataDir, '--email', 'sam@example.com'],
      ['serve', '--data-dir', dataDir, '--port', '0'],
    ]) {
      const refused = await run(BUILT.cli, args, {}, undefined, 20_000);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(/^assistant: .*uses PostgreSQL; give its --database-url/);
      expect(existsSync(join(dataDir, 'assistant.sqlite'))).toBe(false);
    }
  });

  it('writes its log lines readably on a terminal, and as JSON lines anywhere else', async () => {
    // A custom tool module that cannot load: one warning line at start.
    mkdirSync(join(dataDir, 'tools'));
    writeFileSync(join(dataDir, 'tools', 'broken.mjs'), 'export default {;\n');
    const piped = await serve();
    expect(piped.output()).toMatch(/^\{"level":40,.*"msg":"custom tool module .*broken\.mjs skipped: /m);
    expect(await piped.stop()).toBe(0);
    running.length = 0;

    // `script` gives the server a terminal of its own.
    const node = process.env.ASSISTANT_E2E_NODE ?? process.execPath;
    const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const command = [node, BUILT.cli, 'serve', '--data-dir', dataDir, '--port', '0'].map(quoted).join(' ');
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], {
      env: childEnv({ NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    terminal.stdout.on('data', (chunk: Buffer) => (output += chunk));
    terminal.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const closed = new Promise((resolve) => terminal.on('close', resolve));
    try {
      const until = Date.now() + 20_000;
      while (!(output.includes('Press Ctrl+C') && output.includes('skipped')) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(output).toContain('Assistant is running at');
      expect(output).toMatch(
        /^\d\d:\d\d:\d\d WARN {2}\[CustomTools\] custom tool module .*broken\.mjs skipped: syntax error/m,
      );
      expect(output).not.toMatch(/^\{/m);
      expect(output).not.toContain('"level"');
    } finally {
      process.kill(-terminal.pid!, 'SIGTERM');
      await closed;
    }
  });

  it('takes over a lock left by a server that no longer runs', async () => {
    const first = await serve();
    first.child.kill('SIGKILL');
    await first.stop();
    running.length = 0;
    const second = await serve();
    expect((await new ApiClient(second.url, credentials().token).get('/me')).status).toBe(200);
  });

  it('writes a new owner token when the credentials file was lost', async () => {
    const first = await serve();
    const { token: oldToken } = credentials();
    await first.stop();
    running.length = 0;
    rmSync(join(dataDir, 'credentials.json'));
    const second = await serve();
    expect(second.output()).toContain('Wrote a new owner token');
    const { token } = credentials();
    expect(token).not.toBe(oldToken);
    expect((await new ApiClient(second.url, token).get('/me')).status).toBe(200);
  });

  it('explains a bad flag or an unreachable database in one line and exits non-zero', async () => {
    const badPort = await run(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', 'seventy'], {});
    expect(badPort.code).not.toBe(0);
    expect(badPort.stderr.trim()).toBe('assistant: --port must be a port number 0–65535 (got "seventy")');

    const noDb = await run(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--database-url', 'postgres://nobody@127.0.0.1:1/none'],
      {},
    );
    expect(noDb.code).not.toBe(0);
    expect(noDb.stderr.trim()).toMatch(
      /^assistant: cannot connect to PostgreSQL at 127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
    );
  });

  it.each([
    ['ASSISTANT_PORT', 'abc', 'assistant: ASSISTANT_PORT must be a port number 0–65535 (got "abc")'],
    ['ASSISTANT_TRUST_PROXY', '1', 'assistant: ASSISTANT_TRUST_PROXY must be true or false (got "1")'],
  ])('refuses %s=%s with one line naming the variable, and no stack', async (variable, value, line) => {
    const result = await run(
      BUILT.cli,
      ['serve', '--data-dir', dataDir],
      { [variable]: value },
      undefined,
      20_000,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${line}\n`);
  });

  it('says in one line that the port is taken', async () => {
    const first = await serve();
    const port = new URL(first.url).port;
    const otherDir = mkdtempSync(join(tmpdir(), 'assistant-self-host-'));
    try {
      const second = await run(BUILT.cli, ['serve', '--data-dir', otherDir, '--port', port], {});
      expect(second.code).not.toBe(0);
      expect(second.stdout).toBe('');
      expect(second.stderr.trim()).toBe(
        `assistant: port ${port} on 127.0.0.1 is already in use; is another server running? Choose another with --port`,
      );
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('shows help with examples', async () => {
    const help = await run(BUILT.cli, ['serve', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--data-dir');
    expect(help.stdout).toContain('EXAMPLES');
  });

  it('starts without loading oclif, and leaves mistakes to oclif', async () => {
    // Counts, as the server exits, the modules of oclif it loaded.
    const probe = join(dataDir, 'loaded-modules.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => {
        const oclif = Object.keys(require.cache).filter((file) => /@oclif[\\\\/]core/.test(file));
        process.stderr.write('oclif modules: ' + oclif.length + '\\n');
      });`,
    );
    const server = await serve([], { NODE_OPTIONS: `--require ${probe}` });
    expect(await server.stop()).toBe(0);
    expect(server.output()).toContain('oclif modules: 0\n');

    const mistaken = await run(BUILT.cli, ['serve', '--data-dir', dataDir, '--no-such-flag'], {});
    expect(mistaken.code).not.toBe(0);
    expect(mistaken.stderr).toMatch(/Nonexistent flag: --no-such-flag/);
  });

  it('answers 429 with Retry-After past the configured limit, per token', async () => {
    const server = await serve([], { ASSISTANT_RATE_LIMIT_CORE: '5' });
    const api = new ApiClient(server.url, credentials().token);
    for (let i = 1; i <= 5; i++) {
      const res = await api.get('/me');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
    }
    const limited = await api.get<Problem>('/me');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

    const added = await run(
      BUILT.cli,
      ['accounts', 'add', '--data-dir', dataDir, '--email', 'sam@example.com'],
      {},
    );
    const other = api.withToken(JSON.parse(added.stdout).token);
    expect((await other.get('/me')).status).toBe(200);
  });

  it('counts queries in their own bucket and answers 429 past its limit', async () => {
    const server = await serve([], { ASSISTANT_RATE_LIMIT_QUERIES: '2' });
    const api = new ApiClient(server.url, credentials().token);
    for (let i = 0; i < 2; i++) {
      const res = await api.request('POST', '/queries', {
        json: { text: 'hello' },
        headers: { accept: 'text/event-stream' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-resource')).toBe('queries');
    }
    // The bucket follows the route, however the path is spelled.
    const limited = await api.request<Problem>('POST', '/%71ueries', { json: { text: 'hello' } });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('x-ratelimit-resource')).toBe('queries');
    // The bucket is the user's: another of their tokens does not get a fresh one (SPEC §7).
    const second = await api.post<{ token: string }>('/tokens', {
      name: 'second',
      scopes: ['write:queries'],
    });
    const sameUser = await api.post<Problem>('/queries', { text: 'hello' }, { token: second.body.token });
    expect(sameUser.status).toBe(429);
    // Other calls are in the core bucket and still go through.
    expect((await api.get('/me')).headers.get('x-ratelimit-resource')).toBe('core');
  });

  it('stops on SIGTERM within its grace: a query still running then ends as interrupted, and the data directory is released', async () => {
    const server = await serve([], { ASSISTANT_BUILTIN_PACING_MS: '300' });
    const stream = readStream(`${server.url}/api/v1/queries`, {
      token: credentials().token,
      body: { text: 'what can you do?' },
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const stoppedAt = Date.now();
    expect(await server.stop()).toBe(0);
    running.length = 0;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    const result = await stream;
    // The self-hosted grace (ASSISTANT_SHUTDOWN_GRACE_SECONDS, 5 s) is shorter than this paced answer.
    expect(result.events.at(-1)!.event).toMatchObject({ type: 'query.incomplete', reason: 'interrupted' });
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
  });
});
