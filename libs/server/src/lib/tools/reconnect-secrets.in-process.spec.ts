import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Connection, Scope } from '@assistant/contracts';
import { PublicAddress } from '@assistant/server-kit';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { SecretBox } from './secret-box';

/**
 * Stored secrets never leave through `PATCH /connections/{id}` (B3, B9): changing where or as whom a connection
 * logs in (a URL, a host, a port, TLS, a user name) needs its secrets again, 422 without them, so that a token
 * that may change connections — a narrow one, an app's — cannot point a connection at a server of its own and
 * have this server try it with the password the user stored. Catchers stand where such a server would: they
 * must see no connection at all.
 */
const PASSWORD = 'stored-password-8c41';
const PLAIN_LOGIN = Buffer.from(`\0me\0${PASSWORD}`).toString('base64');

/** Whatever reached a catcher: how many connections, and whether the stored password came with one. */
interface Catch {
  connections: number;
  received: string;
}
const empty = (): Catch => ({ connections: 0, received: '' });
const seen = (c: Catch) => ({
  connections: c.connections,
  sawPassword: c.received.includes(PASSWORD) || c.received.includes(PLAIN_LOGIN),
});

/** An HTTP server that asks for Basic credentials and keeps the headers it was sent (a CalDAV server's place). */
function httpCatcher(caught: Catch): HttpServer {
  const server = createHttpServer((req, res) => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    caught.received += `${req.method} ${req.url} ${basic ? Buffer.from(basic, 'base64').toString() : ''}\n`;
    res.writeHead(401, { 'www-authenticate': 'Basic realm="catcher"' }).end();
  });
  server.on('connection', () => caught.connections++);
  return server;
}

/** Just enough IMAP to be sent a login: a greeting, CAPABILITY, then LOGIN or AUTHENTICATE PLAIN (refused). */
function imapCatcher(caught: Catch, sockets: Set<Socket>): Server {
  return createServer((socket) => {
    caught.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] catcher ready\r\n');
    let buffer = '';
    let authenticating: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      caught.received += chunk.toString();
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (authenticating) {
          socket.write(`${authenticating} NO [AUTHENTICATIONFAILED] caught\r\n`);
          authenticating = undefined;
          continue;
        }
        const [tag, command = '', ...rest] = line.split(' ');
        if (/^capability$/i.test(command)) socket.write(`* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n${tag} OK\r\n`);
        else if (/^authenticate$/i.test(command) && rest.length === 1) {
          authenticating = tag;
          socket.write('+ \r\n');
        } else if (/^(authenticate|login)$/i.test(command))
          socket.write(`${tag} NO [AUTHENTICATIONFAILED] caught\r\n`);
        else if (/^logout$/i.test(command)) socket.end(`* BYE\r\n${tag} OK\r\n`);
        else socket.write(`${tag} BAD not here\r\n`);
      }
    });
  });
}

const listen = async (server: Server | HttpServer): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

let api: InProcessApp;
const dav = empty();
const imap = empty();
const davServer = httpCatcher(dav);
const imapSockets = new Set<Socket>();
const imapServer = imapCatcher(imap, imapSockets);
let davPort: number;
let imapPort: number;

beforeAll(async () => {
  [davPort, imapPort] = await Promise.all([listen(davServer), listen(imapServer)]);
  api = await startInProcessApp();
});
afterAll(async () => {
  await api?.close();
  imapSockets.forEach((socket) => socket.destroy());
  davServer.closeAllConnections();
  await Promise.all([davServer, imapServer].map((s) => new Promise((resolve) => s.close(resolve))));
});
beforeEach(() => Object.assign(dav, empty()) && Object.assign(imap, empty()));

let added = 0;
/** A connection as if added earlier against the user's real server (which is not reachable here). */
async function stored(family: string, provider: string, settings: Record<string, unknown>): Promise<string> {
  const box = api.app.get(SecretBox);
  const row = await api.storage.connections.create(api.userId, {
    family,
    provider,
    // Names are unique in a family: each test's connection is another.
    name: `${provider} ${++added}`,
    settings,
    sealedSecrets: box.seal({ password: PASSWORD }, api.userId),
    status: 'ok',
    lastError: null,
  });
  return row.id;
}

const patch = (id: string, payload: object, token?: string) =>
  api.inject({ method: 'PATCH', url: `/api/v1/connections/${id}`, payload, token });

const CALDAV = { url: 'https://dav.example.com/calendars/me/', username: 'me' };
const MAILBOX = {
  imap_host: 'imap.example.com',
  imap_port: 993,
  imap_tls: true,
  smtp_host: 'smtp.example.com',
  smtp_port: 587,
  smtp_tls: true,
  username: 'me',
  from_address: 'me@example.com',
};

