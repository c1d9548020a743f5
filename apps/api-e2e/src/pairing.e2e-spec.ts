import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ApiRequestError, AssistantClient } from '@assistant/client';
import { BUILT, childEnv, startServer, type RunResult, type ServerProcess } from './support/processes';
import { dropSchema, freshSchemaUrl } from './support/targets';
import qrcode from 'qrcode-terminal';

/** `assistant pair …` running in the background: its output so far, a wait for a line, and its end. */
function startPair(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BUILT.cli, 'pair', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    waiters.forEach((wake) => wake());
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const ended = new Promise<RunResult>((resolve) =>
    child.on('close', (code) => {
      waiters.forEach((wake) => wake());
      resolve({ code, stdout, stderr });
    }),
  );
  return {
    /** Resolves with the first match of `pattern` in stdout; rejects if the command ends without one. */
    waitFor(pattern: RegExp): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) resolve(match);
          else if (child.exitCode !== null)
            reject(new Error(`pair ended (${child.exitCode}) without ${pattern}:\n${stdout}${stderr}`));
        };
        waiters.push(check);
        check();
      });
    },
    ended,
    stop: () => child.kill('SIGTERM'),
  };
}

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('`assistant pair` against a real `assistant serve`', () => {
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-pair-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a code a phone claims over HTTP; it then exits 0 naming the device, whose token works once', async () => {
    const pair = startPair(['--json'], { ASSISTANT_DATA_DIR: dataDir });
    try {
      const [line] = await pair.waitFor(/^.*\n/);
      const created = JSON.parse(line) as { type: string; id: string; code: string; url: string };
      expect(created).toMatchObject({ type: 'pairing.created', url: server.url });
      expect(created.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

      // The phone: no token, only the address and the code of the QR code.
      const phone = new AssistantClient({ baseUrl: created.url });
      const claimed = await phone.claimPairingCode({
        body: { code: created.code.toLowerCase(), device_name: 'Test phone' },
      });
      expect(claimed.token).toMatch(/^asd_/);

      const result = await pair.ended;
      expect(result.code).toBe(0);
      const events = jsonLines(result.stdout);
      expect(events.map((e) => e.type)).toEqual(['pairing.created', 'pairing.claimed']);
      expect(events[1]).toMatchObject({
        id: created.id,
        device: { id: claimed.device.id, name: 'Test phone' },
      });
      // 127.0.0.1 is no use to a phone, and the command says so (on stderr, away from the JSON).
      expect(result.stderr).toMatch(/^assistant: warning: .*a phone cannot reach it.*--host 0\.0\.0\.0/);

      const device = new AssistantClient({ baseUrl: server.url, token: claimed.token });
      await expect(device.getMe()).resolves.toMatchObject({
        token: { kind: 'device', scopes: expect.not.arrayContaining(['write:account']) },
      });

      const again = phone.claimPairingCode({ body: { code: created.code, device_name: 'Another phone' } });
      await expect(again).rejects.toBeInstanceOf(ApiRequestError);
      await expect(again).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
    } finally {
      pair.stop();
    }
  });

  it('shows the code and a QR code for people, and the phone address given with --phone-url', async () => {
    const pair = startPair(['--phone-url', 'http://192.0.2.7:7747'], { ASSISTANT_DATA_DIR: dataDir });
    try {
      const [, code] = await pair.waitFor(/Pairing code: (\S+)/);
      await pair.waitFor(/Waiting for the phone/);
      const phone = new AssistantClient({ baseUrl: server.url });
      await phone.claimPairingCode({ body: { code, device_name: 'Kitchen tablet' } });

      const result = await pair.ended;
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/[▀▄█]{10}/);
      // The QR code and the text point the phone at the web app's pairing page at that address, the code after '#'.
      expect(result.stdout).toContain('http://192.0.2.7:7747/app/pair');
      const expectedQr = await new Promise<string>((resolve) =>
        qrcode.generate(`http://192.0.2.7:7747/app/pair#${code}`, { small: true }, resolve),
      );
      expect(result.stdout).toContain(expectedQr);
      expect(result.stdout).toMatch(/Paired: "Kitchen tablet" \(dev_\w+\)/);
    } finally {
      pair.stop();
    }
  });

  it('says in one line when the server cannot be reached, and exits 1', async () => {
    const result = await startPair(['--url', 'http://127.0.0.1:9', '--token', 'asp_x']).ended;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^assistant: cannot reach the Assistant server at http:\/\/127\.0\.0\.1:9/m,
    );
    expect(result.stdout).toBe('');
  });
});

describe('`assistant pair` when no phone comes', () => {
  const database = freshSchemaUrl();
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-pair-'));
    server = await startServer(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--port', '0', '--database-url', database.url],
      {},
    );
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(database.schema);
  });

  it('says in one line that the code expired, and exits 1', async () => {
    const pair = startPair(['--json'], { ASSISTANT_DATA_DIR: dataDir });
    try {
      const [line] = await pair.waitFor(/^.*\n/);
      const created = JSON.parse(line) as { id: string; code: string };
      // Ten minutes pass: the code's expiry moves into the past, in the server's own database.
      const db = new Client({ connectionString: database.url.split('?')[0] });
      await db.connect();
      try {
        await db.query(
          `UPDATE "${database.schema}".pairing_codes SET expires_at = now() - interval '1 second' WHERE id = $1`,
          [created.id],
        );
      } finally {
        await db.end();
      }

      const result = await pair.ended;
      expect(result.code).toBe(1);
      expect(jsonLines(result.stdout).map((e) => e.type)).toEqual(['pairing.created', 'pairing.expired']);
      const lines = result.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(/^assistant: the pairing code expired before a phone claimed it/);

      const phone = new AssistantClient({ baseUrl: server.url });
      await expect(
        phone.claimPairingCode({ body: { code: created.code, device_name: 'Late phone' } }),
      ).rejects.toMatchObject({ status: 422 });
    } finally {
      pair.stop();
    }
  });
});
