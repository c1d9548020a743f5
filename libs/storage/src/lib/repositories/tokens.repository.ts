import type { DataSource, Repository } from 'typeorm';
import { TokenEntity, type StoredTokenKind } from '../entities/token.entity';
import { newId } from '../ids';
import { decodeCursor, toPage, type Page, type PageRequest } from '../paging';

export interface NewToken {
  userId: string;
  kind: StoredTokenKind;
  name: string;
  scopes: string[];
  digest: string;
  tokenPrefix: string;
  expiresAt: Date | null;
}

export class TokensRepository {
  private readonly repo: Repository<TokenEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(TokenEntity);
  }

  async create(input: NewToken): Promise<TokenEntity> {
    const token = this.repo.create({ ...input, id: newId('token'), createdAt: new Date(), lastUsedAt: null });
    await this.repo.insert(token);
    return token;
  }

  findByDigest(digest: string): Promise<TokenEntity | null> {
    return this.repo.findOneBy({ digest });
  }

  async list(userId: string, kind: StoredTokenKind, page: PageRequest): Promise<Page<TokenEntity>> {
    const qb = this.repo
      .createQueryBuilder('t')
      .where('t.userId = :userId', { userId })
      .andWhere('t.kind = :kind', { kind });
    if (page.cursor) qb.andWhere('t.id < :after', { after: decodeCursor('token', page.cursor) });
    const rows = await qb
      .orderBy('t.id', 'DESC')
      .limit(page.limit + 1)
      .getMany();
    return toPage(rows, page.limit);
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
