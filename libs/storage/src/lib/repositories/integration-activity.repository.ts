import { toDate, type Sql } from '../sql';

/** One thing a third-party application did with an account. */
export interface IntegrationActivityEntry {
  at: Date;
  /** The endpoint (`GET /api/v1/memories`), or a tool (`tool memory_search`). */
  what: string;
  scope: string | null;
}

type Row = Record<string, unknown>;

/** What third-party applications did with an account, newest first; kept for 30 days by the purge. */
export class IntegrationActivityRepository {
  constructor(private readonly sql: Sql) {}

  async record(userId: string, clientId: string, entry: IntegrationActivityEntry): Promise<void> {
    await this.sql.query(
      `INSERT INTO integration_activity (user_id, client_id, at, what, scope) VALUES (?, ?, ?, ?, ?)`,
      [userId, clientId, this.sql.time(entry.at), entry.what.slice(0, 200), entry.scope],
    );
  }

  async recent(userId: string, clientId: string, limit: number): Promise<IntegrationActivityEntry[]> {
    const rows = await this.sql.query<Row>(
      `SELECT at, what, scope FROM integration_activity WHERE user_id = ? AND client_id = ?
         ORDER BY at DESC LIMIT ?`,
      [userId, clientId, limit],
    );
    return rows.map((r) => ({
      at: toDate(r.at),
      what: String(r.what),
      scope: r.scope ? String(r.scope) : null,
    }));
  }

  /** Forgets an application's activity (it was revoked), or everything older than `before`. */
  async forget(options: { userId: string; clientId: string } | { before: Date }): Promise<void> {
    if ('before' in options) {
      await this.sql.execute(`DELETE FROM integration_activity WHERE at < ?`, [
        this.sql.time(options.before),
      ]);
    } else {
      await this.sql.execute(`DELETE FROM integration_activity WHERE user_id = ? AND client_id = ?`, [
        options.userId,
        options.clientId,
      ]);
    }
  }
}
