import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssistantClient } from '@assistant/client';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

const CALDAV = process.env.ASSISTANT_TEST_CALDAV_URL ?? 'http://127.0.0.1:5232';

/** A real CalDAV server (Radicale), connected over the API and used through `assistant chat`. */
describe('the calendar through a connection and a query', () => {
  let dataDir: string;
  let server: ServerProcess;
  const chat = (...args: string[]) => run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-calendar-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {
      ASSISTANT_TIMEZONE: 'Europe/Berlin',
    });
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a wrong password with the server’s reason, then adds an event once confirmed and lists it', async () => {
    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    const client = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    const calendar = `${CALDAV}/alice/e2e-${randomBytes(4).toString('hex')}/`;
    const made = await fetch(calendar, {
      method: 'MKCALENDAR',
      headers: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` },
    }).catch((error: Error) => {
      throw new Error(
        `no CalDAV server at ${CALDAV} (${error.message}); start one with tools/workspace/services/calendar.sh`,
      );
    });
    expect(made.status).toBe(201);

    const body = {
      family: 'calendar' as const,
      provider: 'caldav',
      settings: { url: calendar, username: 'alice' },
    };
    const refused = await client
      .createConnection({ body: { ...body, secrets: { password: 'not-it' } } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 422, code: 'connection_failed' });
    await client.createConnection({ body: { ...body, name: 'Radicale', secrets: { password: 'secret' } } });

    const added = await chat('--yes', 'add lunch with Sam on Friday at 1pm');
    expect(added.stdout).toMatch(/^Added “Lunch with Sam” on Friday \d{1,2} \w+, 13:00–14:00\.\n$/);
    const listed = await chat("what's on my calendar on Friday?");
    expect(listed.stdout).toMatch(/^On Friday \d{1,2} \w+ you have: 13:00–14:00 Lunch with Sam\.\n$/);
  });
});
