import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Token secrets look like `asp_<30 random base62><6 base62 CRC32>`: a recognisable prefix per kind (so secret
 * scanners and people can tell what leaked) and a checksum (so a mistyped or made-up token is refused without a
 * database look-up), in the manner of GitHub's `ghp_` tokens. Only the SHA-256 digest is ever stored.
 */
export const TOKEN_PREFIXES = { personal: 'asp', device: 'asd' } as const;
export type SecretTokenKind = keyof typeof TOKEN_PREFIXES;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6;
const TOKEN_PATTERN = /^(asp|asd)_([0-9A-Za-z]{30})([0-9A-Za-z]{6})$/;

function toBase62(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function digestToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface GeneratedToken {
  secret: string;
  digest: string;
  /** Shown in token lists so that a user can tell tokens apart, e.g. `asp_Ab3x`. */
  displayPrefix: string;
}

export function generateToken(kind: SecretTokenKind): GeneratedToken {
  const body = randomBase62(RANDOM_CHARS);
  const secret = `${TOKEN_PREFIXES[kind]}_${body}${toBase62(crc32(body), CHECKSUM_CHARS)}`;
  return { secret, digest: digestToken(secret), displayPrefix: secret.slice(0, 8) };
}

/** The token's kind when it is well formed and its checksum matches; otherwise null. */
export function checkTokenFormat(secret: string): SecretTokenKind | null {
  const match = TOKEN_PATTERN.exec(secret);
  if (!match) return null;
  const [, prefix, body, checksum] = match;
  if (toBase62(crc32(body), CHECKSUM_CHARS) !== checksum) return null;
  return prefix === TOKEN_PREFIXES.personal ? 'personal' : 'device';
}
