import { newId } from '../ids';
import { toDate, type Sql } from '../sql';

/** A connection as stored: its secrets sealed by the server, opaque here. */
export interface StoredConnection {
  id: string;
  userId: string;
  family: string;
  provider: string;
  name: string;
  settings: Record<string, unknown>;
  sealedSecrets: string;
  status: 'ok' | 'error';
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewConnection = Pick<
  StoredConnection,
  'family' | 'provider' | 'name' | 'settings' | 'sealedSecrets' | 'status' | 'lastError'
>;

export type ConnectionChange = Partial<
  Pick<StoredConnection, 'name' | 'settings' | 'sealedSecrets' | 'status' | 'lastError'>
>;

type Row = Record<string, unknown>;

const COLUMNS =
  'id, user_id, family, provider, name, settings, sealed_secrets, status, last_error, created_at, updated_at';

function fromRow(r: Row): StoredConnection {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    family: String(r.family),
    provider: String(r.provider),
    name: String(r.name),
    settings: JSON.parse(String(r.settings)) as Record<string, unknown>,
    sealedSecrets: String(r.sealed_secrets),
    status: r.status === 'error' ? 'error' : 'ok',
    lastError: r.last_error === null || r.last_error === undefined ? null : String(r.last_error),
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

  async create(userId: string, connection: NewConnection): Promise<StoredConnection> {
    const now = new Date();
    const id = newId('connection');
    await this.sql.query(`INSERT INTO connections (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
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
    ]);
    return (await this.get(userId, id)) as StoredConnection;
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
    const changed = await this.sql.execute(
      `UPDATE connections SET ${sets.join(', ')} WHERE user_id = ? AND id = ?`,
      [...params, userId, id],
    );
    return changed === 0 ? null : this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return (await this.sql.execute(`DELETE FROM connections WHERE user_id = ? AND id = ?`, [userId, id])) > 0;
  }
}
