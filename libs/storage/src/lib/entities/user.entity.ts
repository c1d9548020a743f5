import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('users')
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ type: 'varchar', length: 320, unique: true })
  email!: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200 })
  displayName!: string;

  /** Date columns carry no explicit type: each dialect's migration declares it (timestamptz / datetime). */
  @Column({ name: 'created_at' })
  createdAt!: Date;
}
