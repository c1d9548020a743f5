import type { Sql } from '../sql';

export interface NewSignInLink {
  /** SHA-256 of the link's token; the token itself is only ever in the link. */
  digest: string;
  userId: string;
  expiresAt: Date;
}

/** How long a used or expired link's row is kept before it is pruned. */
const KEEP_SPENT_LINKS_MS = 24 * 60 * 60 * 1000;

/** One-time sign-in links: each signs one browser in, once, before it expires. */
export class SignInLinksRepository {
  constructor(private readonly sql: Sql) {}

  async create(input: NewSignInLink, now = new Date()): Promise<void> {
    await this.sql.execute(`DELETE FROM web_sign_in_links WHERE expires_at < ?`, [
      this.sql.time(new Date(now.getTime() - KEEP_SPENT_LINKS_MS)),
    ]);
    await this.sql.execute(
      `INSERT INTO web_sign_in_links (digest, user_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, NULL)`,
      [input.digest, input.userId, this.sql.time(now), this.sql.time(input.expiresAt)],
    );
  }

  /**
   * Uses the link with this digest if it is unused and unexpired at `now`, in one conditional UPDATE: of any
   * number of concurrent uses, exactly one changes the row and gets the account back. Null for an unknown, used
   * or expired link alike.
   */
  async consume(digest: string, now = new Date()): Promise<string | null> {
    const at = this.sql.time(now);
    const used = await this.sql.execute(
      `UPDATE web_sign_in_links SET used_at = ? WHERE digest = ? AND used_at IS NULL AND expires_at > ?`,
      [at, digest, at],
    );
    if (used !== 1) return null;
    const row = await this.sql.one<{ user_id: string }>(
      `SELECT user_id FROM web_sign_in_links WHERE digest = ?`,
      [digest],
    );
    return row ? String(row.user_id) : null;
  }
}
