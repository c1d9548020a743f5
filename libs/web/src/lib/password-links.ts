import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '@assistant/storage';

/** Where a password link leads: a form for a new password (`?token=…`). */
export const PASSWORD_LINK_PATH = '/password/reset';

/** How long a link lives: a mailed reset briefly; one the operator hands to a new person, long enough to arrive. */
export const PASSWORD_LINK_LIFETIMES_MS = {
  reset: 30 * 60 * 1000,
  firstPassword: 7 * 24 * 60 * 60 * 1000,
} as const;

/** 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Password links are kept beside the self-hosted sign-in links, single-use the same way, but under a digest of
 * their own purpose: a password link's token is no sign-in link (it only lets a new password be chosen), and a
 * sign-in link's token sets no password.
 */
const digestOf = (token: string) =>
  createHash('sha256').update(`password-link:${token}`, 'utf8').digest('hex');

/** A link that lets whoever opens it choose a new password for `userId`, once, within `lifetimeMs`. */
export async function issuePasswordLink(
  storage: Storage,
  userId: string,
  baseUrl: string,
  lifetimeMs: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await storage.signInLinks.create({
    digest: digestOf(token),
    userId,
    expiresAt: new Date(Date.now() + lifetimeMs),
  });
  const url = new URL(PASSWORD_LINK_PATH, `${baseUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('token', token);
  return url.toString();
}

/** Uses a password link's token: its account, once; null for a used, expired, unknown or malformed token. */
export function usePasswordLink(storage: Storage, token: unknown): Promise<string | null> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return Promise.resolve(null);
  return storage.signInLinks.consume(digestOf(token));
}

/** Whether `token` looks like a link's token at all (before a form is shown for it). */
export function looksLikePasswordToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN.test(token);
}
