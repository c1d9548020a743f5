import type { FetchedPage } from './fetch-page';
import type { SearchResults } from './web-search';

const SENTENCES = 3;

/** What the built-in model says once a web tool has answered. */
export function webAnswer(tool: string, output: unknown): string {
  return tool === 'web_search' ? searchAnswer(output as SearchResults) : pageAnswer(output as FetchedPage);
}

/** A fetched page: its title and first sentences. */
function pageAnswer(page: Partial<FetchedPage>): string {
  const text = (page.text ?? '').replace(/\s+/g, ' ').trim();
  const sentences = text.match(/[^.!?]+[.!?]+/g)?.map((s) => s.trim()) ?? [text];
  const opening = sentences.slice(0, SENTENCES).join(' ');
  const title = page.title ? `“${page.title}”` : page.url;
  if (!opening) return `${title} has no readable text.`;
  return `${title} says: ${opening}`;
}

/** Search results: each title with its address and excerpt, one line each. */
function searchAnswer({ query, engine, results }: SearchResults): string {
  if (results.length === 0) return `${engine} found nothing for “${query}”.`;
  const lines = results.map((r, i) => `${i + 1}. ${r.title} (${r.url})${r.snippet ? `: ${r.snippet}` : ''}`);
  const found = results.length === 1 ? 'one result' : `${results.length} results`;
  return `${engine} found ${found} for “${query}”:\n${lines.join('\n')}`;
}
