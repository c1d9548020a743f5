import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MessageRole, ToolCallRecord } from '@assistant/contracts';

@Entity('messages')
export class MessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'discussion_id', type: 'varchar', length: 32 })
  discussionId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: MessageRole;

  @Column({ type: 'text' })
  text!: string;

  @Column({ name: 'tool_calls', type: 'simple-json' })
  toolCalls!: ToolCallRecord[];

  @Column({ name: 'query_id', type: 'varchar', length: 32, nullable: true })
  queryId!: string | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
