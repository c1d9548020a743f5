import type { DataSource, Repository } from 'typeorm';
import { TokenEntity, type StoredTokenKind } from '../entities/token.entity';
import type { IdKind } from '@assistant/contracts';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';
import type { Sql } from '../sql';
import { TOKEN_COLUMNS, tokenFromRow } from '../rows';

export interface NewToken {
  userId: string;
  kind: StoredTokenKind;
  name: string;
  scopes: string[];
  digest: string;
  tokenPrefix: string;
  expiresAt: Date | null;
  /** The token it comes from (see TokenEntity.parentTokenId); absent or null for none. */
  parentTokenId?: string | null;
}

/** A device token is the device's record (`dev_…`, SPEC §1): it is what `/devices` lists and revokes. */
function idKindOf(kind: StoredTokenKind): IdKind {
  return kind === 'device' ? 'device' : 'token';
}

export class TokensRepository {
  private readonly repo: Repository<TokenEntity>;

  constructor(
    dataSource: DataSource,
    private readonly sql: Sql,
  ) {
    this.repo = dataSource.getRepository(TokenEntity);
  }

  /**
   * Stores a new token; null when its parent is no longer there (revoked while this one was being made: the
   * database refuses a child of a deleted token), so that nothing outlives its parent.
   */
  async create(input: NewToken): Promise<TokenEntity | null> {
    const token = Object.assign(new TokenEntity(), {
      ...input,
      parentTokenId: input.parentTokenId ?? null,
      id: newId(idKindOf(input.kind)),
      createdAt: new Date(),
      lastUsedAt: null,
    });
    try {
      await this.repo.createQueryBuilder().insert().values(token).updateEntity(false).execute();
    } catch (error) {
      if (token.parentTokenId && !(await this.exists(token.parentTokenId))) return null;
      throw error;
    }
    return token;
  }

  async findByDigest(digest: string): Promise<TokenEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE digest = ?`,
      [digest],
    );
    return row && tokenFromRow(row);
  }

  /** One of the user's tokens of this kind; null for an unknown id or another user's token. */
  async find(userId: string, id: string, kind: StoredTokenKind): Promise<TokenEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE user_id = ? AND id = ? AND kind = ?`,
      [userId, id, kind],
    );
    return row && tokenFromRow(row);
  }

  async list(userId: string, kind: StoredTokenKind, page: PageRequest): Promise<Page<TokenEntity>> {
    const after = page.cursor ? decodeCursor(idKindOf(kind), page.cursor) : null;
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE user_id = ? AND kind = ?${after ? ' AND id < ?' : ''} ORDER BY id DESC LIMIT ?`,
      [userId, kind, ...(after ? [after] : []), page.limit + 1],
    );
    return toPage(rows.map(tokenFromRow), page.limit);
  }

  /**
   * Deletes one of the user's tokens and, by the database's cascade, every token descended from it and every
   * pairing code they made (TokenEntity.parentTokenId). Returns the ids of the tokens deleted, its own first, so
   * that verifications of any of them remembered elsewhere can be forgotten; empty when there is no such token
   * for this user.
   */
  async deleteLineage(userId: string, id: string, kind: StoredTokenKind): Promise<string[]> {
    const lineage = await this.sql.query<{ id: string }>(
      `WITH RECURSIVE lineage(id) AS (
        SELECT id FROM tokens WHERE user_id = ? AND id = ? AND kind = ?
        UNION SELECT t.id FROM tokens t JOIN lineage l ON t.parent_token_id = l.id)
      SELECT id FROM lineage`,
      [userId, id, kind],
    );
    const deleted = await this.sql.execute(`DELETE FROM tokens WHERE user_id = ? AND id = ? AND kind = ?`, [
      userId,
      id,
      kind,
    ]);
    if (deleted === 0) return [];
    return [id, ...lineage.map((row) => String(row.id)).filter((descendant) => descendant !== id)];
  }

  private async exists(id: string): Promise<boolean> {
    return (await this.sql.one(`SELECT id FROM tokens WHERE id = ?`, [id])) !== null;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { lastUsedAt: at });
  }
}
