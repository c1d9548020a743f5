import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What each third-party application did with an account (for the account's profile): when, where, with which scope. */
export class IntegrationActivityPostgres1795850000000 implements MigrationInterface {
  name = 'IntegrationActivityPostgres1795850000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE integration_activity (
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      client_id varchar(255) NOT NULL,
      at timestamptz NOT NULL,
      what varchar(200) NOT NULL,
      scope varchar(32))`);
    await db.query(`CREATE INDEX idx_integration_activity ON integration_activity(user_id, client_id, at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS integration_activity`);
  }
}
