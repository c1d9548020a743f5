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

  async findById(id: string): Promise<UserEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${USER_COLUMNS} FROM users WHERE id = ?`,
      [id],
    );
    return row && userFromRow(row);
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

  /** The first account created: on a self-hosted server, its owner. */
  async findFirst(): Promise<UserEntity | null> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT ${USER_COLUMNS} FROM users ORDER BY id LIMIT 1`,
      [],
    );
    return row && userFromRow(row);
  }
}
