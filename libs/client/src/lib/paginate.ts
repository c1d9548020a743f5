import type { ListEnvelope } from '@assistant/contracts';
import { AssistantClientError } from './errors';

/**
 * Every item of a list, page after page, following `next_cursor` until it is null.
 *
 * ```ts
 * for await (const memory of paginate((cursor) => client.memories.list({ q: 'bike', cursor }))) …
 * ```
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<ListEnvelope<T>>,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    const next = page.next_cursor;
    if (next === null || next === undefined || next === '') return;
    if (seen.has(next)) {
      // A server bug must not turn into an endless loop.
      throw new AssistantClientError(`the server returned the cursor ${next} twice`);
    }
    seen.add(next);
    cursor = next;
  }
}
