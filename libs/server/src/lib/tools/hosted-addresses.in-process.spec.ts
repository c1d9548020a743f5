import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { QueryEvent } from '@assistant/contracts';
import { FAMILIES } from './families';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/**
 * The hosted service and its own network (B5): a customer's connection never points at loopback, link-local,
 * private or metadata addresses — by number, by a name that resolves to one, or through a setting that would
 * open them (`allow_hosts`) — and is refused with 422 before a socket reaches anything. Only the operator opens
 * private addresses (`ASSISTANT_ALLOW_PRIVATE_HOSTS`). A self-hosted server keeps reaching its household's.
 */

/** A service on the API's own network: it counts whoever reaches it, and answers as a search engine would. */
let service: Server;
let port: number;
let reached = 0;
const sockets = new Set<Socket>();
beforeAll(async () => {
  service = createServer((socket) => {
    reached++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () =>
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"results":[]}',
      ),
    );
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  port = (service.address() as AddressInfo).port;
});
afterAll(async () => {
  sockets.forEach((socket) => socket.destroy());
  await new Promise((resolve) => service.close(resolve));
});

/** The same host as a URL's host and as a bare host name setting. */
interface Target {
  url: string;
  bare: string;
}
const TARGETS: Target[] = [
  { url: '127.0.0.1', bare: '127.0.0.1' },
  // A name that resolves to loopback: checked on the address it resolves to, not on the name.
  { url: 'localhost', bare: 'localhost' },
  { url: '[::ffff:127.0.0.1]', bare: '::ffff:127.0.0.1' },
  { url: '169.254.169.254', bare: '169.254.169.254' },
  { url: '10.0.0.1', bare: '10.0.0.1' },
];
const PASSWORD = 'never-sent-5e2a';

/** A connection of each provider that has an address of its own, pointed at `target`. */
const POINTED_AT: Record<string, (target: Target) => { settings: object; secrets?: object }> = {
  'web/searxng': (t) => ({ settings: { url: `http://${t.url}:${port}/` } }),
  'web/brave': (t) => ({ settings: { url: `http://${t.url}:${port}/` }, secrets: { api_key: PASSWORD } }),
  'files/webdav': (t) => ({
    settings: { url: `http://${t.url}:${port}/dav/`, username: 'me' },
    secrets: { password: PASSWORD },
  }),
  'calendar/caldav': (t) => ({
    settings: { url: `http://${t.url}:${port}/dav/`, username: 'me' },
    secrets: { password: PASSWORD },
  }),
  'email/imap': (t) => ({
    settings: {
      imap_host: t.bare,
      imap_port: port,
      imap_tls: false,
      smtp_host: t.bare,
      smtp_port: port,
      smtp_tls: false,
      username: 'me',
      from_address: 'me@example.com',
    },
    secrets: { password: PASSWORD },
  }),
  'home/homeassistant': (t) => ({
    settings: { url: `http://${t.url}:${port}` },
    secrets: { token: PASSWORD },
  }),
  'home/mqtt': (t) => ({
    settings: { url: `mqtt://${t.url}:${port}`, username: 'me' },
    secrets: { password: PASSWORD },
  }),
};

/** The providers a hosted customer can add, but `fetch`, whose only setting is `allow_hosts` (below). */
const HOSTED_PROVIDERS = FAMILIES.flatMap((family) =>
  family.providers
    .filter((p) => !p.deployments || p.deployments.includes('hosted'))
    .map((p) => `${family.name}/${p.name}`),
).filter((name) => name !== 'web/fetch');

describe('a customer connection on the hosted service', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp({ config: { deployment: 'hosted' } });
  });
  afterAll(() => api?.close());
  beforeEach(() => (reached = 0));

  const post = (family: string, provider: string, body: { settings: object; secrets?: object }) =>
    api.inject({ method: 'POST', url: '/api/v1/connections', payload: { family, provider, ...body } });

  it('is tested here for every provider with an address of its own', () => {
    expect(Object.keys(POINTED_AT).sort()).toEqual([...HOSTED_PROVIDERS].sort());
  });

  it.each(Object.keys(POINTED_AT))(
    '%s: never points at loopback, link-local, private or metadata addresses',
    async (name) => {
      const [family, provider] = name.split('/');
      for (const target of TARGETS) {
        const res = await post(family, provider, POINTED_AT[name](target));
        expect({ target: target.url, status: res.statusCode, code: res.json().code }).toEqual({
          target: target.url,
          status: 422,
          code: 'connection_failed',
        });
        expect(res.json().detail).toMatch(/private or local address/);
        expect(res.body).not.toContain(PASSWORD);
      }
      expect(reached).toBe(0);
      expect(await api.storage.connections.list(api.userId)).toEqual([]);
    },
  );

  it.each([[['127.0.0.0/8']], [['0.0.0.0/0']], [['169.254.169.254/32']], [['metadata.google.internal']]])(
    'web/fetch: refuses allow_hosts %j with 422',
    async (allow_hosts) => {
      const res = await post('web', 'fetch', { settings: { allow_hosts } });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        code: 'connection_failed',
        detail: expect.stringMatching(/allow_hosts/),
      });
      expect(await api.storage.connections.list(api.userId)).toEqual([]);
    },
  );

  it("web_fetch of a page on the service's network is refused without suggesting allow_hosts", async () => {
    const res = await api.inject({
      method: 'POST',
      url: '/api/v1/queries',
      payload: { text: `what does http://127.0.0.1:${port}/admin say?` },
    });
    const events = res.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as QueryEvent & { error?: string });
    const call = events.find((e) => e.type === 'tool_call.completed');
    expect(call).toMatchObject({ tool: 'web_fetch', status: 'error' });
    expect(call?.error).toMatch(/127\.0\.0\.1 is a private or local address/);
    expect(call?.error).not.toMatch(/allow_hosts/);
    expect(reached).toBe(0);
  });
});

describe('a connection on a self-hosted server', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp();
  });
  afterAll(() => api?.close());

  it("still reaches the household's own network: a local search engine, and allow_hosts for pages", async () => {
    const search = await api.inject({
      method: 'POST',
      url: '/api/v1/connections',
      payload: { family: 'web', provider: 'searxng', settings: { url: `http://127.0.0.1:${port}/` } },
    });
    expect(search.statusCode).toBe(201);
    const pages = await api.inject({
      method: 'POST',
      url: '/api/v1/connections',
      payload: { family: 'web', provider: 'fetch', settings: { allow_hosts: ['127.0.0.1/32'] } },
    });
    expect(pages.statusCode).toBe(201);
  });
});
