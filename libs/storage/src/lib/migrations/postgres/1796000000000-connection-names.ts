import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Ranks each connection among those of its account and family with the same name (whatever its case). */
const RANKED = `SELECT id, ROW_NUMBER() OVER (PARTITION BY user_id, family, lower(name) ORDER BY id) AS n
  FROM connections`;

/**
 * Several connections per family (work and personal mail): a tool call names the one it goes through, so a name
 * is unique per account and family (whatever its case), and one connection of each family is its default.
 * Existing connections: the first of each family (in the order added) becomes its default; a name already taken
 * in its family gets a number (`IMAP mailbox 2`). `is_default` is 0 or 1 on both databases, so that the same
 * statements and the partial index read alike.
 */
export class ConnectionNamesPostgres1796000000000 implements MigrationInterface {
  name = 'ConnectionNamesPostgres1796000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE connections ADD COLUMN is_default smallint NOT NULL DEFAULT 0`);
    // Ranked once, before any name changes (a subquery per row would see the names already changed).
    await db.query(`UPDATE connections SET name = connections.name || ' ' || ranked.n
      FROM (${RANKED}) ranked WHERE ranked.id = connections.id AND ranked.n > 1`);
    await db.query(
      `UPDATE connections SET is_default = 1 WHERE id IN (SELECT MIN(id) FROM connections GROUP BY user_id, family)`,
    );
    await db.query(`CREATE UNIQUE INDEX idx_connections_name ON connections(user_id, family, lower(name))`);
    await db.query(
      `CREATE UNIQUE INDEX idx_connections_default ON connections(user_id, family) WHERE is_default = 1`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX IF EXISTS idx_connections_default`);
    await db.query(`DROP INDEX IF EXISTS idx_connections_name`);
    await db.query(`ALTER TABLE connections DROP COLUMN is_default`);
  }
}
