import { assertHostAllowed } from './address-policy';
import type { DriverEnvironment } from './family';

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
