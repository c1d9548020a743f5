import { Query, type Connection } from 'pg';
import { prepareValue } from 'pg/lib/utils';

/** A statement of a batch, in PostgreSQL's numbered form (`$1, $2…`). */
export interface PostgresStatement {
  text: string;
  values: unknown[];
}

/** The part of a pooled pg client a batch is sent on. */
export interface PostgresClient {
  query<T>(submittable: T): T;
}

/**
 * Statements sent to PostgreSQL as one message stream: Parse, Bind, Describe and Execute of each, then a single
 * Sync. The server runs them in order as one implicit transaction (an error undoes those before it and skips
 * those after), and the client waits for one answer: one round trip however many statements, where a
 * transaction through TypeORM's query runner waits for BEGIN, each statement and COMMIT in turn.
 *
 * Round trips are what a write costs the server process on PostgreSQL: each one wakes a database backend and is
 * read back, 0.1–0.3 ms of the server's CPU measured on a loopback connection (the more, the longer the process
 * slept before the answer), more than the statements' own encoding. A query's question and answer are a
 * transaction of three statements each, and the write-behind of 50 running queries' events is 50 row writes
 * every quarter of a second.
 *
 * The client's protocol handling is pg's own (this is a `Query`: its results, errors and ReadyForQuery go
 * through the usual handlers); only what is sent differs.
 */
class StatementBatch extends Query {
  constructor(
    private readonly statements: readonly PostgresStatement[],
    callback: (error: Error | undefined) => void,
  ) {
    // Its text only names what it runs (when it is inspected); what is sent is `submit`'s.
    super({ text: statements.map((s) => s.text).join(';\n') }, callback);
  }

  override submit = (connection: Connection): void => {
    // Written as one buffer when the stream is uncorked: one system call, one wake-up of the backend.
    connection.stream.cork();
    try {
      for (const { text, values } of this.statements) {
        connection.parse({ name: '', text, types: [] }, true);
        connection.bind({ portal: '', statement: '', values: values.map(prepareValue) }, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({}, true);
      }
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
  };
}

/** Runs `statements` on `client` in one round trip, as one transaction (see StatementBatch). */
export function runBatch(client: PostgresClient, statements: readonly PostgresStatement[]): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(new StatementBatch(statements, (error) => (error ? reject(error) : resolve())));
  });
}
