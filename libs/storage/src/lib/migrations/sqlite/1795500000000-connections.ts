import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The accounts behind an account's tools (SPEC §3 "Connections"): a mail server, a calendar, a folder… Settings
 * are JSON; secrets are sealed by the server (AES-256-GCM) before they reach this table, which never sees them.
 */
export class ConnectionsSqlite1795500000000 implements MigrationInterface {
  name = 'ConnectionsSqlite1795500000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE connections (
      id varchar(32) PRIMARY KEY NOT NULL,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      family varchar(32) NOT NULL,
      provider varchar(32) NOT NULL,
      name text NOT NULL,
      settings text NOT NULL,
      sealed_secrets text NOT NULL,
      status varchar(16) NOT NULL,
      last_error text,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL)`);
    await db.query(`CREATE INDEX idx_connections_user ON connections(user_id, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS connections`);
  }
}
