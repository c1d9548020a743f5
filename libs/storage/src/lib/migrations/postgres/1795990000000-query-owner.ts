import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who started each query: the principal (a token, or an OAuth grant) whose events, status and confirmations
 * they are. Queries from before are the account's (an empty owner), as they were.
 */
export class QueryOwnerPostgres1795990000000 implements MigrationInterface {
  name = 'QueryOwnerPostgres1795990000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE queries ADD COLUMN owner varchar(200) NOT NULL DEFAULT ''`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE queries DROP COLUMN owner`);
  }
}
