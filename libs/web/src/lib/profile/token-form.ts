import { ALL_SCOPES, isScope, type Scope } from '@assistant/contracts';

/** The expiries offered for a new personal token, in days; '' is none. */
export const TOKEN_EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The new-token form as it was filled in (to show it again with its problems). */
export interface TokenFormInput {
  name: string;
  scopes: string[];
  expiry: string;
}

export type TokenFormOutcome =
  { ok: true; name: string; scopes: Scope[]; expiresAt: Date | null } | { ok: false; problems: string[] };

/** Reads the new-token form of /profile: a name, at least one known scope, and one of the offered expiries. */
export function readTokenForm(input: TokenFormInput, now = new Date()): TokenFormOutcome {
  const problems: string[] = [];
  const name = input.name.trim();
  if (!name) problems.push('Give the token a name, so that you can tell it apart later.');
  else if (name.length > 100) problems.push('Keep the name to 100 characters.');
  const scopes = ALL_SCOPES.filter((scope) => input.scopes.includes(scope));
  if (input.scopes.some((scope) => !isScope(scope))) problems.push('Choose the scopes from the list.');
  else if (scopes.length === 0) problems.push('Choose at least one thing the token may do.');
  const expiry = TOKEN_EXPIRY_CHOICES.find((choice) => choice.value === input.expiry);
  if (!expiry) problems.push('Choose when the token expires from the list.');
  if (problems.length > 0) return { ok: false, problems };
  const days = Number(expiry?.value || 0);
  return { ok: true, name, scopes, expiresAt: days ? new Date(now.getTime() + days * DAY_MS) : null };
}
