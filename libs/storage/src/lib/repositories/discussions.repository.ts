import type { DataSource, Repository } from 'typeorm';
import type { MessageRole, ToolCallRecord } from '@assistant/contracts';
import { DiscussionEntity } from '../entities/discussion.entity';
import { MessageEntity } from '../entities/message.entity';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import { escapeLike, plainWords } from '../search-terms';

export interface NewMessage {
  role: MessageRole;
  text: string;
  toolCalls?: ToolCallRecord[];
  queryId?: string | null;
  /** Lets a caller choose the id up front (a query announces its message id before the text exists). */
  id?: string;
}

export class DiscussionsRepository {
  private readonly discussions: Repository<DiscussionEntity>;
  private readonly messages: Repository<MessageEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.discussions = dataSource.getRepository(DiscussionEntity);
    this.messages = dataSource.getRepository(MessageEntity);
  }

  /** Newest first; `q` keeps the discussions whose title contains every word of it. */
  async list(userId: string, page: PageRequest & { q?: string }): Promise<Page<DiscussionEntity>> {
    const qb = this.discussions.createQueryBuilder('d').where('d.userId = :userId', { userId });
    if (page.cursor) qb.andWhere('d.id < :after', { after: decodeCursor('discussion', page.cursor) });
    plainWords(page.q ?? '').forEach((word, i) => {
      qb.andWhere(`LOWER(d.title) LIKE :w${i} ESCAPE '\\'`, { [`w${i}`]: `%${escapeLike(word)}%` });
    });
    const rows = await qb
      .orderBy('d.id', 'DESC')
      .limit(page.limit + 1)
      .getMany();
    return toPage(rows, page.limit);
  }

  async create(userId: string, title: string): Promise<DiscussionEntity> {
    const now = new Date();
    const discussion = this.discussions.create({
      id: newId('discussion'),
      userId,
      title,
      messageCount: 0,
      createdAt: now,
      updatedAt: now,
    });
    await this.discussions.insert(discussion);
    return discussion;
  }

  get(userId: string, id: string): Promise<DiscussionEntity | null> {
    return this.discussions.findOneBy({ id, userId });
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
    const qb = this.messages
      .createQueryBuilder('m')
      .where('m.userId = :userId', { userId })
      .andWhere('m.discussionId = :discussionId', { discussionId });
    if (page.cursor) qb.andWhere('m.id > :after', { after: decodeCursor('message', page.cursor) });
    const rows = await qb
      .orderBy('m.id', 'ASC')
      .limit(page.limit + 1)
      .getMany();
    return toPage(rows, page.limit);
  }

  /** The last `limit` messages, oldest first: the history a model sees. */
  async recentMessages(userId: string, discussionId: string, limit: number): Promise<MessageEntity[]> {
    const rows = await this.messages
      .createQueryBuilder('m')
      .where('m.userId = :userId', { userId })
      .andWhere('m.discussionId = :discussionId', { discussionId })
      .orderBy('m.id', 'DESC')
      .limit(limit)
      .getMany();
    return rows.reverse();
  }

  /** Appends a message and bumps the discussion's count and time in one transaction. */
  async appendMessage(userId: string, discussionId: string, input: NewMessage): Promise<MessageEntity> {
    return this.dataSource.transaction(async (tx) => {
      const now = new Date();
      const message: MessageEntity = Object.assign(new MessageEntity(), {
        id: input.id ?? newId('message'),
        discussionId,
        userId,
        role: input.role,
        text: input.text,
        toolCalls: input.toolCalls ?? [],
        queryId: input.queryId ?? null,
        createdAt: now,
      });
      await tx.getRepository(MessageEntity).insert(message as never);
      await tx
        .createQueryBuilder()
        .update(DiscussionEntity)
        .set({ messageCount: () => 'message_count + 1', updatedAt: now })
        .where('id = :discussionId AND user_id = :userId', { discussionId, userId })
        .execute();
      return message;
    });
  }
}
