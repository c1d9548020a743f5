import { In, type DataSource, type Repository } from 'typeorm';
import type { MemorySource } from '@assistant/contracts';
import { MemoryEntity } from '../entities/memory.entity';
import type { Dialect } from '../data-source-options';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import { searchWords } from '../search-terms';

export interface NewMemory {
  content: string;
  tags?: string[];
  source: MemorySource;
  discussionId?: string | null;
}

export class MemoriesRepository {
  private readonly repo: Repository<MemoryEntity>;

  constructor(
    dataSource: DataSource,
    private readonly dialect: Dialect,
  ) {
    this.repo = dataSource.getRepository(MemoryEntity);
  }

  /**
   * Newest first. With `q`, a full-text search: a memory matches when its content or tags contain every
   * word of `q` (English stemming, stop words ignored), on SQLite (FTS5) and PostgreSQL (tsvector) alike.
   */
  async list(userId: string, page: PageRequest & { q?: string }): Promise<Page<MemoryEntity>> {
    const qb = this.repo.createQueryBuilder('m').where('m.userId = :userId', { userId });
    if (page.cursor) qb.andWhere('m.id < :after', { after: decodeCursor('memory', page.cursor) });
    if (page.q !== undefined) {
      const words = searchWords(page.q);
      if (words.length === 0) return { items: [], nextCursor: null };
      if (this.dialect === 'sqlite') {
        // Words are letters and digits only, so quoting each one makes a safe FTS5 phrase; a space is AND.
        const match = words.map((w) => `"${w}"`).join(' ');
        qb.andWhere('m.search_rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match)', {
          match,
        });
      } else {
        qb.andWhere(`m.search_vector @@ plainto_tsquery('english', :terms)`, { terms: words.join(' ') });
      }
    }
    const rows = await qb
      .orderBy('m.id', 'DESC')
      .limit(page.limit + 1)
      .getMany();
    return toPage(rows, page.limit);
  }

  /**
   * The memories most relevant to a text, best first: any of its words may match (English stemming), ranked
   * by bm25 on SQLite and ts_rank on PostgreSQL. For recall into a model's context and the memory_search tool.
   */
  async recall(userId: string, text: string, limit: number): Promise<MemoryEntity[]> {
    const words = searchWords(text);
    if (words.length === 0) return [];
    const rows: Array<{ id: string }> =
      this.dialect === 'sqlite'
        ? await this.repo.query(
            `SELECT m.id FROM memories_fts JOIN memories m ON m.search_rowid = memories_fts.rowid
             WHERE memories_fts MATCH ? AND m.user_id = ? ORDER BY bm25(memories_fts), m.id DESC LIMIT ?`,
            [words.map((w) => `"${w}"`).join(' OR '), userId, limit],
          )
        : await this.repo.query(
            `SELECT id FROM memories WHERE user_id = $1 AND search_vector @@ to_tsquery('english', $2)
             ORDER BY ts_rank(search_vector, to_tsquery('english', $2)) DESC, id DESC LIMIT $3`,
            [userId, words.join(' | '), limit],
          );
    if (rows.length === 0) return [];
    const found = await this.repo.findBy({ id: In(rows.map((r) => r.id)), userId });
    const byId = new Map(found.map((m) => [m.id, m]));
    return rows.map((r) => byId.get(r.id)).filter((m): m is MemoryEntity => m !== undefined);
  }

  async create(userId: string, input: NewMemory): Promise<MemoryEntity> {
    const now = new Date();
    const memory = this.repo.create({
      id: newId('memory'),
      userId,
      content: input.content,
      tags: input.tags ?? [],
      source: input.source,
      discussionId: input.discussionId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await this.repo.insert(memory);
    return memory;
  }

  get(userId: string, id: string): Promise<MemoryEntity | null> {
    return this.repo.findOneBy({ id, userId });
  }

  async update(
    userId: string,
    id: string,
    changes: { content?: string; tags?: string[] },
  ): Promise<MemoryEntity | null> {
    const result = await this.repo.update({ id, userId }, { ...changes, updatedAt: new Date() });
    return (result.affected ?? 0) > 0 ? this.get(userId, id) : null;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.repo.delete({ id, userId });
    return (result.affected ?? 0) > 0;
  }
}
