import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth authorization server's records (grants, codes, access and refresh tokens, registered clients,
 * interactions, sessions), one row each, keyed by their kind and id. The payload is the authorization server's
 * own JSON; the columns beside it are what is looked up or changed without reading it: a grant's tokens go with
 * it, a code is consumed once, an account's grants are listed on its profile.
 */
export class OAuthPostgres1795800000000 implements MigrationInterface {
  name = 'OAuthPostgres1795800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE oauth_records (
      kind varchar(48) NOT NULL,
      id varchar(255) NOT NULL,
      payload text NOT NULL,
      grant_id varchar(255),
      uid varchar(255),
      user_code varchar(255),
      account_id varchar(32),
      client_id varchar(255),
      expires_at timestamptz,
      consumed_at timestamptz,
      last_used_at timestamptz,
      PRIMARY KEY (kind, id))`);
    await db.query(`CREATE INDEX idx_oauth_records_grant ON oauth_records(grant_id)`);
    await db.query(`CREATE INDEX idx_oauth_records_uid ON oauth_records(uid)`);
    await db.query(`CREATE INDEX idx_oauth_records_account ON oauth_records(account_id, kind)`);
    await db.query(`CREATE INDEX idx_oauth_records_expiry ON oauth_records(expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS oauth_records`);
  }
}
