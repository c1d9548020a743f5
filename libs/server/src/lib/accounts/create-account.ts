import { ALL_SCOPES, isScope, OperatorError, type Scope } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import { issuePasswordLink, PASSWORD_LINK_LIFETIMES_MS } from '@assistant/web';

export interface CreatedAccount {
  user_id: string;
  email: string;
  display_name: string;
  /** A personal token for the new account. Shown once. */
  token: string;
  scopes: Scope[];
  /**
   * On the hosted service: a link for the new account's person to choose a password with (it has none), once,
   * within a week. Shown once.
   */
  set_password_url?: string;
}

/** Reads `a,b,c` into scopes; every scope when empty. */
export function parseScopeList(raw: string | undefined): Scope[] {
  if (!raw) return ALL_SCOPES;
  const scopes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length)
    throw new OperatorError(`unknown scopes: ${unknown.join(', ')}; known scopes: ${ALL_SCOPES.join(', ')}`);
  return scopes as Scope[];
}

/** Creates an account with a first personal token: the operator's way in until sign-up pages exist. */
export async function createAccount(
  storage: Storage,
  input: {
    email: string | undefined;
    displayName?: string;
    scopes: Scope[];
    /** The hosted service's public address: the account gets a link to choose its first password. */
    passwordLinkBaseUrl?: string;
  },
): Promise<CreatedAccount> {
  const email = input.email?.trim();
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw new OperatorError('give the new account an email address with --email');
  if (await storage.users.findByEmail(email))
    throw new OperatorError(`an account with the email ${email} already exists`);
  const user = await storage.users.create({
    email,
    displayName: input.displayName?.trim() || email.split('@')[0],
  });
  const issued = await new TokenService(storage.tokens).issue({
    userId: user.id,
    kind: 'personal',
    name: 'Created with the account',
    scopes: input.scopes,
  });
  return {
    user_id: user.id,
    email: user.email,
    display_name: user.displayName,
    token: issued.secret,
    scopes: input.scopes,
    ...(input.passwordLinkBaseUrl && {
      set_password_url: await issuePasswordLink(
        storage,
        user.id,
        input.passwordLinkBaseUrl,
        PASSWORD_LINK_LIFETIMES_MS.firstPassword,
      ),
    }),
  };
}
