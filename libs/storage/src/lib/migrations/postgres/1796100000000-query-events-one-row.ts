import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A query's events in its own row (`events`: each event's JSON on a line of its own, in order; `last_event_id`:
 * the number of the last), instead of a row per event in `query_events` and its (query, number) index: a query
 * writes the same rows whatever the length of its answer. Existing events move over in order, so that every
 * stored query replays as before.
 */
export class QueryEventsOneRowPostgres1796100000000 implements MigrationInterface {
  name = 'QueryEventsOneRowPostgres1796100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE queries ADD COLUMN last_event_id integer NOT NULL DEFAULT 0, ADD COLUMN events text NOT NULL DEFAULT ''`,
    );
    await db.query(`UPDATE queries SET last_event_id = stored.last, events = stored.lines
      FROM (SELECT query_id, MAX(sequence_number) AS last, string_agg(data || E'\\n', '' ORDER BY sequence_number) AS lines
            FROM query_events GROUP BY query_id) AS stored
      WHERE stored.query_id = queries.id`);
    await db.query(`DROP TABLE query_events`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE query_events (
      query_id varchar(32) NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
      sequence_number integer NOT NULL,
      type varchar(40) NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (query_id, sequence_number))`);
    await db.query(`INSERT INTO query_events (query_id, sequence_number, type, data)
      SELECT id, (line::jsonb->>'sequence_number')::integer, line::jsonb->>'type', line
      FROM queries, regexp_split_to_table(rtrim(events, E'\\n'), E'\\n') AS line
      WHERE events <> ''`);
    await db.query(`ALTER TABLE queries DROP COLUMN events, DROP COLUMN last_event_id`);
  }
}
