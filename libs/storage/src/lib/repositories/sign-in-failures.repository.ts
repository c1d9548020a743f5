import { randomUUID } from 'node:crypto';
import type { Sql } from '../sql';

/**
 * Failed password sign-ins per email (by the digest of the lower-cased email), which lock that email out for a
 * while. Counted in the database so that every instance of the hosted service sees the same count, and a restart
 * does not reset it.
 */
export class SignInFailuresRepository {
  constructor(private readonly sql: Sql) {}

  /** Records one attempt at `now` and returns its id; attempts from before `forgetBefore` are pruned first. */
  async record(emailDigest: string, now: Date, forgetBefore: Date): Promise<string> {
    await this.sql.execute(`DELETE FROM web_sign_in_failures WHERE failed_at < ?`, [
      this.sql.time(forgetBefore),
    ]);
    const id = randomUUID();
    await this.sql.execute(
      `INSERT INTO web_sign_in_failures (id, email_digest, failed_at) VALUES (?, ?, ?)`,
      [id, emailDigest, this.sql.time(now)],
    );
    return id;
  }

  /** How many attempts for this email were recorded at or after `since`. */
  async countSince(emailDigest: string, since: Date): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM web_sign_in_failures WHERE email_digest = ? AND failed_at >= ?`,
      [emailDigest, this.sql.time(since)],
    );
    return Number(row?.n ?? 0);
  }

  /** Takes back one recorded attempt (it turned out not to be a failure). */
  async remove(id: string): Promise<void> {
    await this.sql.execute(`DELETE FROM web_sign_in_failures WHERE id = ?`, [id]);
  }

  /** Forgets every failure of this email (after a successful sign-in). */
  async clear(emailDigest: string): Promise<void> {
    await this.sql.execute(`DELETE FROM web_sign_in_failures WHERE email_digest = ?`, [emailDigest]);
  }
}
