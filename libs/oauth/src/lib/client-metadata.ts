/**
 * What an application may say about itself, whether it registers itself (RFC 7591), an operator registers it
 * (`assistant register-client`), or its client ID metadata document says it: the provider checks the protocol's
 * rules, these are this server's on top (B3, B7). A client is stored and its name shown on the consent page, so
 * both stay small and readable.
 */

/** Limits of a client's metadata. */
export const CLIENT_METADATA_LIMITS = {
  /** Redirect URIs a client may have: an application needs one or two (say, a loopback and an https one). */
  maxRedirectUris: 10,
  /** Characters of the name the consent page shows. */
  maxNameChars: 100,
  /** Characters of any other text or URI in the metadata. */
  maxTextChars: 2000,
  /** Entries of any other list in the metadata (contacts, grant types…). */
  maxListEntries: 10,
} as const;

/** Hosts an `http:` redirect URI may name: this machine, where a native application listens for its code. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes a browser runs or reads locally instead of handing to an application: never a redirect URI. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'filesystem:',
]);

/** Characters no name may hold: controls, NUL included. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Half a UTF-16 surrogate pair with no other half: not text at all (JSON's `"\ud800"` makes one). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `raw` may not be a redirect URI, or null when it may: https anywhere; http only on this machine (RFC 8252's
 * loopback redirect); an application's own scheme (`com.example.app:/cb`), but none a browser would run itself.
 */
export function redirectUriRefusal(raw: string): string | null {
  if (raw.length > CLIENT_METADATA_LIMITS.maxTextChars) {
    return `a redirect URI is longer than ${CLIENT_METADATA_LIMITS.maxTextChars} characters`;
  }
  const url = URL.parse(raw);
  if (!url) return `${raw} is not a URL`;
  if (url.hash || raw.includes('#')) return `${raw} must not have a #fragment`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return `${raw} must be https (http only on 127.0.0.1 or localhost)`;
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${raw} uses a scheme that is never a redirect URI`;
  return null;
}

/** Whether a client with these redirect URIs is a native application (an app scheme) rather than a web one. */
export function isNativeApplication(redirectUris: readonly string[]): boolean {
  return redirectUris.some((uri) => !/^https?:/i.test(uri));
}

/** Why a client's metadata is refused, or null: the redirect URIs, the name, and every text and list in it. */
export function clientMetadataRefusal(metadata: Record<string, unknown>): string | null {
  const { redirect_uris: redirectUris, client_name: name } = metadata;
  if (Array.isArray(redirectUris)) {
    if (redirectUris.length > CLIENT_METADATA_LIMITS.maxRedirectUris) {
      return `at most ${CLIENT_METADATA_LIMITS.maxRedirectUris} redirect_uris`;
    }
    for (const uri of redirectUris) {
      const refusal = typeof uri === 'string' ? redirectUriRefusal(uri) : null;
      if (refusal) return refusal;
    }
  }
  if (typeof name === 'string') {
    if (name.length > CLIENT_METADATA_LIMITS.maxNameChars) {
      return `client_name is longer than ${CLIENT_METADATA_LIMITS.maxNameChars} characters`;
    }
    if (CONTROL.test(name)) return 'client_name has a control character';
  }
  return textRefusal(metadata, '');
}

/** Every text in `value` well-formed (no lone surrogate) and within the limits, every list short. */
function textRefusal(value: unknown, path: string): string | null {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) return `${path} is not well-formed text (a lone surrogate)`;
    return value.length > CLIENT_METADATA_LIMITS.maxTextChars
      ? `${path} is longer than ${CLIENT_METADATA_LIMITS.maxTextChars} characters`
      : null;
  }
  if (Array.isArray(value)) {
    const max =
      path === 'redirect_uris'
        ? CLIENT_METADATA_LIMITS.maxRedirectUris
        : CLIENT_METADATA_LIMITS.maxListEntries;
    if (value.length > max) return `${path} has more than ${max} entries`;
    for (const entry of value) {
      const refusal = textRefusal(entry, path);
      if (refusal) return refusal;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, entry] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return 'a field name is not well-formed text';
      const refusal = textRefusal(entry, path ? `${path}.${key}` : key);
      if (refusal) return refusal;
    }
  }
  return null;
}
