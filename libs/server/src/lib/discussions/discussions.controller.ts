import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  createDiscussionSchema,
  pageQuerySchema,
  searchablePageQuerySchema,
  updateDiscussionSchema,
  type CreateDiscussion,
  type PageQuery,
  type SearchablePageQuery,
  type UpdateDiscussion,
} from '@assistant/contracts';
import { CurrentPrincipal, Scopes, type Principal } from '@assistant/auth';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { DiscussionsService } from './discussions.service';

@Controller('discussions')
export class DiscussionsController {
  constructor(private readonly discussions: DiscussionsService) {}

  @Get()
  @Scopes('read:discussions')
  list(
    @CurrentPrincipal() p: Principal,
    @Query(validQuery(searchablePageQuerySchema)) query: SearchablePageQuery,
  ) {
    return this.discussions.list(p.userId, query);
  }

  @Post()
  @Scopes('write:discussions')
  create(@CurrentPrincipal() p: Principal, @Body(validBody(createDiscussionSchema)) body: CreateDiscussion) {
    return this.discussions.create(p.userId, body.title);
  }

  @Get(':id')
  @Scopes('read:discussions')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.discussions.get(p.userId, id);
  }

  @Patch(':id')
  @Scopes('write:discussions')
  rename(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body(validBody(updateDiscussionSchema)) body: UpdateDiscussion,
  ) {
    return this.discussions.rename(p.userId, id, body.title);
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('write:discussions')
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.discussions.delete(p.userId, id);
  }

  @Get(':id/messages')
  @Scopes('read:discussions')
  messages(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query(validQuery(pageQuerySchema)) query: PageQuery,
  ) {
    return this.discussions.listMessages(p.userId, id, query);
  }
}
