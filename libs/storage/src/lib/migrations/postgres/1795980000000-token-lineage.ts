import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each token came from: `parent_token_id` names the token that minted it (`POST /tokens`) or that made the
 * pairing code it was claimed with, and a pairing code's the token that made it. Deleting a token (revoking it)
 * deletes its descendants and its codes with it, by the database's cascade, so that no minted or paired credential
 * outlives its parent, not even one being minted at that moment (its insert fails). Tokens from before have no
 * recorded parent.
 */
export class TokenLineagePostgres1795980000000 implements MigrationInterface {
  name = 'TokenLineagePostgres1795980000000';

  async up(db: QueryRunner): Promise<void> {
    for (const table of ['tokens', 'pairing_codes']) {
      await db.query(
        `ALTER TABLE ${table} ADD COLUMN parent_token_id varchar(32) REFERENCES tokens(id) ON DELETE CASCADE`,
      );
      await db.query(
        `CREATE INDEX idx_${table}_parent ON ${table}(parent_token_id) WHERE parent_token_id IS NOT NULL`,
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['pairing_codes', 'tokens']) {
      await db.query(`DROP INDEX IF EXISTS idx_${table}_parent`);
      await db.query(`ALTER TABLE ${table} DROP COLUMN parent_token_id`);
    }
  }
}