describe('re-pointing a CalDAV connection', () => {
  it('to another server without the password is 422, and the password goes nowhere', async () => {
    const id = await stored('calendar', 'caldav', CALDAV);
    const res = await patch(id, { settings: { ...CALDAV, url: `http://127.0.0.1:${davPort}/dav/` } });
    expect({ status: res.statusCode, body: res.json() }).toMatchObject({
      status: 422,
      body: { code: 'validation_failed', errors: [{ field: 'secrets' }] },
    });
    expect(res.json().errors[0].message).toMatch(/url/);
    expect(seen(dav)).toEqual({ connections: 0, sawPassword: false });
    const kept = (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()
      .data as Connection[];
    expect(kept.find((c) => c.id === id)?.settings).toEqual(CALDAV);
  });

  it('as another user on the same server without the password is 422 too', async () => {
    const here = { url: `http://127.0.0.1:${davPort}/dav/`, username: 'me' };
    const id = await stored('calendar', 'caldav', here);
    const res = await patch(id, { settings: { ...here, username: 'someone-else' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'secrets', message: expect.stringMatching(/username/) }]);
    expect(seen(dav)).toEqual({ connections: 0, sawPassword: false });
  });

  it('with the password given is tried with that password, never the stored one', async () => {
    const id = await stored('calendar', 'caldav', CALDAV);
    const res = await patch(id, {
      settings: { ...CALDAV, url: `http://127.0.0.1:${davPort}/dav/` },
      secrets: { password: 'typed-again-0f9d' },
    });
    expect(res.json()).toMatchObject({ code: 'connection_failed' });
    expect(dav.received).toContain('typed-again-0f9d');
    expect(seen(dav)).toMatchObject({ sawPassword: false });
  });
});

describe('re-pointing an IMAP connection', () => {
  /** The mailbox's settings with its IMAP server moved to the catcher, without TLS. */
  const atCatcher = () => ({ ...MAILBOX, imap_host: '127.0.0.1', imap_port: imapPort, imap_tls: false });

  it('to another host, port and TLS without the password is 422, and no login reaches it', async () => {
    const id = await stored('email', 'imap', MAILBOX);
    const res = await patch(id, { settings: atCatcher() });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'secrets' }] });
    expect(seen(imap)).toEqual({ connections: 0, sawPassword: false });
  });

  it('by a token that holds write:tools alone is refused alike', async () => {
    const id = await stored('email', 'imap', MAILBOX);
    const narrow = await api.issueToken(['write:tools']);
    const res = await patch(id, { settings: atCatcher() }, narrow);
    expect(res.statusCode).toBe(422);
    expect(seen(imap)).toEqual({ connections: 0, sawPassword: false });
  });

  it('keeps the stored password for a change that moves nothing (the From address)', async () => {
    const id = await stored('email', 'imap', atCatcher());
    const res = await patch(id, { settings: { ...atCatcher(), from_address: 'me@example.org' } });
    // Tried against the same server as before, as the same user: the catcher is that server here, and refuses.
    expect(res.json()).toMatchObject({ code: 'connection_failed' });
    expect(seen(imap)).toEqual({ connections: 1, sawPassword: true });
  });
});

/** An OAuth access token of this server's authorization server, for a third-party app granted `scopes`. */
async function appToken(scopes: Scope[]): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await api.storage.oauth.upsert(
    'AccessToken',
    secret,
    {
      accountId: api.userId,
      clientId: 'client_setup_wizard',
      grantId: `grant_${randomBytes(6).toString('hex')}`,
      scope: scopes.join(' '),
      aud: api.app.get(PublicAddress).apiResource,
      exp: Math.floor(Date.now() / 1000) + 900,
    },
    900,
  );
  return secret;
}

describe("a third-party app's token", () => {
  it('never adds, changes or removes connections, even with write:tools in its grant: apps never hold it', async () => {
    const id = await stored('email', 'imap', MAILBOX);
    const token = await appToken(['read:tools', 'write:tools']);
    const attempts = [
      await patch(id, { settings: MAILBOX, secrets: { password: 'x' } }, token),
      await patch(
        id,
        { settings: { ...MAILBOX, imap_host: '127.0.0.1', imap_port: imapPort, imap_tls: false } },
        token,
      ),
      await api.inject({ method: 'DELETE', url: `/api/v1/connections/${id}`, token }),
      await api.inject({
        method: 'POST',
        url: '/api/v1/connections',
        token,
        payload: { family: 'web', provider: 'searxng', settings: { url: `http://127.0.0.1:${davPort}/` } },
      }),
    ];
    expect(attempts.map((res) => [res.statusCode, res.body && res.json().code])).toEqual(
      Array(4).fill([403, 'insufficient_scope']),
    );
    expect(seen(imap)).toEqual({ connections: 0, sawPassword: false });
    expect(dav.connections).toBe(0);
    // What it was granted besides still works: it sees the connections, never their secrets.
    const listed = await api.inject({ method: 'GET', url: '/api/v1/connections', token });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(PASSWORD);
  });
});
