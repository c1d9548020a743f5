import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('users')
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ type: 'varchar', length: 320, unique: true })
  email!: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200 })
  displayName!: string;

  /** Tools the assistant may use for this account without asking first (side-effecting ones included). */
  @Column({ name: 'auto_approved_tools', type: 'simple-json' })
  autoApprovedTools!: string[];

  /** Date columns carry no explicit type: each dialect's migration declares it (timestamptz / datetime). */
  @Column({ name: 'created_at' })
  createdAt!: Date;
}
