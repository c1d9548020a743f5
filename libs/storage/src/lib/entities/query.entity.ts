import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { QueryStatus } from '@assistant/contracts';

/**
 * A query as it stands (`GET /queries/{id}`), with its events: `events` holds each one's JSON on a line of its
 * own, in order, and `lastEventId` the number of the last (QueriesRepository reads and writes them). `runnerId` is the server
 * process that runs it, whose heartbeat (`heartbeatAt`) tells a live run from one whose process died. `owner` is
 * the principal that started it (empty for queries from before owners were kept).
 */
@Entity('queries')
export class QueryEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ name: 'discussion_id', type: 'varchar', length: 32 })
  discussionId!: string;

  @Column({ name: 'message_id', type: 'varchar', length: 32 })
  messageId!: string;

  @Column({ type: 'text' })
  model!: string;

  @Column({ type: 'varchar', length: 32 })
  status!: QueryStatus;

  @Column({ type: 'varchar', length: 200, default: '' })
  owner!: string;

  @Column({ name: 'runner_id', type: 'varchar', length: 32 })
  runnerId!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'ended_at', nullable: true, type: Date })
  endedAt!: Date | null;

  @Column({ name: 'heartbeat_at' })
  heartbeatAt!: Date;

  @Column({ name: 'last_event_id', type: 'integer', default: 0 })
  lastEventId!: number;

  @Column({ type: 'text', default: '' })
  events!: string;
}
