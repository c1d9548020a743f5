import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A phone pairing code (`POST /pairing`): single-use and short-lived. The code itself is never stored, only its
 * SHA-256 digest; a phone that presents it (`POST /pairing/claim`) gets a device token with `scopes`.
 */
@Entity('pairing_codes')
export class PairingCodeEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Index()
  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  digest!: string;

  /** The device token's scopes, fixed from the token that created the code. */
  @Column({ type: 'simple-json' })
  scopes!: string[];

  /** The device token's expiry: never later than the creating token's; null for none. */
  @Column({ name: 'token_expires_at', nullable: true, type: Date })
  tokenExpiresAt!: Date | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;

  @Column({ name: 'claimed_at', nullable: true, type: Date })
  claimedAt!: Date | null;

  /** The device token issued for the claim; set just after `claimedAt`, so null while the token is being issued. */
  @Column({ name: 'device_token_id', nullable: true, type: 'varchar', length: 32 })
  deviceTokenId!: string | null;

  /** The token that made the code, which becomes its device token's parent; revoking it deletes the code. */
  @Column({ name: 'parent_token_id', nullable: true, type: 'varchar', length: 32 })
  parentTokenId!: string | null;
}
