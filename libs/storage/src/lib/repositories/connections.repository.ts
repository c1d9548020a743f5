import { StorageError } from '../errors';
import { newId } from '../ids';
import { toDate, type Sql, type SqlStatement } from '../sql';

/** A connection as stored: its secrets sealed by the server, opaque here. */
export interface StoredConnection {
  id: string;
  userId: string;
  family: string;
  provider: string;
  /** Unique in its account and family, whatever its case: a tool call names the connection it goes through. */
  name: string;
  /** The family's connection a tool call goes through when it names none; one per account and family. */
  isDefault: boolean;
  settings: Record<string, unknown>;
  sealedSecrets: string;
  /** `needs_reauth`: a connection made by OAuth whose grant the provider no longer honours (consent again). */
  status: 'ok' | 'error' | 'needs_reauth';
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `isDefault` when absent: whether the account has no other connection of the family. */
export type NewConnection = Pick<
  StoredConnection,
  'family' | 'provider' | 'name' | 'settings' | 'sealedSecrets' | 'status' | 'lastError'
> & { isDefault?: boolean };

export type ConnectionChange = Partial<
  Pick<StoredConnection, 'name' | 'settings' | 'sealedSecrets' | 'status' | 'lastError'>
>;

type Row = Record<string, unknown>;

const COLUMNS =
  'id, user_id, family, provider, name, settings, sealed_secrets, status, last_error, created_at, updated_at, is_default';

/** Unsets the family's default, before another connection of it becomes the default. */
const UNSET_DEFAULT =
  'UPDATE connections SET is_default = 0 WHERE user_id = ? AND family = ? AND is_default = 1';

/** A second connection of the same name in an account's family: the unique index said no. */
function isNameTaken(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (typeof e?.message === 'string' && e.message.includes('idx_connections_name'))
  );
}

/** The answer to a name already taken in the family (the service checks first; this is the race's answer). */
export function connectionNameTaken(name: string, family: string): StorageError {
  const message = `you already have a ${family} connection named ${name}; choose another name`;
  return new StorageError('conflict', message, { errors: [{ field: 'name', message }] });
}

function fromRow(r: Row): StoredConnection {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    family: String(r.family),
    provider: String(r.provider),
    name: String(r.name),
    settings: JSON.parse(String(r.settings)) as Record<string, unknown>,
    sealedSecrets: String(r.sealed_secrets),
    status: r.status === 'error' || r.status === 'needs_reauth' ? r.status : 'ok',
    lastError: r.last_error === null || r.last_error === undefined ? null : String(r.last_error),
    isDefault: Number(r.is_default) === 1,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}

/** An account's connections; every statement is scoped to the user, so another account's are not found. */
export class ConnectionsRepository {
  constructor(private readonly sql: Sql) {}

  /** In the order they were added. */
  async list(userId: string): Promise<StoredConnection[]> {
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM connections WHERE user_id = ? ORDER BY id`,
      [userId],
    );
    return rows.map(fromRow);
  }

  async get(userId: string, id: string): Promise<StoredConnection | null> {
    const row = await this.sql.one<Row>(`SELECT ${COLUMNS} FROM connections WHERE user_id = ? AND id = ?`, [
      userId,
      id,
    ]);
    return row ? fromRow(row) : null;
  }

  /** Adds a connection; made the family's default, it takes over from the one before in the same transaction. */
  async create(userId: string, connection: NewConnection): Promise<StoredConnection> {
    const now = new Date();
    const id = newId('connection');
    const isDefault =
      connection.isDefault ??
      !(await this.list(userId)).some((c) => c.family === connection.family && c.isDefault);
    const statements: SqlStatement[] = [];
    if (isDefault) statements.push({ sql: UNSET_DEFAULT, params: [userId, connection.family] });
    statements.push({
      sql: `INSERT INTO connections (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        id,
        userId,
        connection.family,
        connection.provider,
        connection.name,
        JSON.stringify(connection.settings),
        connection.sealedSecrets,
        connection.status,
        connection.lastError,
        this.sql.time(now),
        this.sql.time(now),
        isDefault ? 1 : 0,
      ],
    });
    await this.write(statements, connection.name, connection.family);
    return (await this.get(userId, id)) as StoredConnection;
  }

  /** Makes a connection its family's default (the one before is default no more); false when it is not the user's. */
  async makeDefault(userId: string, id: string): Promise<boolean> {
    const connection = await this.get(userId, id);
    if (!connection) return false;
    await this.sql.writeTogether([
      { sql: UNSET_DEFAULT, params: [userId, connection.family] },
      { sql: 'UPDATE connections SET is_default = 1 WHERE user_id = ? AND id = ?', params: [userId, id] },
    ]);
    return true;
  }

  private async write(statements: SqlStatement[], name: string, family: string): Promise<void> {
    try {
      await this.sql.writeTogether(statements);
    } catch (error) {
      if (isNameTaken(error)) throw connectionNameTaken(name, family);
      throw error;
    }
  }

  /** Changes the given fields (and `updated_at`); null when the connection is not the user's. */
  async update(userId: string, id: string, change: ConnectionChange): Promise<StoredConnection | null> {
    const sets: string[] = [];
    const params: unknown[] = [];
    const columns: Record<keyof ConnectionChange, string> = {
      name: 'name',
      settings: 'settings',
      sealedSecrets: 'sealed_secrets',
      status: 'status',
      lastError: 'last_error',
    };
    for (const [key, column] of Object.entries(columns) as Array<[keyof ConnectionChange, string]>) {
      if (change[key] === undefined) continue;
      sets.push(`${column} = ?`);
      params.push(key === 'settings' ? JSON.stringify(change[key]) : change[key]);
    }
    // Strictly later than before, so that a changed connection is never mistaken for the one already opened.
    const before = await this.get(userId, id);
    if (!before) return null;
    const now = new Date(Math.max(Date.now(), before.updatedAt.getTime() + 1));
    sets.push('updated_at = ?');
    params.push(this.sql.time(now));
    await this.write(
      [
        {
          sql: `UPDATE connections SET ${sets.join(', ')} WHERE user_id = ? AND id = ?`,
          params: [...params, userId, id],
        },
      ],
      change.name ?? before.name,
      before.family,
    );
    return this.get(userId, id);
  }

  /** Removes a connection; when it was its family's default, the oldest one left of the family becomes it. */
  async delete(userId: string, id: string): Promise<boolean> {
    const connection = await this.get(userId, id);
    if (!connection) return false;
    await this.sql.writeTogether([
      { sql: 'DELETE FROM connections WHERE user_id = ? AND id = ?', params: [userId, id] },
      ...(connection.isDefault
        ? [
            {
              sql: `UPDATE connections SET is_default = 1 WHERE id = (
                SELECT MIN(id) FROM connections WHERE user_id = ? AND family = ?)`,
              params: [userId, connection.family],
            },
          ]
        : []),
    ]);
    return true;
  }
}
