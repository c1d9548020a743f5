import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  createMemorySchema,
  searchablePageQuerySchema,
  updateMemorySchema,
  type CreateMemory,
  type SearchablePageQuery,
  type UpdateMemory,
} from '@assistant/contracts';
import { CurrentPrincipal, Scopes, type Principal } from '@assistant/auth';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { MemoriesService } from './memories.service';

@Controller('memories')
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  @Get()
  @Scopes('read:memories')
  list(
    @CurrentPrincipal() p: Principal,
    @Query(validQuery(searchablePageQuerySchema)) query: SearchablePageQuery,
  ) {
    return this.memories.list(p.userId, query);
  }

  @Post()
  @Scopes('write:memories')
  create(@CurrentPrincipal() p: Principal, @Body(validBody(createMemorySchema)) body: CreateMemory) {
    return this.memories.create(p.userId, body);
  }

  @Get(':id')
  @Scopes('read:memories')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.memories.get(p.userId, id);
  }

  @Patch(':id')
  @Scopes('write:memories')
  update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body(validBody(updateMemorySchema)) body: UpdateMemory,
  ) {
    return this.memories.update(p.userId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('write:memories')
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.memories.delete(p.userId, id);
  }
}
