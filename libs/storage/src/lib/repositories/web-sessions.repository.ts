import { toDate, type Sql } from '../sql';

/** A browser session of the web pages. The cookie's value is never stored: `digest` is its SHA-256. */
export interface WebSession {
  digest: string;
  /** Null until the browser signs in: a signed-out visitor's forms need a CSRF secret too. */
  userId: string | null;
  /** The synchronizer token that every form of this session carries. */
  csrfSecret: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface NewWebSession {
  digest: string;
  userId: string | null;
  csrfSecret: string;
  expiresAt: Date;
}

type Row = Record<string, unknown>;

const COLUMNS = 'digest, user_id, csrf_secret, created_at, expires_at';

function fromRow(r: Row): WebSession {
  return {
    digest: String(r.digest),
    userId: r.user_id === null || r.user_id === undefined ? null : String(r.user_id),
    csrfSecret: String(r.csrf_secret),
    createdAt: toDate(r.created_at),
    expiresAt: toDate(r.expires_at),
  };
}

/** Web sessions, found by the digest of their cookie and only while they live. */
export class WebSessionsRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores a new session; expired ones go first, so that the table holds only live sessions. */
  async create(input: NewWebSession, now = new Date()): Promise<WebSession> {
    await this.sql.execute(`DELETE FROM web_sessions WHERE expires_at < ?`, [this.sql.time(now)]);
    await this.sql.execute(`INSERT INTO web_sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`, [
      input.digest,
      input.userId,
      input.csrfSecret,
      this.sql.time(now),
      this.sql.time(input.expiresAt),
    ]);
    return { ...input, createdAt: now };
  }

  /** The session with this digest, unless it has expired by `now`. */
  async findLive(digest: string, now = new Date()): Promise<WebSession | null> {
    const row = await this.sql.one<Row>(
      `SELECT ${COLUMNS} FROM web_sessions WHERE digest = ? AND expires_at > ?`,
      [digest, this.sql.time(now)],
    );
    return row && fromRow(row);
  }

  /** Moves a session's end (a sliding session is extended as it is used). */
  async extend(digest: string, expiresAt: Date): Promise<void> {
    await this.sql.execute(`UPDATE web_sessions SET expires_at = ? WHERE digest = ?`, [
      this.sql.time(expiresAt),
      digest,
    ]);
  }

  async delete(digest: string): Promise<void> {
    await this.sql.execute(`DELETE FROM web_sessions WHERE digest = ?`, [digest]);
  }

  /** Ends every session of `userId` but the one with digest `keep` (a password change signs out the others). */
  async deleteAllOf(userId: string, keep: string | null = null): Promise<void> {
    await this.sql.execute(`DELETE FROM web_sessions WHERE user_id = ? AND digest <> ?`, [
      userId,
      keep ?? '',
    ]);
  }
}
