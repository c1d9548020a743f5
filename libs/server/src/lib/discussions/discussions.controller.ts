import { Controller, Param } from '@nestjs/common';
import type {
  CreateDiscussion,
  PageQuery,
  SearchablePageQuery,
  UpdateDiscussion,
} from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody, RouteQuery } from '@assistant/server-kit';
import { DiscussionsService } from './discussions.service';

@Controller()
export class DiscussionsController {
  constructor(private readonly discussions: DiscussionsService) {}

  @Route('listDiscussions')
  list(@CurrentPrincipal() p: Principal, @RouteQuery() query: SearchablePageQuery) {
    return this.discussions.list(p.userId, query);
  }

  @Route('createDiscussion')
  create(@CurrentPrincipal() p: Principal, @RouteBody() body: CreateDiscussion) {
    return this.discussions.create(p.userId, body.title);
  }

  @Route('getDiscussion')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.discussions.get(p.userId, id);
  }

  @Route('renameDiscussion')
  rename(@CurrentPrincipal() p: Principal, @Param('id') id: string, @RouteBody() body: UpdateDiscussion) {
    return this.discussions.rename(p.userId, id, body.title);
  }

  @Route('deleteDiscussion')
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.discussions.delete(p.userId, id);
  }

  @Route('listMessages')
  messages(@CurrentPrincipal() p: Principal, @Param('id') id: string, @RouteQuery() query: PageQuery) {
    return this.discussions.listMessages(p.userId, id, query);
  }
}
