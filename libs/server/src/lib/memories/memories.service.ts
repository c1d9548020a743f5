import { Injectable } from '@nestjs/common';
import type {
  CreateMemory,
  ListEnvelope,
  Memory,
  SearchablePageQuery,
  UpdateMemory,
} from '@assistant/contracts';
import type { MemoriesRepository } from '@assistant/storage';
import { InjectRepository, ApiError } from '@assistant/server-kit';
import { presentMemory } from './memory.presenter';

@Injectable()
export class MemoriesService {
  constructor(@InjectRepository('memories') private readonly memories: MemoriesRepository) {}

  async list(userId: string, query: SearchablePageQuery): Promise<ListEnvelope<Memory>> {
    const page = await this.memories.list(userId, query);
    return { data: page.items.map(presentMemory), next_cursor: page.nextCursor };
  }

  async create(userId: string, input: CreateMemory): Promise<Memory> {
    const memory = await this.memories.create(userId, {
      ...input,
      tags: uniqueTags(input.tags),
      source: 'user',
    });
    return presentMemory(memory);
  }

  async get(userId: string, id: string): Promise<Memory> {
    const memory = await this.memories.get(userId, id);
    if (!memory) throw ApiError.notFound('memory');
    return presentMemory(memory);
  }

  async update(userId: string, id: string, changes: UpdateMemory): Promise<Memory> {
    const memory = await this.memories.update(userId, id, {
      ...(changes.content !== undefined ? { content: changes.content } : {}),
      ...(changes.tags !== undefined ? { tags: uniqueTags(changes.tags) } : {}),
    });
    if (!memory) throw ApiError.notFound('memory');
    return presentMemory(memory);
  }

  async delete(userId: string, id: string): Promise<void> {
    if (!(await this.memories.delete(userId, id))) throw ApiError.notFound('memory');
  }
}

function uniqueTags(tags: string[] | undefined): string[] {
  return [...new Set(tags ?? [])];
}
