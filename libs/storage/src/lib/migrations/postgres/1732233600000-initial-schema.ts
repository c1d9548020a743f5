import type { MigrationInterface, QueryRunner } from 'typeorm';

/** PostgreSQL schema v1. Memory search is a generated `tsvector` (English stemming) with a GIN index. */
export class InitialSchemaPostgres1732233600000 implements MigrationInterface {
  name = 'InitialSchemaPostgres1732233600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE users (
      id varchar(32) PRIMARY KEY,
      email varchar(320) NOT NULL UNIQUE,
      display_name varchar(200) NOT NULL,
      created_at timestamptz NOT NULL)`);
    await db.query(`CREATE TABLE tokens (
      id varchar(32) PRIMARY KEY,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      kind varchar(16) NOT NULL,
      name varchar(100) NOT NULL,
      scopes text NOT NULL,
      digest varchar(64) NOT NULL UNIQUE,
      token_prefix varchar(16) NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      last_used_at timestamptz)`);
    await db.query(`CREATE INDEX idx_tokens_user ON tokens(user_id, id)`);
    await db.query(`CREATE TABLE discussions (
      id varchar(32) PRIMARY KEY,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title varchar(200) NOT NULL,
      message_count integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL)`);
    await db.query(`CREATE INDEX idx_discussions_user ON discussions(user_id, id)`);
    await db.query(`CREATE TABLE messages (
      id varchar(32) PRIMARY KEY,
      discussion_id varchar(32) NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role varchar(16) NOT NULL,
      text text NOT NULL,
      tool_calls text NOT NULL,
      query_id varchar(32),
      created_at timestamptz NOT NULL)`);
    await db.query(`CREATE INDEX idx_messages_discussion ON messages(discussion_id, id)`);
    await db.query(`CREATE TABLE memories (
      id varchar(32) PRIMARY KEY,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      content text NOT NULL,
      tags text NOT NULL,
      source varchar(16) NOT NULL,
      discussion_id varchar(32) REFERENCES discussions(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      search_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', content || ' ' || tags)) STORED)`);
    await db.query(`CREATE INDEX idx_memories_user ON memories(user_id, id)`);
    await db.query(`CREATE INDEX idx_memories_search ON memories USING GIN (search_vector)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['memories', 'messages', 'discussions', 'tokens', 'users']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
