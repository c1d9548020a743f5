import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Phone pairing codes (SPEC §3 `POST /pairing/claim`). Only the code's SHA-256 digest is kept; `scopes` and
 * `token_expires_at` are what the device token will get, fixed when the code is made from the creating token.
 * A code is claimed once: `claimed_at` is set by one conditional UPDATE, then `device_token_id` names its token.
 */
export class PairingSqlite1795700000000 implements MigrationInterface {
  name = 'PairingSqlite1795700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE pairing_codes (
      id varchar(32) PRIMARY KEY NOT NULL,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      digest varchar(64) NOT NULL UNIQUE,
      scopes text NOT NULL,
      token_expires_at datetime,
      created_at datetime NOT NULL,
      expires_at datetime NOT NULL,
      claimed_at datetime,
      device_token_id varchar(32))`);
    await db.query(`CREATE INDEX idx_pairing_codes_user ON pairing_codes(user_id, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS pairing_codes`);
  }
}
