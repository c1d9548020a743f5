import { PairingCodeEntity } from '../entities/pairing-code.entity';
import { newId } from '../ids';
import { fromJson, toDate, toDateOrNull, type Sql } from '../sql';

export interface NewPairingCode {
  userId: string;
  digest: string;
  scopes: string[];
  tokenExpiresAt: Date | null;
  expiresAt: Date;
  /** The token making the code, the parent of the device token it will give; absent or null for none. */
  parentTokenId?: string | null;
}

type Row = Record<string, unknown>;

const COLUMNS =
  'id, user_id, digest, scopes, token_expires_at, created_at, expires_at, claimed_at, device_token_id, parent_token_id';

function fromRow(r: Row): PairingCodeEntity {
  return Object.assign(new PairingCodeEntity(), {
    id: String(r.id),
    userId: String(r.user_id),
    digest: String(r.digest),
    scopes: fromJson<string[]>(r.scopes),
    tokenExpiresAt: toDateOrNull(r.token_expires_at),
    createdAt: toDate(r.created_at),
    expiresAt: toDate(r.expires_at),
    claimedAt: toDateOrNull(r.claimed_at),
    deviceTokenId:
      r.device_token_id === null || r.device_token_id === undefined ? null : String(r.device_token_id),
    parentTokenId:
      r.parent_token_id === null || r.parent_token_id === undefined ? null : String(r.parent_token_id),
  });
}

/** How long a spent code's row is kept (its status stays readable for the CLI that waited on it), then pruned. */
const KEEP_SPENT_CODES_MS = 24 * 60 * 60 * 1000;

/** Pairing codes, found by their owner and id, or (for a claim) by the digest of the code alone. */
export class PairingCodesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Stores a new code; null when its digest is taken (an older code, live or spent, had the same one): the
   * caller draws another code. Codes that expired a day ago go first, so the table holds only recent ones.
   */
  async create(input: NewPairingCode, now = new Date()): Promise<PairingCodeEntity | null> {
    await this.sql.execute(`DELETE FROM pairing_codes WHERE expires_at < ?`, [
      this.sql.time(new Date(now.getTime() - KEEP_SPENT_CODES_MS)),
    ]);
    const id = newId('pairing');
    const inserted = await this.sql.execute(
      `INSERT INTO pairing_codes (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?) ON CONFLICT (digest) DO NOTHING`,
      [
        id,
        input.userId,
        input.digest,
        JSON.stringify(input.scopes),
        input.tokenExpiresAt && this.sql.time(input.tokenExpiresAt),
        this.sql.time(now),
        this.sql.time(input.expiresAt),
        input.parentTokenId ?? null,
      ],
    );
    return inserted === 0 ? null : this.get(input.userId, id);
  }

  /** One of the user's codes; null for an unknown id or another user's code. */
  async get(userId: string, id: string): Promise<PairingCodeEntity | null> {
    const row = await this.sql.one<Row>(`SELECT ${COLUMNS} FROM pairing_codes WHERE user_id = ? AND id = ?`, [
      userId,
      id,
    ]);
    return row && fromRow(row);
  }

  /**
   * Claims the code with this digest if it is unclaimed and unexpired at `now`, in one conditional UPDATE: of
   * any number of concurrent claims, the database lets exactly one change the row, and only that one gets the
   * code back. Null for a wrong, used or expired code alike.
   */
  async claim(digest: string, now = new Date()): Promise<PairingCodeEntity | null> {
    const at = this.sql.time(now);
    const claimed = await this.sql.execute(
      `UPDATE pairing_codes SET claimed_at = ? WHERE digest = ? AND claimed_at IS NULL AND expires_at > ?`,
      [at, digest, at],
    );
    if (claimed !== 1) return null;
    const row = await this.sql.one<Row>(`SELECT ${COLUMNS} FROM pairing_codes WHERE digest = ?`, [digest]);
    return row && fromRow(row);
  }

  /** Records the device token issued for a claimed code. */
  async attachDevice(id: string, deviceTokenId: string): Promise<void> {
    await this.sql.execute(`UPDATE pairing_codes SET device_token_id = ? WHERE id = ?`, [deviceTokenId, id]);
  }
}
