import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One event of a query's stream, numbered as the stream numbers it; `data` is the event's JSON. */
@Entity('query_events')
export class QueryEventEntity {
  @PrimaryColumn({ name: 'query_id', type: 'varchar', length: 32 })
  queryId!: string;

  @PrimaryColumn({ name: 'sequence_number', type: 'integer' })
  sequenceNumber!: number;

  @Column({ type: 'varchar', length: 40 })
  type!: string;

  @Column({ type: 'text' })
  data!: string;
}
