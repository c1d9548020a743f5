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

  async create(input: NewToken): Promise<TokenEntity> {
    const token = Object.assign(new TokenEntity(), {
      ...input,
      id: newId(idKindOf(input.kind)),
      createdAt: new Date(),
      lastUsedAt: null,
    });
    await this.repo.createQueryBuilder().insert().values(token).updateEntity(false).execute();
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

  /** Deletes one of the user's tokens; false when there is no such token for this user. */
  async delete(userId: string, id: string, kind: StoredTokenKind): Promise<boolean> {
    const result = await this.repo.delete({ id, userId, kind });
    return (result.affected ?? 0) > 0;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { lastUsedAt: at });
  }
}
