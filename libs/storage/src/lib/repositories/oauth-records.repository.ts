import { toDateOrNull, type Sql } from '../sql';

/** One record of the OAuth authorization server (a grant, a code, a token, a client…) with what is indexed of it. */
export interface OAuthRecord {
  kind: string;
  id: string;
  /** The authorization server's own JSON for it. */
  payload: Record<string, unknown>;
  grantId: string | null;
  accountId: string | null;
  clientId: string | null;
  expiresAt: Date | null;
  consumedAt: Date | null;
  lastUsedAt: Date | null;
}

type Row = Record<string, unknown>;

const COLUMNS = 'kind, id, payload, grant_id, account_id, client_id, expires_at, consumed_at, last_used_at';

const text = (value: unknown): string | null =>
  value === null || value === undefined || value === '' ? null : String(value);

function fromRow(r: Row): OAuthRecord {
  return {
    kind: String(r.kind),
    id: String(r.id),
    payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
    grantId: text(r.grant_id),
    accountId: text(r.account_id),
    clientId: text(r.client_id),
    expiresAt: toDateOrNull(r.expires_at),
    consumedAt: toDateOrNull(r.consumed_at),
    lastUsedAt: toDateOrNull(r.last_used_at),
  };
}

/**
 * The OAuth authorization server's records. Every read leaves out what has expired; a consumption happens once,
 * whoever races for it; removing a grant removes every code and token issued under it.
 */
export class OAuthRecordsRepository {
  constructor(private readonly sql: Sql) {}

  /** Creates or replaces a record; `expiresInSeconds` absent keeps it until it is removed. */
  async upsert(
    kind: string,
    id: string,
    payload: Record<string, unknown>,
    expiresInSeconds?: number,
  ): Promise<void> {
    const expiresAt = expiresInSeconds ? new Date(Date.now() + expiresInSeconds * 1000) : null;
    // A grant is filed under its own id, so that removing "everything of a grant" removes the grant too.
    const grantId = kind === 'Grant' ? id : text(payload.grantId);
    await this.sql.query(
      `INSERT INTO oauth_records (kind, id, payload, grant_id, uid, user_code, account_id, client_id, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         uid = excluded.uid, user_code = excluded.user_code, account_id = excluded.account_id,
         client_id = excluded.client_id, expires_at = excluded.expires_at`,
      [
        kind,
        id,
        JSON.stringify(payload),
        grantId,
        text(payload.uid),
        text(payload.userCode),
        text(payload.accountId),
        text(payload.clientId),
        expiresAt ? this.sql.time(expiresAt) : null,
      ],
    );
  }

  find(kind: string, id: string): Promise<OAuthRecord | null> {
    return this.findBy(kind, 'id', id);
  }

  findByUid(kind: string, uid: string): Promise<OAuthRecord | null> {
    return this.findBy(kind, 'uid', uid);
  }

  findByUserCode(kind: string, userCode: string): Promise<OAuthRecord | null> {
    return this.findBy(kind, 'user_code', userCode);
  }

  /**
   * Marks a record consumed (an authorization code redeemed, a refresh token rotated). Atomic: of many
   * simultaneous consumptions exactly one gets true; the others, and any later one, get false.
   */
  async consume(kind: string, id: string): Promise<boolean> {
    const changed = await this.sql.execute(
      `UPDATE oauth_records SET consumed_at = ? WHERE kind = ? AND id = ? AND consumed_at IS NULL`,
      [this.sql.time(new Date()), kind, id],
    );
    return changed === 1;
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.sql.execute(`DELETE FROM oauth_records WHERE kind = ? AND id = ?`, [kind, id]);
  }

  /** Removes a grant's every record: its codes, access and refresh tokens, and the grant itself. */
  async revokeGrant(grantId: string): Promise<void> {
    await this.sql.execute(`DELETE FROM oauth_records WHERE grant_id = ?`, [grantId]);
  }

  /** Every live record of a kind (the registered clients, for an operator), in id order. */
  async all(kind: string): Promise<OAuthRecord[]> {
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM oauth_records WHERE kind = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`,
      [kind, this.sql.time(new Date())],
    );
    return rows.map(fromRow);
  }

  /** The account's grants (one per application it allowed), oldest first. */
  async grantsOf(accountId: string): Promise<OAuthRecord[]> {
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM oauth_records WHERE account_id = ? AND kind = 'Grant'
         AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`,
      [accountId, this.sql.time(new Date())],
    );
    return rows.map(fromRow);
  }

  /**
   * Removes every grant the account gave one application, with all their codes and tokens; returns how many
   * records went (none when the account never allowed it).
   */
  revokeClient(accountId: string, clientId: string): Promise<number> {
    return this.sql.execute(
      `DELETE FROM oauth_records WHERE grant_id IN
         (SELECT id FROM oauth_records WHERE kind = 'Grant' AND account_id = ? AND client_id = ?)`,
      [accountId, clientId],
    );
  }

  /** When a grant's access token was last used (informative: written at most once a minute by the caller). */
  async touchGrant(grantId: string, at: Date): Promise<void> {
    await this.sql.execute(`UPDATE oauth_records SET last_used_at = ? WHERE kind = 'Grant' AND id = ?`, [
      this.sql.time(at),
      grantId,
    ]);
  }

  /** Deletes what has expired; returns how many records went. */
  purgeExpired(now = new Date()): Promise<number> {
    return this.sql.execute(`DELETE FROM oauth_records WHERE expires_at IS NOT NULL AND expires_at <= ?`, [
      this.sql.time(now),
    ]);
  }

  private async findBy(kind: string, column: 'id' | 'uid' | 'user_code', value: string) {
    const row = await this.sql.one<Row>(
      `SELECT ${COLUMNS} FROM oauth_records WHERE kind = ? AND ${column} = ?
         AND (expires_at IS NULL OR expires_at > ?)`,
      [kind, value, this.sql.time(new Date())],
    );
    return row ? fromRow(row) : null;
  }
}
