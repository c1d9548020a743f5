import { z } from 'zod';
import {
  addressPolicy,
  connectionPolicy,
  ConnectionTestError,
  type AddressPolicy,
  type DriverEnvironment,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import { fetchPage, type FetchedPage, type FetchLimits } from './fetch-page';
import type { SearchResults } from './web-search';

/** What `web_fetch` does through a `fetch` connection. */
export interface PageFetcher {
  fetch(url: string, signal: AbortSignal): Promise<FetchedPage>;
}

/** What `web_search` does through a search engine's connection (`searxng`, `brave`). */
export interface WebSearcher {
  search(query: string, count: number, signal: AbortSignal): Promise<SearchResults>;
}

/** The web family's drivers: each tool names the providers whose driver it needs. */
export type WebDriver = PageFetcher | WebSearcher;

const fetchSettings = z.object({
  allow_hosts: z
    .array(z.string().trim().min(1))
    .max(100)
    .default([])
    .describe(
      'host names or networks (CIDR) on the local network that pages may be fetched from (self-hosted); none by default',
    ),
});

/**
 * The addresses pages may come from. Pages are fetched at the model's request, from URLs that outside text may
 * have put there, so even a self-hosted server fetches from public addresses only, plus what its operator
 * (`ASSISTANT_ALLOW_PRIVATE_HOSTS`) and the connection (`allow_hosts`: the household's own network) allow. On the
 * hosted service the connection is a customer's: only the operator opens anything more (`connectionPolicy`), and
 * a customer's `allow_hosts` is refused when it connects, since it would open the service's own network.
 */
function pagePolicy(allowHosts: readonly string[], env: DriverEnvironment): AddressPolicy {
  if (env.deployment === 'hosted') {
    if (allowHosts.length > 0) {
      throw new ConnectionTestError(
        'allow_hosts is for a self-hosted server: on this service pages come from public addresses only, and the connection cannot open any other',
      );
    }
    return connectionPolicy(env);
  }
  return addressPolicy(
    [...env.allowPrivateHosts, ...allowHosts],
    "allow it with the connection's allow_hosts setting, or the operator with ASSISTANT_ALLOW_PRIVATE_HOSTS",
  );
}

/** Plain HTTP(S) fetching from this server: needs no account, only the operator's allow-list. */
export function fetchProvider(
  limits?: Partial<FetchLimits>,
): ProviderDefinition<PageFetcher, typeof fetchSettings> {
  return {
    name: 'fetch',
    description: 'Fetch public web pages from this server',
    settings: fetchSettings,
    secrets: z.object({}),
    open: async ({ settings }, env) => {
      const policy = pagePolicy(settings.allow_hosts, env);
      return { fetch: (url, signal) => fetchPage(url, { policy, signal, limits }) };
    },
    // Nothing to log in to: opening it checked the allow-list.
    test: async () => undefined,
  };
}
