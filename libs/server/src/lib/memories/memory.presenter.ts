import type { Memory } from '@assistant/contracts';
import type { MemoryEntity } from '@assistant/storage';

export function presentMemory(m: MemoryEntity): Memory {
  return {
    id: m.id,
    content: m.content,
    tags: m.tags,
    source: m.source,
    discussion_id: m.discussionId,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}
