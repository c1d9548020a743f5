import type { Driver } from '@assistant/tool-kit';

/** How the memory tools reach the user's memories; the server implements it over its own storage. */
export interface MemoryDriver extends Driver {
  save(
    userId: string,
    input: { content: string; discussionId: string | null },
  ): Promise<{ id: string; content: string }>;
  /** The most relevant memories for a text, best first (any of its words, ranked). */
  recall(
    userId: string,
    text: string,
    limit: number,
  ): Promise<Array<{ id: string; content: string; created_at: string }>>;
  /** Deletes one of the user's memories; false when the user has none with that id. */
  forget(userId: string, id: string): Promise<boolean>;
}
