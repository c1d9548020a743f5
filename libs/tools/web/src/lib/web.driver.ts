import { z } from 'zod';
import { addressPolicy, type ProviderDefinition } from '@assistant/tool-kit';
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
      'host names or networks (CIDR) on the local network that pages may be fetched from; none by default',
    ),
});

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
      const policy = addressPolicy([...env.allowPrivateHosts, ...settings.allow_hosts]);
      return { fetch: (url, signal) => fetchPage(url, { policy, signal, limits }) };
    },
    // Nothing to log in to: the allow-list was checked by its schema.
    test: async () => undefined,
  };
}
