import type { DataSource, Repository } from 'typeorm';
import { UserEntity } from '../entities/user.entity';
import { newId } from '../ids';

export class UsersRepository {
  private readonly repo: Repository<UserEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(UserEntity);
  }

  async create(input: { email: string; displayName: string }): Promise<UserEntity> {
    const user = this.repo.create({
      id: newId('user'),
      email: input.email.toLowerCase(),
      displayName: input.displayName,
      createdAt: new Date(),
    });
    await this.repo.insert(user);
    return user;
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.repo.findOneBy({ email: email.toLowerCase() });
  }

  /** The first account created: on a self-hosted server, its owner. */
  findFirst(): Promise<UserEntity | null> {
    return this.repo.createQueryBuilder('u').orderBy('u.id', 'ASC').limit(1).getOne();
  }
}
