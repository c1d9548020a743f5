import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionTestError, type Deployment, type DriverEnvironment } from '@assistant/tool-kit';
import { fetchProvider, type PageFetcher } from './web.driver';

/**
 * The fetch provider's `allow_hosts` on either deployment. A self-hosted server's accounts are its household and
 * may fetch from their own network; on the hosted service only the operator opens private addresses
 * (`ASSISTANT_ALLOW_PRIVATE_HOSTS`), never a customer's connection.
 */
let service: Server;
let page: string;
const requests: string[] = [];
beforeAll(async () => {
  // Stands in for a service on the hosted API's own network (a database console, the metadata endpoint).
  service = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.setHeader('content-type', 'text/html');
    res.end('<title>Internal</title><p>internal-only-7d1e</p>');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  page = `http://127.0.0.1:${(service.address() as AddressInfo).port}/admin`;
});
afterAll(() => new Promise((resolve) => service.close(resolve)));
beforeEach(() => (requests.length = 0));

const env = (deployment: Deployment, allowPrivateHosts: string[] = []): DriverEnvironment => ({
  deployment,
  allowPrivateHosts,
  localFolders: [],
  signal: new AbortController().signal,
});
const provider = fetchProvider();
const open = (allow_hosts: string[], environment: DriverEnvironment): Promise<PageFetcher> =>
  provider.open({ settings: provider.settings.parse({ allow_hosts }), secrets: {} }, environment);
const fetched = (fetcher: PageFetcher) =>
  fetcher.fetch(page, new AbortController().signal).then(
    (p) => p.text,
    (e: Error) => e.message,
  );

describe('a fetch connection on the hosted service', () => {
  it.each([
    [['127.0.0.0/8']],
    [['0.0.0.0/0']],
    [['::/0']],
    [['169.254.169.254']],
    [['metadata.google.internal']],
    [['10.0.0.0/8', '93.184.216.0/24']],
  ])("refuses a customer's allow_hosts %j when it connects", async (allow) => {
    const refused = await open(allow, env('hosted')).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(ConnectionTestError);
    expect((refused as Error).message).toMatch(/allow_hosts/);
  });

  it('never reaches the service network, and its refusal does not suggest allow_hosts', async () => {
    const answer = await fetched(await open([], env('hosted')));
    expect(answer).toMatch(/^127\.0\.0\.1 is a private or local address/);
    expect(answer).not.toMatch(/allow_hosts/);
    expect(requests).toEqual([]);
  });

  it('reaches what the operator allows (ASSISTANT_ALLOW_PRIVATE_HOSTS), and only that', async () => {
    expect(await fetched(await open([], env('hosted', ['127.0.0.1/32'])))).toContain('internal-only-7d1e');
    expect(requests).toEqual(['/admin']);
  });
});

describe('a fetch connection on a self-hosted server', () => {
  it("reaches the household's own network once the connection allows it, and says how otherwise", async () => {
    expect(await fetched(await open(['127.0.0.1/32'], env('self-hosted')))).toContain('internal-only-7d1e');
    expect(await fetched(await open([], env('self-hosted')))).toMatch(
      /^127\.0\.0\.1 is a private or local address.*allow_hosts/,
    );
  });
});
