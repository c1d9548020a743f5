import { UserEntity } from './entities/user.entity';
import { TokenEntity } from './entities/token.entity';
import { DiscussionEntity } from './entities/discussion.entity';
import { MessageEntity } from './entities/message.entity';
import { MemoryEntity } from './entities/memory.entity';
import { QueryEntity } from './entities/query.entity';
import { fromJson, toDate, toDateOrNull } from './sql';

/** Column lists and row mappers for the plain-SQL reads; the same shapes TypeORM would hydrate. */
type Row = Record<string, unknown>;

export const USER_COLUMNS = 'id, email, display_name, auto_approved_tools, created_at';
export function userFromRow(r: Row): UserEntity {
  return Object.assign(new UserEntity(), {
    id: r.id,
    email: r.email,
    displayName: r.display_name,
    autoApprovedTools: fromJson<string[]>(r.auto_approved_tools),
    createdAt: toDate(r.created_at),
  });
}

export const TOKEN_COLUMNS =
  'id, user_id, kind, name, scopes, digest, token_prefix, created_at, expires_at, last_used_at, parent_token_id';
export function tokenFromRow(r: Row): TokenEntity {
  return Object.assign(new TokenEntity(), {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    name: r.name,
    scopes: fromJson<string[]>(r.scopes),
    digest: r.digest,
    tokenPrefix: r.token_prefix,
    createdAt: toDate(r.created_at),
    expiresAt: toDateOrNull(r.expires_at),
    lastUsedAt: toDateOrNull(r.last_used_at),
    parentTokenId: r.parent_token_id ?? null,
  });
}

export const DISCUSSION_COLUMNS = 'id, user_id, title, message_count, created_at, updated_at';
export function discussionFromRow(r: Row): DiscussionEntity {
  return Object.assign(new DiscussionEntity(), {
    id: r.id,
    userId: r.user_id,
    title: r.title,
    messageCount: Number(r.message_count),
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  });
}

export const MESSAGE_COLUMNS = 'id, discussion_id, user_id, role, text, tool_calls, query_id, created_at';
export function messageFromRow(r: Row): MessageEntity {
  return Object.assign(new MessageEntity(), {
    id: r.id,
    discussionId: r.discussion_id,
    userId: r.user_id,
    role: r.role,
    text: r.text,
    toolCalls: fromJson(r.tool_calls),
    queryId: r.query_id ?? null,
    createdAt: toDate(r.created_at),
  });
}

export const MEMORY_COLUMNS = 'id, user_id, content, tags, source, discussion_id, created_at, updated_at';
export function memoryFromRow(r: Row): MemoryEntity {
  return Object.assign(new MemoryEntity(), {
    id: r.id,
    userId: r.user_id,
    content: r.content,
    tags: fromJson<string[]>(r.tags),
    source: r.source,
    discussionId: r.discussion_id ?? null,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  });
}

export const QUERY_COLUMNS =
  'id, user_id, discussion_id, message_id, model, status, owner, runner_id, created_at, ended_at, heartbeat_at';
export function queryFromRow(r: Row): QueryEntity {
  return Object.assign(new QueryEntity(), {
    id: r.id,
    userId: r.user_id,
    discussionId: r.discussion_id,
    messageId: r.message_id,
    model: r.model,
    status: r.status,
    owner: r.owner ?? '',
    runnerId: r.runner_id,
    createdAt: toDate(r.created_at),
    endedAt: toDateOrNull(r.ended_at),
    heartbeatAt: toDate(r.heartbeat_at),
  });
}
