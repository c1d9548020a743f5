import type { FetchedPage } from './fetch-page';

const SENTENCES = 3;

/** What the built-in model says of a fetched page: its title and first sentences. */
export function webAnswer(_tool: string, output: unknown): string {
  const page = output as Partial<FetchedPage>;
  const text = (page.text ?? '').replace(/\s+/g, ' ').trim();
  const sentences = text.match(/[^.!?]+[.!?]+/g)?.map((s) => s.trim()) ?? [text];
  const opening = sentences.slice(0, SENTENCES).join(' ');
  const title = page.title ? `“${page.title}”` : page.url;
  if (!opening) return `${title} has no readable text.`;
  return `${title} says: ${opening}`;
}
