import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DriverEnvironment } from './family';
import { AddressRefusedError, assertHostAllowed, connectionFetch, pinHost, type Resolver } from './pinning';

const env = (deployment: 'hosted' | 'self-hosted', allowPrivateHosts: string[] = []): DriverEnvironment => ({
  deployment,
  allowPrivateHosts,
  localFolders: [],
  signal: new AbortController().signal,
});

describe("a connection's host", () => {
  it('on the hosted API, may not be a private or local address, by number or by name', async () => {
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.5', '[::1]', '169.254.169.254']) {
      await expect(assertHostAllowed(host, env('hosted'))).rejects.toThrow(
        /private or local address.*ASSISTANT_ALLOW_PRIVATE_HOSTS/,
      );
    }
    await expect(assertHostAllowed('93.184.216.34', env('hosted'))).resolves.toBeUndefined();
  });

  it('unless the operator allows it; and a self-hosted server reaches its own network', async () => {
    await expect(assertHostAllowed('127.0.0.1', env('hosted', ['127.0.0.1/32']))).resolves.toBeUndefined();
    await expect(assertHostAllowed('localhost', env('self-hosted'))).resolves.toBeUndefined();
    await expect(assertHostAllowed('no-such-host.invalid', env('hosted'))).rejects.toThrow(
      /could not be resolved/,
    );
  });
});

describe('pinning a socket client to the address that was checked', () => {
  /** A name whose DNS answer changes after the first question, as a rebinding attacker's server answers. */
  const rebinding = (): Resolver => {
    const answers = ['93.184.216.34', '127.0.0.1'];
    return async () => [{ address: answers.shift() ?? '127.0.0.1', family: 4 }];
  };

  it('on the hosted API, hands the client the checked address and keeps the name for TLS', async () => {
    const resolve = rebinding();
    expect(await pinHost('mail.example.test', env('hosted'), resolve)).toEqual({
      host: '93.184.216.34',
      servername: 'mail.example.test',
    });
    // The second answer would have been loopback: the client never asks, it was given the first.
    await expect(pinHost('mail.example.test', env('hosted'), resolve)).rejects.toThrow(
      /private or local address \(127\.0\.0\.1\)/,
    );
  });

  it('leaves the name alone on a self-hosted server, and an address as it is', async () => {
    expect(await pinHost('mail.lan', env('self-hosted'), rebinding())).toEqual({ host: 'mail.lan' });
    expect(await pinHost('93.184.216.34', env('hosted'))).toEqual({ host: '93.184.216.34' });
  });
});

describe("a connection's fetch on the hosted API", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/away') {
        res.writeHead(302, { location: `http://127.0.0.2:${port}/` });
        return res.end();
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const causeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: Error) => error.cause ?? error,
    );

  it('refuses a private address written in the URL', async () => {
    const hostedFetch = connectionFetch(env('hosted'));
    const cause = await causeOf(hostedFetch(`http://127.0.0.1:${port}/`));
    expect(cause).toBeInstanceOf(AddressRefusedError);
    expect(String(cause)).toMatch(/127\.0\.0\.1 is a private or local address/);
  });

  it('reaches what the operator allows, and checks every redirect again', async () => {
    const hostedFetch = connectionFetch(env('hosted', ['127.0.0.1/32']));
    expect(await (await hostedFetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
    const cause = await causeOf(hostedFetch(`http://127.0.0.1:${port}/away`));
    expect(String(cause)).toMatch(/127\.0\.0\.2 is a private or local address/);
  });

  it('is the global fetch on a self-hosted server', async () => {
    expect(connectionFetch(env('self-hosted'))).toBe(globalThis.fetch);
  });
});
