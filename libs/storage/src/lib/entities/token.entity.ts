import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type StoredTokenKind = 'personal' | 'device';

/** A personal or device token. The secret itself is never stored: only its SHA-256 digest. */
@Entity('tokens')
export class TokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Index()
  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: StoredTokenKind;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'simple-json' })
  scopes!: string[];

  @Column({ type: 'varchar', length: 64, unique: true })
  digest!: string;

  @Column({ name: 'token_prefix', type: 'varchar', length: 16 })
  tokenPrefix!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'expires_at', nullable: true, type: Date })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', nullable: true, type: Date })
  lastUsedAt!: Date | null;

  /**
   * The token it came from: the one that minted it, or that made the pairing code a device claimed; null for a
   * token made by the account holder (a page, a command) or before lineage was recorded. Revoking the parent
   * revokes it (the database cascades the delete).
   */
  @Column({ name: 'parent_token_id', nullable: true, type: 'varchar', length: 32 })
  parentTokenId!: string | null;
}
