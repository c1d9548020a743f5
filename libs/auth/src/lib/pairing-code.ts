import { createHash, randomInt } from 'node:crypto';

/**
 * Phone pairing codes: 8 characters shown as `ABCD-EFGH`, read off a screen and typed on a phone. The alphabet
 * leaves out what is easily misread or mistyped (0/O, 1/I/L, and U beside V), leaving 30 symbols: 30^8 ≈ 6.6e11
 * codes, far beyond what the `auth` rate limit lets anyone try in a code's ten minutes. Only the SHA-256 digest of
 * the normalised code is ever stored.
 */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
const CODE_LENGTH = 8;
const GROUP_LENGTH = 4;

export interface GeneratedPairingCode {
  /** For the user: `ABCD-EFGH`. */
  code: string;
  digest: string;
}

export function generatePairingCode(): GeneratedPairingCode {
  let plain = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < CODE_LENGTH; i++)
    plain += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return { code: `${plain.slice(0, GROUP_LENGTH)}-${plain.slice(GROUP_LENGTH)}`, digest: digestOf(plain) };
}

/**
 * The digest of a code as a person may type it: any case, with or without the dash, with spaces. Null when it
 * cannot be a code at all (wrong length or a character outside the alphabet), which a caller answers exactly as
 * it answers a wrong code.
 */
export function digestPairingCode(typed: string): string | null {
  const plain = typed.replace(/[\s-]/g, '').toUpperCase();
  if (plain.length !== CODE_LENGTH || [...plain].some((c) => !PAIRING_CODE_ALPHABET.includes(c))) return null;
  return digestOf(plain);
}

function digestOf(plain: string): string {
  return createHash('sha256').update(plain, 'utf8').digest('hex');
}
