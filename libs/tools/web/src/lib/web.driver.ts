import { z } from 'zod';
import { addressPolicy, type ProviderDefinition } from '@assistant/tool-kit';
import { fetchPage, type FetchedPage, type FetchLimits } from './fetch-page';

/** What the web tools do through a connection. */
export interface WebDriver {
  fetch(url: string, signal: AbortSignal): Promise<FetchedPage>;
}

const fetchSettings = z.object({
  allow_hosts: z
    .array(z.string().trim().min(1))
    .max(100)
    .default([])
    .describe(
      'host names or networks (CIDR) on the local network that pages may be fetched from; none by default',
    ),
});

/** Plain HTTP(S) fetching from this server: needs no account, only the operator's allow-list. */
export function fetchProvider(
  limits?: Partial<FetchLimits>,
): ProviderDefinition<WebDriver, typeof fetchSettings> {
  return {
    name: 'fetch',
    description: 'Fetch public web pages from this server',
    settings: fetchSettings,
    secrets: z.object({}),
    open: async ({ settings }, env) => {
      const policy = addressPolicy([...env.allowPrivateHosts, ...settings.allow_hosts]);
      return { fetch: (url, signal) => fetchPage(url, { policy, signal, limits }) };
    },
    // Nothing to log in to: the allow-list was checked by its schema.
    test: async () => undefined,
  };
}
