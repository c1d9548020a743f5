import type { DataSource, Repository } from 'typeorm';
import type { MemorySource } from '@assistant/contracts';
import { MemoryEntity } from '../entities/memory.entity';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import { searchWords } from '../search-terms';
import type { Sql } from '../sql';
import { MEMORY_COLUMNS, memoryFromRow } from '../rows';

export interface NewMemory {
  content: string;
  tags?: string[];
  source: MemorySource;
  discussionId?: string | null;
}

type Row = Record<string, unknown>;

const COLUMNS_OF_M = MEMORY_COLUMNS.split(', ')
  .map((c) => `m.${c}`)
  .join(', ');

export class MemoriesRepository {
  private readonly repo: Repository<MemoryEntity>;

  constructor(
    dataSource: DataSource,
    private readonly sql: Sql,
  ) {
    this.repo = dataSource.getRepository(MemoryEntity);
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
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS_OF_M} FROM memories m WHERE ${conditions.join(' AND ')} ORDER BY m.id DESC LIMIT ?`,
      [...params, page.limit + 1],
    );
    return toPage(rows.map(memoryFromRow), page.limit);
  }

  /**
   * The memories most relevant to a text, best first: any of its words may match (English stemming), ranked
   * by bm25 on SQLite and ts_rank on PostgreSQL. For recall into a model's context and the memory_search tool.
   */
  async recall(userId: string, text: string, limit: number): Promise<MemoryEntity[]> {
    const words = searchWords(text);
    if (words.length === 0) return [];
    const rows =
      this.sql.dialect === 'sqlite'
        ? await this.sql.query<Row>(
            `SELECT ${COLUMNS_OF_M} FROM memories_fts JOIN memories m ON m.search_rowid = memories_fts.rowid
             WHERE memories_fts MATCH ? AND m.user_id = ? ORDER BY bm25(memories_fts), m.id DESC LIMIT ?`,
            [words.map((w) => `"${w}"`).join(' OR '), userId, limit],
          )
        : await this.sql.query<Row>(
            `SELECT ${COLUMNS_OF_M} FROM memories m WHERE m.user_id = ? AND m.search_vector @@ to_tsquery('english', ?)
             ORDER BY ts_rank(m.search_vector, to_tsquery('english', ?)) DESC, m.id DESC LIMIT ?`,
            [userId, words.join(' | '), words.join(' | '), limit],
          );
    return rows.map(memoryFromRow);
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
