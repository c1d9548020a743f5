import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A query's events in its own row (`events`: each event's JSON on a line of its own, in order; `last_event_id`:
 * the number of the last), instead of a row per event in `query_events` and its (query, number) index: a query
 * writes the same rows whatever the length of its answer. Existing events move over in order, so that every
 * stored query replays as before; the columns come last, so that reading a query's status reads past them.
 */
export class QueryEventsOneRowSqlite1796100000000 implements MigrationInterface {
  name = 'QueryEventsOneRowSqlite1796100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE queries ADD COLUMN last_event_id integer NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE queries ADD COLUMN events text NOT NULL DEFAULT ''`);
    await db.query(`UPDATE queries SET
      last_event_id = (SELECT MAX(sequence_number) FROM query_events WHERE query_id = queries.id),
      events = (SELECT group_concat(data || char(10), '' ORDER BY sequence_number) FROM query_events WHERE query_id = queries.id)
      WHERE id IN (SELECT DISTINCT query_id FROM query_events)`);
    await db.query(`DROP TABLE query_events`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE query_events (
      query_id varchar(32) NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
      sequence_number integer NOT NULL,
      type varchar(40) NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (query_id, sequence_number))`);
    await db.query(`WITH RECURSIVE lines(query_id, line, rest) AS (
        SELECT id, '', events FROM queries WHERE events <> ''
        UNION ALL
        SELECT query_id, substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1)
        FROM lines WHERE rest <> '')
      INSERT INTO query_events (query_id, sequence_number, type, data)
      SELECT query_id, json_extract(line, '$.sequence_number'), json_extract(line, '$.type'), line
      FROM lines WHERE line <> ''`);
    await db.query(`ALTER TABLE queries DROP COLUMN events`);
    await db.query(`ALTER TABLE queries DROP COLUMN last_event_id`);
  }
}
