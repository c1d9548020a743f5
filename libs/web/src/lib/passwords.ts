import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** Shorter passwords are refused at sign-up; there is no other rule about what a password contains. */
export const MIN_PASSWORD_LENGTH = 10;
/** Longer ones are refused too: hashing is the expensive part of a sign-in, and nobody types more. */
export const MAX_PASSWORD_LENGTH = 1_000;

/**
 * argon2id (the library's default algorithm) with OWASP's first recommended setting: 19 MiB of memory, two
 * passes, one lane. The parameters are stored in each hash, so raising them later leaves old hashes readable.
 */
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Whether `password` matches `passwordHash`; a malformed hash matches nothing. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let standIn: Promise<string> | undefined;

/**
 * A hash to check passwords against when the email has no account (or no password): the answer is the same "email
 * or password is wrong" either way, and it must take as long, or the time taken would tell accounts apart.
 */
export function standInHash(): Promise<string> {
  standIn ??= hashPassword(randomBytes(16).toString('base64url'));
  return standIn;
}
