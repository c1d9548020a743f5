// The rows section counts what an answer writes from the database itself: against our built self-hosted server
// and the model stub, the rows its triggers see inserted are the rows COUNT(*) finds added, table by table, and an
// answered question that opens a discussion adds its discussion, its question and answer, and its query.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { removeTempDirs, stopAll } from '../lib/processes.mjs';
import { DEFAULT_SERVER, startOurServer, streamingEnv } from '../lib/server.mjs';
import { startStub } from '../lib/stub.mjs';
import { measureAnswers } from './rows.mjs';

const insertsByTable = (writes) =>
  Object.fromEntries(writes.filter((w) => w.op === 'INSERT').map((w) => [w.tbl, w.n]));
const rowsAddedByTable = (added) =>
  Object.fromEntries(
    Object.entries(added)
      .filter(([, a]) => a.rows !== 0)
      .map(([table, a]) => [table, a.rows]),
  );

describe('rows written per answer, on SQLite', () => {
  let answers;

  beforeAll(async () => {
    const stub = await startStub({ tokens: 3, intervalMs: 0 });
    const ours = await startOurServer(DEFAULT_SERVER, streamingEnv(stub.url));
    const database = { dialect: 'sqlite', file: join(ours.dataDir, 'assistant.sqlite') };
    answers = await measureAnswers(ours, database, stub, { count: 1, intervalMs: 0 });
  });
  afterAll(async () => {
    await stopAll();
    removeTempDirs();
  });

  it('reads every answer to its end', () => {
    for (const answer of [...answers.short, ...answers.long]) expect(answer.problems).toEqual([]);
  });

  it('sees as many rows inserted as COUNT(*) finds added, in every table', () => {
    for (const answer of [...answers.short, ...answers.long]) {
      expect(insertsByTable(answer.writes)).toEqual(rowsAddedByTable(answer.added));
      expect(answer.rows).toBe(answer.writes.reduce((sum, w) => sum + (w.tbl === 'tokens' ? 0 : w.n), 0));
    }
  });

  it('finds the discussion, the question and its answer, and the query added', () => {
    const [answer] = answers.short;
    expect(rowsAddedByTable(answer.added)).toMatchObject({ discussions: 1, messages: 2, queries: 1 });
  });

  it('counts the bytes a longer answer stores', () => {
    const [short] = answers.short;
    const [long] = answers.long;
    expect(short.bytes).toBeGreaterThan(0);
    expect(long.added.queries.bytes + long.added.messages.bytes).toBeGreaterThan(
      short.added.queries.bytes + short.added.messages.bytes + 190 * 10,
    );
  });
});
