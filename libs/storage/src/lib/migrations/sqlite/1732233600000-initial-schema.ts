import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SQLite schema v1. Memories carry an INTEGER PRIMARY KEY (`search_rowid`) beside their public id because an
 * external-content FTS5 index is keyed by rowid, and only an aliased rowid survives VACUUM unchanged.
 */
export class InitialSchemaSqlite1732233600000 implements MigrationInterface {
  name = 'InitialSchemaSqlite1732233600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE users (
      id varchar(32) PRIMARY KEY NOT NULL,
      email varchar(320) NOT NULL UNIQUE,
      display_name varchar(200) NOT NULL,
      created_at datetime NOT NULL)`);
    await db.query(`CREATE TABLE tokens (
      id varchar(32) PRIMARY KEY NOT NULL,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      kind varchar(16) NOT NULL,
      name varchar(100) NOT NULL,
      scopes text NOT NULL,
      digest varchar(64) NOT NULL UNIQUE,
      token_prefix varchar(16) NOT NULL,
      created_at datetime NOT NULL,
      expires_at datetime,
      last_used_at datetime)`);
    await db.query(`CREATE INDEX idx_tokens_user ON tokens(user_id, id)`);
    await db.query(`CREATE TABLE discussions (
      id varchar(32) PRIMARY KEY NOT NULL,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title varchar(200) NOT NULL,
      message_count integer NOT NULL DEFAULT 0,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL)`);
    await db.query(`CREATE INDEX idx_discussions_user ON discussions(user_id, id)`);
    await db.query(`CREATE TABLE messages (
      id varchar(32) PRIMARY KEY NOT NULL,
      discussion_id varchar(32) NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role varchar(16) NOT NULL,
      text text NOT NULL,
      tool_calls text NOT NULL,
      query_id varchar(32),
      created_at datetime NOT NULL)`);
    await db.query(`CREATE INDEX idx_messages_discussion ON messages(discussion_id, id)`);
    await db.query(`CREATE TABLE memories (
      search_rowid integer PRIMARY KEY,
      id varchar(32) NOT NULL UNIQUE,
      user_id varchar(32) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      content text NOT NULL,
      tags text NOT NULL,
      source varchar(16) NOT NULL,
      discussion_id varchar(32) REFERENCES discussions(id) ON DELETE SET NULL,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL)`);
    await db.query(`CREATE INDEX idx_memories_user ON memories(user_id, id)`);
    await db.query(`CREATE VIRTUAL TABLE memories_fts USING fts5(
      content, tags, content='memories', content_rowid='search_rowid', tokenize='porter unicode61')`);
    await db.query(`CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
      INSERT INTO memories_fts(rowid, content, tags) VALUES (new.search_rowid, new.content, new.tags);
    END`);
    await db.query(`CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
      INSERT INTO memories_fts(memories_fts, rowid, content, tags) VALUES ('delete', old.search_rowid, old.content, old.tags);
    END`);
    await db.query(`CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
      INSERT INTO memories_fts(memories_fts, rowid, content, tags) VALUES ('delete', old.search_rowid, old.content, old.tags);
      INSERT INTO memories_fts(rowid, content, tags) VALUES (new.search_rowid, new.content, new.tags);
    END`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['memories_fts', 'memories', 'messages', 'discussions', 'tokens', 'users']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
