import { z } from 'zod';
import {
  assertHostAllowed,
  connectionPolicy,
  ConnectionTestError,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import { WebFetchError } from './checked-get';
import type { WebSearcher } from './web.driver';
import { searchWith, type SearchEngine } from './web-search';

const searxngSettings = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'url must be an http(s) address' })
    .describe(
      'the SearXNG instance, e.g. http://searx.lan:8080 (its settings.yml must allow the json format)',
    ),
});

/** Where a message from an engine's error body is, if it is JSON of a known shape. */
function reason(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { detail?: string } | string; message?: string };
    const detail = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.detail ?? parsed.message);
    return detail ? `: ${detail}` : '';
  } catch {
    return '';
  }
}

/** SearXNG's JSON API (`GET /search?q=…&format=json`), https://docs.searxng.org/dev/search_api.html */
function searxng(base: string): SearchEngine {
  return {
    name: 'SearXNG',
    request: (query) => {
      const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
      url.search = new URLSearchParams({ q: query, format: 'json', safesearch: '1' }).toString();
      return { url: url.href, headers: {} };
    },
    results: (body) => {
      const results = (body as { results?: unknown }).results;
      if (!Array.isArray(results)) throw new WebFetchError('SearXNG answered without a results list');
      return results.map((r: { title?: unknown; url?: unknown; content?: unknown }) => ({
        title: r.title,
        url: r.url,
        snippet: r.content,
      }));
    },
    refusal: (status, body) =>
      status === 403
        ? 'SearXNG refused the JSON format (403): add json to search.formats in its settings.yml'
        : `SearXNG answered ${status}${reason(body)}`,
  };
}

const braveSettings = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'url must be an http(s) address' })
    .default('https://api.search.brave.com')
    .describe('the Brave Search API (change it only for a proxy in front of it)'),
});

/** Brave's Web Search API (`GET /res/v1/web/search`), https://api-dashboard.search.brave.com/app/documentation */
function brave(base: string, apiKey: string): SearchEngine {
  return {
    name: 'Brave Search',
    request: (query, count) => {
      const url = new URL('res/v1/web/search', base.endsWith('/') ? base : `${base}/`);
      url.search = new URLSearchParams({ q: query, count: String(count), safesearch: 'moderate' }).toString();
      return { url: url.href, headers: { 'x-subscription-token': apiKey } };
    },
    results: (body) => {
      const web = (body as { web?: { results?: unknown } }).web;
      // A query with no web results has no `web` section at all.
      if (!web) return [];
      if (!Array.isArray(web.results))
        throw new WebFetchError('Brave Search answered without a results list');
      return web.results.map((r: { title?: unknown; url?: unknown; description?: unknown }) => ({
        title: r.title,
        url: r.url,
        snippet: r.description,
      }));
    },
    refusal: (status, body) =>
      status === 401 || status === 403
        ? `Brave Search refused the API key (${status})${reason(body)}`
        : status === 429
          ? `Brave Search says the plan's rate limit is reached (429)${reason(body)}`
          : `Brave Search answered ${status}${reason(body)}`,
  };
}

/** A provider over one engine: its host checked when it opens and on every request (connected to as checked). */
function engineProvider<Settings extends z.ZodObject, Secrets extends z.ZodObject>(definition: {
  name: string;
  description: string;
  settings: Settings;
  secrets: Secrets;
  engine(settings: z.infer<Settings>, secrets: z.infer<Secrets>): SearchEngine;
}): ProviderDefinition<WebSearcher, Settings, Secrets> {
  return {
    name: definition.name,
    description: definition.description,
    settings: definition.settings,
    secrets: definition.secrets,
    open: async ({ settings, secrets }, env) => {
      const engine = definition.engine(settings, secrets);
      await assertHostAllowed(new URL(engine.request('', 1).url).hostname, env);
      const policy = connectionPolicy(env);
      return { search: (query, count, signal) => searchWith(engine, policy, query, count, signal) };
    },
    // One real query: proves the address, the key and that the engine answers JSON.
    test: async (driver, signal) => {
      await driver.search('weather', 1, signal).catch((error: Error) => {
        throw new ConnectionTestError(error.message);
      });
    },
  };
}

export const searxngProvider = engineProvider({
  name: 'searxng',
  description: 'Web search through a SearXNG instance',
  settings: searxngSettings,
  secrets: z.object({}),
  engine: (settings) => searxng(settings.url),
});

export const braveProvider = engineProvider({
  name: 'brave',
  description: 'Web search through the Brave Search API',
  settings: braveSettings,
  secrets: z.object({ api_key: z.string().trim().min(1).describe('a Brave Search API subscription token') }),
  engine: (settings, secrets) => brave(settings.url, secrets.api_key),
});
