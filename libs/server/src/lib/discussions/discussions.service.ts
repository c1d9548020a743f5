import { Injectable } from '@nestjs/common';
import type { Discussion, ListEnvelope, Message, PageQuery, SearchablePageQuery } from '@assistant/contracts';
import type { DiscussionsRepository } from '@assistant/storage';
import { InjectRepository, ApiError } from '@assistant/server-kit';
import { QueriesService } from '@assistant/queries';
import { presentDiscussion, presentMessage } from './discussion.presenter';

export const UNTITLED_DISCUSSION = 'New discussion';

@Injectable()
export class DiscussionsService {
  constructor(
    @InjectRepository('discussions') private readonly discussions: DiscussionsRepository,
    private readonly queries: QueriesService,
  ) {}

  async list(userId: string, query: SearchablePageQuery): Promise<ListEnvelope<Discussion>> {
    const page = await this.discussions.list(userId, query);
    return { data: page.items.map(presentDiscussion), next_cursor: page.nextCursor };
  }

  async create(userId: string, title: string | undefined): Promise<Discussion> {
    return presentDiscussion(await this.discussions.create(userId, title ?? UNTITLED_DISCUSSION));
  }

  async get(userId: string, id: string): Promise<Discussion> {
    const discussion = await this.discussions.get(userId, id);
    if (!discussion) throw ApiError.notFound('discussion');
    return presentDiscussion(discussion);
  }

  async rename(userId: string, id: string, title: string): Promise<Discussion> {
    const discussion = await this.discussions.rename(userId, id, title);
    if (!discussion) throw ApiError.notFound('discussion');
    return presentDiscussion(discussion);
  }

  /** Deletes a discussion with its messages; a query still running in it is cancelled first, not failed. */
  async delete(userId: string, id: string): Promise<void> {
    await this.queries.cancelRunsIn(userId, id);
    if (!(await this.discussions.delete(userId, id))) throw ApiError.notFound('discussion');
  }

  async listMessages(userId: string, id: string, query: PageQuery): Promise<ListEnvelope<Message>> {
    await this.get(userId, id);
    const page = await this.discussions.listMessages(userId, id, query);
    return { data: page.items.map(presentMessage), next_cursor: page.nextCursor };
  }
}
