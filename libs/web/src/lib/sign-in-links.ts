import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '@assistant/storage';

/** The one-time sign-in link of a self-hosted server: `<base>/signin/link?token=…`. */
export const SIGN_IN_LINK_PATH = '/signin/link';
/** A link signs in once, within this time. */
export const SIGN_IN_LINK_LIFETIME_MS = 15 * 60 * 1000;

/** 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const digestOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Creates a one-time sign-in link for `userId` (the self-hosted owner) on the server at `baseUrl`. The token is
 * only in the link; the database keeps its digest.
 */
export async function issueSignInLink(storage: Storage, userId: string, baseUrl: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await storage.signInLinks.create({
    digest: digestOf(token),
    userId,
    expiresAt: new Date(Date.now() + SIGN_IN_LINK_LIFETIME_MS),
  });
  const url = new URL(SIGN_IN_LINK_PATH, `${baseUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('token', token);
  return url.toString();
}

/** Uses a link's token: the account it signs in, once; null for a used, expired, unknown or malformed token. */
export function useSignInLink(storage: Storage, token: unknown): Promise<string | null> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return Promise.resolve(null);
  return storage.signInLinks.consume(digestOf(token));
}
