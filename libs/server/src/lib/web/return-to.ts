/** Where a browser goes after signing in when no `return_to` says otherwise. */
export const AFTER_SIGN_IN = '/profile';

const ORIGIN = 'http://return-to.invalid';

/**
 * A `?return_to=` that may be followed after sign-in: a path on this server (`/oauth/interaction/…`,
 * `/profile`), and nothing else. Absolute URLs, scheme-relative `//host` (and its `/\host` spelling, which
 * browsers read the same way), control characters and anything that resolves off this origin are refused, so
 * that the sign-in page cannot be made to send a user to another site. Null when refused or absent.
 */
export function safeReturnTo(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2_000) return null;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
