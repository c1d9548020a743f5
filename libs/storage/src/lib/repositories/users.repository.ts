import type { DataSource, Repository } from 'typeorm';
import { UserEntity } from '../entities/user.entity';
import { newId } from '../ids';
import type { Sql } from '../sql';
import { USER_COLUMNS, userFromRow } from '../rows';

export class UsersRepository {
  private readonly repo: Repository<UserEntity>;

  constructor(
    dataSource: DataSource,
    private readonly sql: Sql,
  ) {
    this.repo = dataSource.getRepository(UserEntity);
  }

  async create(input: { email: string; displayName: string }): Promise<UserEntity> {
    const user = Object.assign(new UserEntity(), {
      id: newId('user'),
      email: input.email.toLowerCase(),
      displayName: input.displayName,
      autoApprovedTools: [],
      createdAt: new Date(),
    });
    await this.repo.createQueryBuilder().insert().values(user).updateEntity(false).execute();
    return user;
  }

  /**
   * The user, at once on SQLite (a promise on PostgreSQL): `GET /me` reads it on every request, and a promise at
   * each layer between here and the handler cost it a measurable part of its time.
   */
  findById(id: string): UserEntity | null | Promise<UserEntity | null> {
    const row = this.sql.oneAtOnce<Record<string, unknown>>(
      `SELECT ${USER_COLUMNS} FROM users WHERE id = ?`,
      [id],
    );
    return row instanceof Promise ? row.then(userOrNull) : userOrNull(row);
  }

  async findByEmail(email: string): Promise<UserEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${USER_COLUMNS} FROM users WHERE email = ?`,
      [email.toLowerCase()],
    );
    return row && userFromRow(row);
  }

  /** Sets the tools the assistant may use for this account without asking first. */
  async setAutoApprovedTools(id: string, tools: readonly string[]): Promise<void> {
    await this.sql.query(`UPDATE users SET auto_approved_tools = ? WHERE id = ?`, [
      JSON.stringify(tools),
      id,
    ]);
  }

  /**
   * Sets the account's password hash (argon2id, as a PHC string). The hash is read only through
   * `findPasswordHash`, never with the rest of the user, so that it does not travel where users go.
   */
  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.sql.query(`UPDATE users SET password_hash = ? WHERE id = ?`, [passwordHash, id]);
  }

  /** The account with this email and its password hash (null when it has no password); null when no such account. */
  async findPasswordHash(email: string): Promise<{ userId: string; passwordHash: string | null } | null> {
    const row = await this.sql.one<{ id: string; password_hash: string | null }>(
      `SELECT id, password_hash FROM users WHERE email = ?`,
      [email.toLowerCase()],
    );
    return row && { userId: String(row.id), passwordHash: row.password_hash ?? null };
  }

  /** The first account created: on a self-hosted server, its owner. */
  async findFirst(): Promise<UserEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${USER_COLUMNS} FROM users ORDER BY id LIMIT 1`,
      [],
    );
    return row && userFromRow(row);
  }
}

const userOrNull = (row: Record<string, unknown> | null): UserEntity | null => row && userFromRow(row);
