import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tools an account lets the assistant use without asking first (a JSON array of tool names). */
export class AutoApprovedToolsPostgres1795600000000 implements MigrationInterface {
  name = 'AutoApprovedToolsPostgres1795600000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users ADD COLUMN auto_approved_tools text NOT NULL DEFAULT '[]'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users DROP COLUMN auto_approved_tools`);
  }
}
