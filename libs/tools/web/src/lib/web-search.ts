import type { AddressPolicy } from '@assistant/tool-kit';
import { checkedGet, parseHttpUrl, readBody, WebFetchError } from './checked-get';
import { decodeEntities } from './html-text';

/** What a web search answers: the engine's best results, untrusted text to read. */
export interface SearchResults {
  query: string;
  /** The provider that answered (`searxng`, `brave`). */
  engine: string;
  results: SearchResult[];
}

export interface SearchResult {
  title: string;
  url: string;
  /** The engine's excerpt of the page, as plain text. */
  snippet: string;
}

export const SEARCH_LIMITS = {
  maxResults: 10,
  defaultResults: 5,
  timeoutMs: 10_000,
  /** Bytes of an engine's answer read at most. */
  maxBytes: 2_000_000,
  maxSnippetChars: 400,
};

/**
 * One search engine's API: where a query goes, with which headers, and how its JSON becomes results. The request
 * itself is made here, to the engine's checked address only.
 */
export interface SearchEngine {
  name: string;
  request(query: string, count: number): { url: string; headers: Record<string, string> };
  /** The results in the engine's answer, or a WebFetchError when the answer says something else. */
  results(body: unknown): Array<{ title?: unknown; url?: unknown; snippet?: unknown }>;
  /** What an error status means, in the engine's own terms ("the API key was refused"). */
  refusal(status: number, body: string): string;
}

/** Asks `engine` for `query` and keeps its first `count` results that have a web address. */
export async function searchWith(
  engine: SearchEngine,
  policy: AddressPolicy,
  query: string,
  count: number,
  outer?: AbortSignal,
): Promise<SearchResults> {
  const deadline = AbortSignal.timeout(SEARCH_LIMITS.timeoutMs);
  const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
  const { url: raw, headers } = engine.request(query, count);
  const url = parseHttpUrl(raw);
  const timedOut = (error: unknown) => {
    if (deadline.aborted)
      throw new WebFetchError(`${engine.name} did not answer within ${SEARCH_LIMITS.timeoutMs / 1000} s`);
    throw error;
  };
  const response = await checkedGet(url, {
    policy,
    signal,
    headers: { accept: 'application/json', ...headers },
  }).catch(timedOut);
  const { body } = await readBody(url, response, SEARCH_LIMITS.maxBytes, signal).catch(timedOut);
  const text = body.toString('utf8');
  const status = response.statusCode ?? 0;
  if (status >= 400) throw new WebFetchError(engine.refusal(status, text));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebFetchError(`${engine.name} at ${url.host} did not answer with JSON`);
  }
  const results = engine
    .results(parsed)
    .flatMap((r) => {
      const link = typeof r.url === 'string' && /^https?:\/\//i.test(r.url) ? r.url : null;
      if (!link) return [];
      return [
        {
          title: plain(r.title) || link,
          url: link,
          snippet: plain(r.snippet).slice(0, SEARCH_LIMITS.maxSnippetChars),
        },
      ];
    })
    .slice(0, count);
  return { query, engine: engine.name, results };
}

/** Engines mark the matched words with `<strong>` and escape entities: the answer wants plain text. */
function plain(value: unknown): string {
  if (typeof value !== 'string') return '';
  // `[^<>]`: a tag ends before the next `<`, so a run of `<` without `>` is read once, not once per `<`.
  return decodeEntities(value.replace(/<[^<>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}
