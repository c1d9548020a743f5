import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One heartbeat row per process that runs queries (`query_runners`), instead of a heartbeat written to the row of
 * each query it runs every few seconds: a query writes the same rows however long it runs. A query's own
 * `heartbeat_at` stays as the time it was last taken (created, or claimed by a sweeper), so that a process just
 * started, or a sweeper that died while ending an orphan, still gets its grace period.
 */
export class QueryRunnersSqlite1796200000000 implements MigrationInterface {
  name = 'QueryRunnersSqlite1796200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE query_runners (
      id varchar(32) PRIMARY KEY,
      heartbeat_at datetime NOT NULL)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS query_runners`);
  }
}
