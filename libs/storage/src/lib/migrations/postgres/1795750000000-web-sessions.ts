import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Web sign-in (the pages outside /api/v1): browser sessions, the self-hosted owner's one-time sign-in links, the
 * failed password sign-ins that lock an email out for a while, and the password of hosted accounts.
 *
 * - `web_sessions`: keyed by the SHA-256 digest of the cookie's random value (the value itself is never stored);
 *   `user_id` is null until the browser signs in (its forms still need a CSRF secret); `csrf_secret` is the
 *   synchronizer token every form of the session carries.
 * - `web_sign_in_links`: keyed by the digest of the link's token; `used_at` is set once, by one conditional UPDATE.
 * - `web_sign_in_failures`: one row per failed attempt, by the digest of the lower-cased email (what was typed
 *   into the email field is kept nowhere: it may be a password typed into the wrong field).
 * - `users.password_hash`: argon2id (PHC string); null for accounts without a password (the self-hosted owner).
 */
export class WebSessionsPostgres1795750000000 implements MigrationInterface {
  name = 'WebSessionsPostgres1795750000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users ADD COLUMN password_hash varchar(255)`);
    await db.query(`CREATE TABLE web_sessions (
      digest varchar(64) PRIMARY KEY,
      user_id varchar(32) REFERENCES users(id) ON DELETE CASCADE,
      csrf_secret varchar(64) NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL)`);
    await db.query(`CREATE INDEX idx_web_sessions_user ON web_sessions(user_id)`);
    await db.query(`CREATE INDEX idx_web_sessions_expiry ON web_sessions(expires_at)`);
    await db.query(`CREATE TABLE web_sign_in_links (
      digest varchar(64) PRIMARY KEY,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz)`);
    await db.query(`CREATE INDEX idx_web_sign_in_links_expiry ON web_sign_in_links(expires_at)`);
    await db.query(`CREATE TABLE web_sign_in_failures (
      id varchar(36) PRIMARY KEY,
      email_digest varchar(64) NOT NULL,
      failed_at timestamptz NOT NULL)`);
    await db.query(
      `CREATE INDEX idx_web_sign_in_failures_email ON web_sign_in_failures(email_digest, failed_at)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS web_sign_in_failures`);
    await db.query(`DROP TABLE IF EXISTS web_sign_in_links`);
    await db.query(`DROP TABLE IF EXISTS web_sessions`);
    await db.query(`ALTER TABLE users DROP COLUMN password_hash`);
  }
}
