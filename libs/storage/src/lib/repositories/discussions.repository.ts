import type { DataSource, Repository } from 'typeorm';
import type { MessageRole, ToolCallRecord } from '@assistant/contracts';
import { DiscussionEntity } from '../entities/discussion.entity';
import { MessageEntity } from '../entities/message.entity';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import { escapeLike, plainWords } from '../search-terms';
import type { Sql, SqlStatement } from '../sql';
import { DISCUSSION_COLUMNS, MESSAGE_COLUMNS, discussionFromRow, messageFromRow } from '../rows';

export interface NewMessage {
  role: MessageRole;
  text: string;
  toolCalls?: ToolCallRecord[];
  queryId?: string | null;
  /** Lets a caller choose the id up front (a query announces its message id before the text exists). */
  id?: string;
}

type Row = Record<string, unknown>;

export class DiscussionsRepository {
  private readonly discussions: Repository<DiscussionEntity>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {
    this.discussions = dataSource.getRepository(DiscussionEntity);
  }

  /** Newest first; `q` keeps the discussions whose title contains every word of it. */
  async list(userId: string, page: PageRequest & { q?: string }): Promise<Page<DiscussionEntity>> {
    const conditions = ['user_id = ?'];
    const params: unknown[] = [userId];
    if (page.cursor) {
      conditions.push('id < ?');
      params.push(decodeCursor('discussion', page.cursor));
    }
    for (const word of plainWords(page.q ?? '')) {
      conditions.push(`LOWER(title) LIKE ? ESCAPE '\\'`);
      params.push(`%${escapeLike(word)}%`);
    }
    const rows = await this.sql.query<Row>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT ?`,
      [...params, page.limit + 1],
    );
    return toPage(rows.map(discussionFromRow), page.limit);
  }

  /** @param id given when the caller must name the discussion before it is stored (a query's first event does). */
  async create(userId: string, title: string, id = newId('discussion')): Promise<DiscussionEntity> {
    const now = new Date();
    const discussion = Object.assign(new DiscussionEntity(), {
      id,
      userId,
      title,
      messageCount: 0,
      createdAt: now,
      updatedAt: now,
    });
    // Every query that starts a discussion makes one: plain SQL (see Sql), not TypeORM's query builder.
    const at = this.sql.time(now);
    await this.sql.query(INSERT_DISCUSSION, [id, userId, title, 0, at, at]);
    return discussion;
  }

  /**
   * Creates a discussion with its first message, in one transaction: a query that starts a discussion stores it
   * and its question in one commit.
   */
  async createWithMessage(
    userId: string,
    title: string,
    id: string,
    input: NewMessage,
    also: readonly SqlStatement[] = [],
  ): Promise<MessageEntity> {
    const now = new Date();
    const message = messageOf(userId, id, input, now);
    const at = this.sql.time(now);
    await this.sql.writeTogether([
      { sql: INSERT_DISCUSSION, params: [id, userId, title, 1, at, at] },
      insertMessage(message, at),
      ...also,
    ]);
    return message;
  }

  async get(userId: string, id: string): Promise<DiscussionEntity | null> {
    const row = await this.sql.one<Row>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions WHERE id = ? AND user_id = ?`,
      [id, userId],
    );
    return row && discussionFromRow(row);
  }

  async rename(userId: string, id: string, title: string): Promise<DiscussionEntity | null> {
    const result = await this.discussions.update({ id, userId }, { title, updatedAt: new Date() });
    return (result.affected ?? 0) > 0 ? this.get(userId, id) : null;
  }

  /** Deletes the discussion and, by the foreign key's cascade, its messages. */
  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.discussions.delete({ id, userId });
    return (result.affected ?? 0) > 0;
  }

  /** Oldest first, as a conversation reads. */
  async listMessages(userId: string, discussionId: string, page: PageRequest): Promise<Page<MessageEntity>> {
    const after = page.cursor ? decodeCursor('message', page.cursor) : null;
    const rows = await this.sql.query<Row>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE user_id = ? AND discussion_id = ?${after ? ' AND id > ?' : ''}
       ORDER BY id ASC LIMIT ?`,
      [userId, discussionId, ...(after ? [after] : []), page.limit + 1],
    );
    return toPage(rows.map(messageFromRow), page.limit);
  }

  /** The last `limit` messages, oldest first: the history a model sees. */
  async recentMessages(userId: string, discussionId: string, limit: number): Promise<MessageEntity[]> {
    const rows = await this.sql.query<Row>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE user_id = ? AND discussion_id = ? ORDER BY id DESC LIMIT ?`,
      [userId, discussionId, limit],
    );
    return rows.map(messageFromRow).reverse();
  }

  /**
   * Appends a message and bumps the discussion's count and time in one transaction, with `also` (a query's
   * record goes with its question). Twice per query (its question, its answer): plain SQL (see Sql), not
   * TypeORM's query builder.
   */
  async appendMessage(
    userId: string,
    discussionId: string,
    input: NewMessage,
    also: readonly SqlStatement[] = [],
  ): Promise<MessageEntity> {
    const { message, statements } = this.appendMessageStatements(userId, discussionId, input);
    await this.sql.writeTogether([...statements, ...also]);
    return message;
  }

  /**
   * The writes of `appendMessage`, for a caller that makes them in a commit of its own (a query's answer goes
   * with the query's end: QueriesRepository.appendEvents).
   */
  appendMessageStatements(
    userId: string,
    discussionId: string,
    input: NewMessage,
  ): { message: MessageEntity; statements: SqlStatement[] } {
    const now = new Date();
    const message = messageOf(userId, discussionId, input, now);
    const at = this.sql.time(now);
    return {
      message,
      statements: [
        insertMessage(message, at),
        {
          sql: `UPDATE discussions SET message_count = message_count + 1, updated_at = ? WHERE id = ? AND user_id = ?`,
          params: [at, discussionId, userId],
        },
      ],
    };
  }
}

const INSERT_DISCUSSION = `INSERT INTO discussions (id, user_id, title, message_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`;

function messageOf(userId: string, discussionId: string, input: NewMessage, createdAt: Date): MessageEntity {
  return Object.assign(new MessageEntity(), {
    id: input.id ?? newId('message'),
    discussionId,
    userId,
    role: input.role,
    text: input.text,
    toolCalls: input.toolCalls ?? [],
    queryId: input.queryId ?? null,
    createdAt,
  });
}

/** The INSERT of a message; `at` is its creation time as the dialect stores it (Sql.time). */
function insertMessage(message: MessageEntity, at: Date | string): SqlStatement {
  return {
    sql: `INSERT INTO messages (${MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
      message.id,
      message.discussionId,
      message.userId,
      message.role,
      message.text,
      JSON.stringify(message.toolCalls),
      message.queryId,
      at,
    ],
  };
}
