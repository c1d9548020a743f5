import type { Discussion, Message } from '@assistant/contracts';
import type { DiscussionEntity, MessageEntity } from '@assistant/storage';

export function presentDiscussion(d: DiscussionEntity): Discussion {
  return {
    id: d.id,
    title: d.title,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
    message_count: d.messageCount,
  };
}

export function presentMessage(m: MessageEntity): Message {
  return {
    id: m.id,
    role: m.role,
    text: m.text,
    tool_calls: m.toolCalls,
    query_id: m.queryId,
    created_at: m.createdAt.toISOString(),
  };
}
