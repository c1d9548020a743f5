/**
 * The BUILT launcher (bin/assistant-mcp.js → dist/), started the way an MCP client starts it: the MCP SDK's own
 * Client over StdioClientTransport, against the stand-in server of ./stand-in-mcp-server.ts. The same test against
 * the real server is apps/api-e2e/src/mcp-launcher.e2e-spec.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startStandIn, type StandIn } from './stand-in-mcp-server';

const BIN = join(__dirname, '..', 'bin', 'assistant-mcp.js');
const TOKEN = 'asp_standInToken0123456789abcdefgh';
const TOKEN_WITHOUT_ACCOUNT = 'asp_noAccountScope0123456789abcdef';

/** The environment of the launcher: nothing of the developer's own ASSISTANT_* settings. */
function launcherEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ASSISTANT_')) env[key] = value;
  }
  return { ...env, ...extra };
}

interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  /** Messages on stdout that were not JSON-RPC, and other transport errors. */
  errors: Error[];
  listChanged(): number;
  waitForListChanged(count: number): Promise<void>;
}

async function connect(url: string, token = TOKEN, args: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--url', url, ...args],
    env: launcherEnv({ ASSISTANT_API_TOKEN: token }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'launcher-test', version: '0.0.0' });
  const errors: Error[] = [];
  let changes = 0;
  const waiters: { count: number; resolve(): void }[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes++;
    for (const waiter of waiters.filter((w) => changes >= w.count)) waiter.resolve();
  });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return {
    client,
    transport,
    errors,
    stderr: () => stderr,
    listChanged: () => changes,
    waitForListChanged: (count) =>
      changes >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
  };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((part) => part.text ?? '').join('');
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/** A port with nothing listening on it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs the built launcher to its end, stdin closed at once (the failure modes exit before reading it). */
function runLauncher(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: launcherEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function exited(transport: StdioClientTransport): Promise<void> {
  return new Promise((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
}

beforeAll(() => {
  if (!existsSync(join(__dirname, '..', 'dist', 'index.js'))) {
    throw new Error('the launcher is not built: run `npx nx build @assistant/mcp` first');
  }
});

describe('assistant-mcp relaying to a Streamable HTTP server', () => {
  let standIn: StandIn;
  let connected: Connected | undefined;

  beforeEach(async () => {
    standIn = await startStandIn({
      tokens: [{ token: TOKEN }, { token: TOKEN_WITHOUT_ACCOUNT, readAccount: false }],
    });
  });

  afterEach(async () => {
    await connected?.client.close().catch(() => undefined);
    connected = undefined;
    await standIn.stop();
  });

  it('lists the tools and calls one, with only JSON-RPC on stdout and the token nowhere on stderr', async () => {
    connected = await connect(standIn.url, TOKEN, ['--verbose']);
    const { client } = connected;

    expect(client.getServerVersion()).toMatchObject({ name: 'assistant-stand-in' });
    expect(await toolNames(client)).toEqual(['echo', 'slow']);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    const failed = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(failed.isError).toBe(true);

    expect(connected.errors).toEqual([]);
    expect(connected.stderr()).not.toContain(TOKEN);
    // After initialize, every request names the protocol version that the server chose.
    expect(standIn.requests.find((r) => r.rpc === 'tools/call')?.protocolVersion).toBe('2025-11-25');
    // The launcher checked the token once, then spoke MCP with it.
    expect(standIn.requests.map((r) => `${r.method} ${r.path}`).slice(0, 2)).toEqual([
      'GET /api/v1/me',
      'POST /api/v1/mcp',
    ]);
  });

  it('relays notifications/tools/list_changed from the server', async () => {
    connected = await connect(standIn.url);
    expect(await toolNames(connected.client)).toEqual(['echo', 'slow']);
    // The GET stream that carries server notifications is opened after `initialized`; wait for it.
    await waitFor(() => standIn.requests.some((r) => r.method === 'GET' && r.path === '/api/v1/mcp'));

    standIn.addTool('weather');

    await connected.waitForListChanged(1);
    expect(await toolNames(connected.client)).toEqual(['echo', 'slow', 'weather']);
  });

  it('accepts a token without read:account (403 on /me still means a valid token)', async () => {
    connected = await connect(standIn.url, TOKEN_WITHOUT_ACCOUNT);
    expect(await toolNames(connected.client)).toEqual(['echo', 'slow']);
  });

  it('carries on when the server restarts: a new session, list_changed, and calls work again', async () => {
    connected = await connect(standIn.url);
    await waitFor(() => standIn.requests.some((r) => r.method === 'GET' && r.path === '/api/v1/mcp'));
    const port = standIn.port;

    await standIn.stop();
    standIn = await startStandIn({ port, tokens: [{ token: TOKEN }], extraTools: ['weather'] });

    // Without any call from the client, the launcher notices the lost GET stream, opens a new session with the
    // client's own initialize, and tells the client that the tools may have changed.
    await connected.waitForListChanged(1);
    expect(standIn.sessionsOpened()).toBe(1);
    expect(await toolNames(connected.client)).toEqual(['echo', 'slow', 'weather']);
    expect(textOf(await connected.client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe(
      'echo: again',
    );
    expect(connected.errors).toEqual([]);
  });

  it('sends a request again on a new session when the server forgot the session (404)', async () => {
    connected = await connect(standIn.url);
    const port = standIn.port;
    // Restarted between two calls, before the launcher could notice: the next POST names the old session.
    await standIn.stop();
    standIn = await startStandIn({ port, tokens: [{ token: TOKEN }] });

    expect(textOf(await connected.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe(
      'echo: x',
    );
  });

  it('answers a call in flight when the server goes away with an error, and the next call works once it is back', async () => {
    connected = await connect(standIn.url);
    const port = standIn.port;
    const inFlight = connected.client.callTool({ name: 'slow', arguments: { ms: 10_000 } });
    await waitFor(() => standIn.requests.some((r) => r.rpc === 'tools/call'));

    await standIn.stop();

    await expect(inFlight).rejects.toThrow(/broke before it answered/);
    standIn = await startStandIn({ port, tokens: [{ token: TOKEN }] });
    expect(textOf(await connected.client.callTool({ name: 'echo', arguments: { text: 'y' } }))).toBe(
      'echo: y',
    );
  });

  it('answers a call whose connection breaks with an error, while the session goes on', async () => {
    connected = await connect(standIn.url);
    const inFlight = connected.client.callTool({ name: 'slow', arguments: { ms: 10_000 } });
    await waitFor(() => standIn.toolCallsStreaming() === 1);

    standIn.breakToolCalls();

    await expect(inFlight).rejects.toThrow(/broke before it answered/);
    expect(textOf(await connected.client.callTool({ name: 'echo', arguments: { text: 'z' } }))).toBe(
      'echo: z',
    );
  });

  it('sends a call made just after the server went away again once it is back', async () => {
    connected = await connect(standIn.url);
    await waitFor(() => standIn.requests.some((r) => r.method === 'GET' && r.path === '/api/v1/mcp'));
    const port = standIn.port;
    await standIn.stop();

    // Refused at once (the launcher has not noticed yet): never received, so it waits and goes again.
    const call = connected.client.callTool({ name: 'echo', arguments: { text: 'soon' } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    standIn = await startStandIn({ port, tokens: [{ token: TOKEN }] });

    expect(textOf(await call)).toBe('echo: soon');
  });

  it('holds a call made while the server is down until it is back', async () => {
    connected = await connect(standIn.url);
    const port = standIn.port;
    await standIn.stop();
    await waitFor(() =>
      /lost the server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); reconnecting/.test(connected!.stderr()),
    );

    const call = connected.client.callTool({ name: 'echo', arguments: { text: 'later' } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    standIn = await startStandIn({ port, tokens: [{ token: TOKEN }] });

    expect(textOf(await call)).toBe('echo: later');
  });

  it('ends the session and exits when the MCP client closes stdin', async () => {
    connected = await connect(standIn.url);
    await toolNames(connected.client);
    const pid = connected.transport.pid!;
    const gone = exited(connected.transport);

    await connected.client.close();
    await gone;

    await waitFor(() => !isRunning(pid));
    expect(standIn.sessionsDeleted()).toBe(1);
  });

  it('exits with one line when the server starts refusing the token', async () => {
    connected = await connect(standIn.url);
    const gone = exited(connected.transport);
    standIn.revoke(TOKEN);

    await expect(connected.client.listTools()).rejects.toThrow(/refused the token \(401\)/);
    await gone;
    expect(connected.stderr()).toMatch(
      /^assistant-mcp: the server at http:\/\/127\.0\.0\.1:\d+ refused the token \(401\); create a new one on \/profile\n$/,
    );
  });
});

describe('assistant-mcp failing before it relays anything', () => {
  let standIn: StandIn;

  beforeAll(async () => {
    standIn = await startStandIn({ tokens: [{ token: TOKEN }] });
  });

  afterAll(() => standIn.stop());

  it('without ASSISTANT_API_TOKEN: status 1, one line, nothing on stdout', async () => {
    const result = await runLauncher(['--url', standIn.url], {});

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'assistant-mcp: ASSISTANT_API_TOKEN is not set; create a token on /profile\n',
    });
  });

  it('with a token the server refuses: status 1, one line without the token, nothing on stdout', async () => {
    const bad = 'asp_notAValidToken000000000000000000';
    const result = await runLauncher(['--url', standIn.url], { ASSISTANT_API_TOKEN: bad });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `assistant-mcp: the server at ${standIn.url} refused the token (401); create a new one on /profile\n`,
    });
    expect(result.stderr).not.toContain(bad);
  });

  it('with no server at the address: status 1, one line, nothing on stdout', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runLauncher([], { ASSISTANT_API_TOKEN: TOKEN, ASSISTANT_BASE_URL: url });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `assistant-mcp: no server answers at ${url} (ECONNREFUSED); start one with assistant serve\n`,
    });
  });

  it('refuses a --token flag (flags show in process lists) with status 2, without echoing it', async () => {
    const result = await runLauncher(['--local', '--token', 'asp_secret'], {});

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^assistant-mcp: there is no --token flag[^\n]*ASSISTANT_API_TOKEN[^\n]*\n$/,
    );
    expect(result.stderr).not.toContain('asp_secret');
  });

  it('--help prints the usage with examples on stderr, keeping stdout for JSON-RPC only', async () => {
    const result = await runLauncher(['--help'], {});

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('ASSISTANT_API_TOKEN');
    expect(result.stderr).toContain('npx -y @assistant/mcp --local');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
