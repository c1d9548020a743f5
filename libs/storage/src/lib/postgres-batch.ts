import { Query, type Connection } from 'pg';
import { prepareValue } from 'pg/lib/utils';

// pg's record of the statements a connection has prepared (filled for named queries); not in @types/pg.
declare module 'pg' {
  interface Connection {
    parsedStatements: Record<string, string | undefined>;
  }
}

/** pg's Query with the two handlers of its protocol that StatementBatch overrides; not in @types/pg. */
const PgQuery = Query as unknown as new (
  config: { text: string },
  callback: (error: Error | undefined) => void,
) => Query & {
  handleDataRow(message: unknown): void;
  handleReadyForQuery(connection: Connection): void;
};

/** A statement of a batch, in PostgreSQL's numbered form (`$1, $2…`). It returns no rows (its rows are dropped). */
export interface PostgresStatement {
  text: string;
  values: unknown[];
}

/** The part of a pooled pg client a batch is sent on. */
export interface PostgresClient {
  query<T>(submittable: T): T;
}

/**
 * How many statement texts batches prepare by name. The repositories' writes are a fixed set of texts (a few
 * dozen); texts beyond these (a caller building its SQL from data) run as the unnamed statement, so neither
 * this process nor a connection's server backend keeps more than this many.
 */
export const BATCH_NAMED_STATEMENTS = 100;

const NAME_PREFIX = 'assistant_batch_';

/** The name of each statement text batches prepare, the same on every connection; see `statementName`. */
const names = new Map<string, string>();

/** `text`'s statement name, or undefined once BATCH_NAMED_STATEMENTS texts have one. */
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < BATCH_NAMED_STATEMENTS) {
    name = `${NAME_PREFIX}${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Statements sent to PostgreSQL as one message stream: Bind and Execute of each, then a single Sync. The server
 * runs them in order as one implicit transaction (an error undoes those before it and skips those after), and
 * the client waits for one answer: one round trip however many statements, where a transaction through
 * TypeORM's query runner waits for BEGIN, each statement and COMMIT in turn.
 *
 * Round trips are what a write costs the server process on PostgreSQL: each one wakes a database backend and is
 * read back, 0.1–0.3 ms of the server's CPU measured on a loopback connection (the more, the longer the process
 * slept before the answer), more than the statements' own encoding. A query's question and answer are a
 * transaction of three statements each.
 *
 * Each statement text is prepared once per connection, under a name (Parse, in the same message stream as its
 * first Bind), so that the backend parses and plans it once rather than on every batch — as pg does for a
 * `Query` with a `name`, and with pg's own record of what a connection has prepared
 * (`connection.parsedStatements`). A name is recorded there only once the whole batch has succeeded: after an
 * error the server skips the rest of the batch, so a Parse may or may not have run, and the next batch that
 * needs the name closes it (closing a statement that does not exist is no error) and parses it again.
 *
 * The client's protocol handling is pg's own (this is a `Query`: its results, errors and ReadyForQuery go
 * through the usual handlers); only what is sent differs.
 */
class StatementBatch extends PgQuery {
  /** The names this batch parses, with their texts: prepared on the connection once it succeeds. */
  private readonly parsing = new Map<string, string>();

  constructor(
    private readonly statements: readonly PostgresStatement[],
    callback: (error: Error | undefined) => void,
  ) {
    // Its text only names what it runs (when it is inspected); what is sent is `submit`'s.
    super({ text: statements.map((s) => s.text).join(';\n') }, callback);
  }

  // An error returned here is handed to the callback by pg, before anything is sent.
  override submit = (connection: Connection): Error | null => {
    let values: Array<Array<ReturnType<typeof prepareValue>>>;
    try {
      values = this.statements.map((statement) => statement.values.map(prepareValue));
    } catch (error) {
      return error as Error;
    }
    const prepared = connection.parsedStatements;
    // Written as one buffer when the stream is uncorked: one system call, one wake-up of the backend.
    connection.stream.cork();
    try {
      this.statements.forEach(({ text }, i) => {
        const name = statementName(text);
        if (name === undefined) {
          connection.parse({ name: '', text, types: [] }, true);
        } else if (prepared[name] !== text && !this.parsing.has(name)) {
          // The name may exist from a batch that failed after its Parse.
          connection.close({ type: 'S', name }, true);
          connection.parse({ name, text, types: [] }, true);
          this.parsing.set(name, text);
        }
        connection.bind({ portal: '', statement: name ?? '', values: values[i] }, true);
        connection.execute({}, true);
      });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  };

  // No Describe was sent, so rows would come without their description: a batch returns none.
  override handleDataRow(): void {
    return;
  }

  // pg calls this only when no error came first: every Parse of the batch has run.
  override handleReadyForQuery(connection: Connection): void {
    for (const [name, text] of this.parsing) connection.parsedStatements[name] = text;
    super.handleReadyForQuery(connection);
  }
}

/** Runs `statements` on `client` in one round trip, as one transaction (see StatementBatch). */
export function runBatch(client: PostgresClient, statements: readonly PostgresStatement[]): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(new StatementBatch(statements, (error) => (error ? reject(error) : resolve())));
  });
}
