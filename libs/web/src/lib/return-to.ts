/** Where a browser goes after signing in when no `return_to` says otherwise. */
export const AFTER_SIGN_IN = '/profile';

const ORIGIN = 'http://return-to.invalid';

/**
 * A path that a browser reads as a path on this server: it starts with one `/`, not with `//` or `/\` (which
 * browsers read as `//`, another host), and holds no backslash or control character at all.
 */
function isLocalPath(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return false;
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u001f\u007f]/.test(path);
}

/**
 * A `?return_to=` that may be followed after sign-in: a path on this server (`/oauth/interaction/…`,
 * `/profile`), and nothing else. Absolute URLs, scheme-relative `//host` (and its `/\host` spelling, which
 * browsers read the same way), control characters and anything that resolves off this origin are refused, so
 * that the sign-in page cannot be made to send a user to another site. What is returned is the path as resolved
 * (dot segments gone), and it is checked again: `/.//evil.example` or `/%2e//evil.example` resolve to
 * `//evil.example`, which a browser would follow off the site. Null when refused or absent.
 */
export function safeReturnTo(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2_000) return null;
  if (!isLocalPath(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN) return null;
  const resolved = `${url.pathname}${url.search}${url.hash}`;
  return isLocalPath(resolved) ? resolved : null;
}
