import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { SignInFailuresRepository, UsersRepository } from '@assistant/storage';
import { InjectRepository } from '@assistant/server-kit';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  standInHash,
  verifyPassword,
} from './passwords';

/** An email is locked out after this many failed sign-ins within LOCKOUT_WINDOW_MS. */
export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;

export type SignInOutcome =
  | { kind: 'signed-in'; userId: string }
  /** The email has no account, no password, or another password: the same answer for all three. */
  | { kind: 'wrong' }
  /** Too many failures for this email lately, whether or not it has an account. */
  | { kind: 'locked' };

export interface FieldProblem {
  field: 'email' | 'password';
  message: string;
}

/**
 * `answered`: the email had no account and has one now, or it had one and nothing changed. One outcome for both,
 * so that what sign-up answers never tells whether an email has an account.
 */
export type SignUpOutcome = { kind: 'answered' } | { kind: 'invalid'; problems: FieldProblem[] };

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What is wrong with a new account's email and password; empty when nothing is. */
export function signUpProblems(email: string, password: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!EMAIL.test(email) || email.length > 320)
    problems.push({ field: 'email', message: 'Enter an email address, such as ada@example.com.' });
  if (password.length < MIN_PASSWORD_LENGTH)
    problems.push({
      field: 'password',
      message: `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`,
    });
  else if (password.length > MAX_PASSWORD_LENGTH)
    problems.push({
      field: 'password',
      message: `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`,
    });
  return problems;
}

/**
 * Hosted accounts with an email and a password (argon2id). Sign-in answers one "wrong" for an unknown email, an
 * account without a password and a wrong password alike, in the same time; after MAX_FAILED_SIGN_INS failures
 * within LOCKOUT_WINDOW_MS an email is locked until the oldest of them is that old, whether it has an account
 * or not, so that the lockout tells nothing either. Sign-up likewise answers alike, in about the same time,
 * whether it made an account or the email had one already (which it leaves alone).
 */
@Injectable()
export class PasswordAccounts {
  constructor(
    @InjectRepository('users') private readonly users: UsersRepository,
    @InjectRepository('signInFailures') private readonly signInFailures: SignInFailuresRepository,
  ) {}

  async signUp(rawEmail: string, password: string): Promise<SignUpOutcome> {
    const email = normalEmail(rawEmail);
    const problems = signUpProblems(email, password);
    if (problems.length > 0) return { kind: 'invalid', problems };
    // Hashed first, whether or not the account is made: the hash is nearly all of a sign-up's time.
    const passwordHash = await hashPassword(password);
    if (await this.users.findByEmail(email)) return { kind: 'answered' };
    let userId: string;
    try {
      userId = (await this.users.create({ email, displayName: email.split('@')[0] })).id;
    } catch (error) {
      // Two sign-ups for one email at once: the database's unique email lets one through.
      if (await this.users.findByEmail(email)) return { kind: 'answered' };
      throw error;
    }
    await this.users.setPasswordHash(userId, passwordHash);
    return { kind: 'answered' };
  }

  async signIn(rawEmail: string, password: string): Promise<SignInOutcome> {
    const email = normalEmail(rawEmail);
    const failures = this.signInFailures;
    const key = createHash('sha256').update(email, 'utf8').digest('hex');
    const now = new Date();
    const windowStart = new Date(now.getTime() - LOCKOUT_WINDOW_MS);
    // The attempt is counted before the password is checked, so that guesses sent all at once are counted too:
    // each sees the others' rows.
    const attempt = await failures.record(key, now, windowStart);
    if ((await failures.countSince(key, windowStart)) > MAX_FAILED_SIGN_INS) {
      // Not a failure of its own (no password was checked): it must not keep the lock going.
      await failures.remove(attempt);
      return { kind: 'locked' };
    }
    const account = await this.users.findPasswordHash(email);
    const passwordHash = account?.passwordHash ?? null;
    const matches = await verifyPassword(passwordHash ?? (await standInHash()), password);
    if (!account || !passwordHash || !matches) return { kind: 'wrong' };
    await failures.clear(key);
    return { kind: 'signed-in', userId: account.userId };
  }
}
