import { Client } from 'pg';
import { BATCH_NAMED_STATEMENTS, runBatch } from './postgres-batch';
import { TEST_DATABASE_URL } from './testing';

/** Batches on one real connection: each statement text is parsed there once, and only once it is known to be. */
describe('statement batches on postgres', () => {
  let client: Client;
  let parse: jest.SpyInstance;
  const parsedTexts = () => parse.mock.calls.map(([message]) => (message as { text: string }).text);

  beforeEach(async () => {
    client = new Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    parse = jest.spyOn(client.connection, 'parse');
  });

  afterEach(async () => {
    await client.end();
  });

  const count = async () => Number((await client.query('SELECT count(*) AS n FROM notes')).rows[0].n);
  const insert = (body: string | null) => ({ text: 'INSERT INTO notes (body) VALUES ($1)', values: [body] });

  it('parses a statement once per connection and then only binds and runs it', async () => {
    await client.query('CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    // The same text twice in one batch is parsed once.
    await runBatch(client, [insert('a'), insert('b')]);
    parse.mockClear();
    await runBatch(client, [insert('c')]);
    expect(parsedTexts()).toEqual([]);
    expect(await count()).toBe(3);
  });

  it('parses again a statement whose Parse failed, once it can be parsed', async () => {
    await expect(runBatch(client, [insert('a')])).rejects.toThrow(/notes/);
    await client.query('CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await runBatch(client, [insert('a')]);
    expect(await count()).toBe(1);
  });

  it('prepares a name again after a batch that parsed it and then failed', async () => {
    await client.query('CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    // Its Parse runs on the server, its second Execute fails: the whole batch is undone, the name may exist.
    await expect(runBatch(client, [insert('a'), insert(null)])).rejects.toThrow(/null value/);
    await runBatch(client, [insert('b')]);
    expect(await count()).toBe(1);
    parse.mockClear();
    await runBatch(client, [insert('c')]);
    expect(parsedTexts()).toEqual([]);
  });

  it('sends nothing when a value cannot be bound, and the connection goes on', async () => {
    await client.query('CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    const unbindable = {
      toPostgres() {
        throw new Error('cannot bind this');
      },
    };
    await expect(
      runBatch(client, [insert('a'), { text: insert('').text, values: [unbindable] }]),
    ).rejects.toThrow('cannot bind this');
    await runBatch(client, [insert('b')]);
    expect(await count()).toBe(1);
  });

  it('names a bounded number of texts; the others run unnamed', async () => {
    await client.query('CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    const texts = Array.from(
      { length: BATCH_NAMED_STATEMENTS + 20 },
      (_, n) => `INSERT INTO notes (body) VALUES ($1 || '${n}')`,
    );
    await runBatch(
      client,
      texts.map((text) => ({ text, values: ['x'] })),
    );
    const named = () => Object.keys(client.connection.parsedStatements).length;
    expect(named()).toBeLessThanOrEqual(BATCH_NAMED_STATEMENTS);
    parse.mockClear();
    await runBatch(
      client,
      texts.map((text) => ({ text, values: ['y'] })),
    );
    // Only those beyond the bound are parsed again (as the unnamed statement).
    expect(parse.mock.calls.length).toBe(texts.length - named());
    expect(parse.mock.calls.every(([message]) => (message as { name: string }).name === '')).toBe(true);
    expect(await count()).toBe(2 * texts.length);
  });
});
