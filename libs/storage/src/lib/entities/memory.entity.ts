import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MemorySource } from '@assistant/contracts';

/** A memory. Its full-text index (tsvector or FTS5) lives beside it and is kept in step by the database. */
@Entity('memories')
export class MemoryEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'simple-json' })
  tags!: string[];

  @Column({ type: 'varchar', length: 16 })
  source!: MemorySource;

  @Column({ name: 'discussion_id', type: 'varchar', length: 32, nullable: true })
  discussionId!: string | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
