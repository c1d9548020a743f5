import type { DataSource, Repository } from 'typeorm';
import type { MemorySource } from '@assistant/contracts';
import { MemoryEntity } from '../entities/memory.entity';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import { searchWords } from '../search-terms';
import type { Sql } from '../sql';
import { MEMORY_COLUMNS, memoryFromRow } from '../rows';
import { planRecall, RECALL_BOUNDS, type RecallBounds } from '../recall-plan';
import { COLUMNS_OF_M, PostgresRecall, SqliteRecall, type MemoryRecall, type Row } from './memory-recall';

export interface NewMemory {
  content: string;
  tags?: string[];
  source: MemorySource;
  discussionId?: string | null;
}

export class MemoriesRepository {
  private readonly repo: Repository<MemoryEntity>;
  private readonly recaller: MemoryRecall;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {
    this.repo = dataSource.getRepository(MemoryEntity);
    this.recaller = sql.dialect === 'sqlite' ? new SqliteRecall(sql) : new PostgresRecall(sql);
  }

  /**
   * Newest first. With `q`, a full-text search: a memory matches when its content or tags contain every
   * word of `q` (English stemming, stop words ignored), on SQLite (FTS5) and PostgreSQL (tsvector) alike.
   */
  async list(userId: string, page: PageRequest & { q?: string }): Promise<Page<MemoryEntity>> {
    const conditions = ['m.user_id = ?'];
    const params: unknown[] = [userId];
    if (page.cursor) {
      conditions.push('m.id < ?');
      params.push(decodeCursor('memory', page.cursor));
    }
    if (page.q !== undefined) {
      const words = searchWords(page.q);
      if (words.length === 0) return { items: [], nextCursor: null };
      if (this.sql.dialect === 'sqlite') {
        // Words are letters and digits only, so quoting each one makes a safe FTS5 phrase; a space is AND.
        conditions.push('m.search_rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?)');
        params.push(words.map((w) => `"${w}"`).join(' '));
      } else {
        conditions.push(`m.search_vector @@ plainto_tsquery('english', ?)`);
        params.push(words.join(' '));
      }
    }
    const text = `SELECT ${COLUMNS_OF_M} FROM memories m WHERE ${conditions.join(' AND ')} ORDER BY m.id DESC LIMIT ?`;
    const values = [...params, page.limit + 1];
    // A search is planned with its words (see QueryOptions.planEachTime); a plain page is prepared once.
    const rows = await this.sql.query<Row>(text, values, { planEachTime: page.q !== undefined });
    return toPage(rows.map(memoryFromRow), page.limit);
  }

  /**
   * The memories most relevant to a text, best first, for recall into a model's context and the memory_search
   * tool. Any of its words may match (English stemming). Bounded (see recall-plan.ts): the selective words of
   * the question (in few memories) are ranked over every memory, by bm25 on SQLite and by ts_rank of the whole
   * question on PostgreSQL; the places they leave are filled from the newest memories with the common words,
   * those with all of them first, then two, then any (see MemoryRecall.recall for each dialect). `bounds` is
   * for tests that need common words in a small memory.
   */
  async recall(
    userId: string,
    text: string,
    limit: number,
    bounds: RecallBounds = RECALL_BOUNDS,
  ): Promise<MemoryEntity[]> {
    const words = searchWords(text);
    if (words.length === 0) return [];
    const counts = await this.recaller.documentCounts(words, bounds);
    // No memory has any of the words: nothing to search for (a question about something never remembered).
    if (this.recaller.countsAreExact && counts.every((count) => count === 0)) return [];
    const plan = planRecall(words, counts, bounds);
    return (await this.recaller.recall(userId, plan, limit, bounds)).map(memoryFromRow);
  }

  async create(userId: string, input: NewMemory): Promise<MemoryEntity> {
    const now = new Date();
    const memory = Object.assign(new MemoryEntity(), {
      id: newId('memory'),
      userId,
      content: input.content,
      tags: input.tags ?? [],
      source: input.source,
      discussionId: input.discussionId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await this.repo.createQueryBuilder().insert().values(memory).updateEntity(false).execute();
    return memory;
  }

  async get(userId: string, id: string): Promise<MemoryEntity | null> {
    const row = await this.sql.one<Row>(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ? AND user_id = ?`,
      [id, userId],
    );
    return row && memoryFromRow(row);
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
