import { Controller, Param } from '@nestjs/common';
import type { CreateMemory, SearchablePageQuery, UpdateMemory } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody, RouteQuery } from '@assistant/server-kit';
import { MemoriesService } from './memories.service';

@Controller()
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  @Route('listMemories')
  list(@CurrentPrincipal() p: Principal, @RouteQuery() query: SearchablePageQuery) {
    return this.memories.list(p.userId, query);
  }

  @Route('createMemory')
  create(@CurrentPrincipal() p: Principal, @RouteBody() body: CreateMemory) {
    return this.memories.create(p.userId, body);
  }

  @Route('getMemory')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.memories.get(p.userId, id);
  }

  @Route('updateMemory')
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @RouteBody() body: UpdateMemory) {
    return this.memories.update(p.userId, id, body);
  }

  @Route('deleteMemory')
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.memories.delete(p.userId, id);
  }
}
