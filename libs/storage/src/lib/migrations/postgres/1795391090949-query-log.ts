import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Queries and their events, so that a query outlives its process (SPEC §4): `GET /queries/{id}` and its events
 * after a restart, and `query.incomplete` (`interrupted`) for a run the process did not finish. The partial
 * indexes hold only unfinished queries: the heartbeat and the orphan sweep read nothing else.
 */
export class QueryLogPostgres1795391090949 implements MigrationInterface {
  name = 'QueryLogPostgres1795391090949';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE queries (
      id varchar(32) PRIMARY KEY,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      discussion_id varchar(32) NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
      message_id varchar(32) NOT NULL,
      model text NOT NULL,
      status varchar(32) NOT NULL,
      runner_id varchar(32) NOT NULL,
      created_at timestamptz NOT NULL,
      ended_at timestamptz,
      heartbeat_at timestamptz NOT NULL)`);
    await db.query(`CREATE INDEX idx_queries_discussion ON queries(discussion_id)`);
    await db.query(`CREATE INDEX idx_queries_runner ON queries(runner_id) WHERE ended_at IS NULL`);
    await db.query(`CREATE INDEX idx_queries_heartbeat ON queries(heartbeat_at) WHERE ended_at IS NULL`);
    await db.query(`CREATE TABLE query_events (
      query_id varchar(32) NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
      sequence_number integer NOT NULL,
      type varchar(40) NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (query_id, sequence_number))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS query_events`);
    await db.query(`DROP TABLE IF EXISTS queries`);
  }
}
