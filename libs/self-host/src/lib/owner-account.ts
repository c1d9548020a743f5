import { userInfo } from 'node:os';
import { ALL_SCOPES } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import { readCredentials, type Credentials } from '@assistant/client/local';

export interface OwnerSetup {
  credentials: Omit<Credentials, 'base_url'>;
  /** True when this start created the owner account (the first run). */
  createdAccount: boolean;
  /** True when a new owner token was issued (first run, or the credentials file was lost or revoked). */
  issuedToken: boolean;
}

function localUserName(): string {
  try {
    return userInfo().username || 'owner';
  } catch {
    return 'owner';
  }
}

/**
 * Makes sure the household's owner account exists and that the credentials file holds a token that works.
 * A valid token in the file is kept as it is: restarting never rotates it.
 */
export async function ensureOwner(storage: Storage, credentialsFile: string): Promise<OwnerSetup> {
  const tokens = new TokenService(storage.tokens);
  let owner = await storage.users.findFirst();
  const createdAccount = !owner;
  owner ??= await storage.users.create({ email: 'owner@localhost', displayName: localUserName() });

  const existing = readCredentials(credentialsFile);
  if (existing && existing.user_id === owner.id) {
    const principal = await tokens.verify(existing.token);
    if (principal?.userId === owner.id) {
      // The token, not the address: the file read holds the address of the last start, which this one replaces.
      const { token, user_id, created_at } = existing;
      return { credentials: { token, user_id, created_at }, createdAccount, issuedToken: false };
    }
  }
  const issued = await tokens.issue({
    userId: owner.id,
    kind: 'personal',
    name: 'Owner (credentials.json)',
    scopes: ALL_SCOPES,
  });
  return {
    credentials: {
      token: issued.secret,
      user_id: owner.id,
      created_at: issued.record.createdAt.toISOString(),
    },
    createdAccount,
    issuedToken: true,
  };
}
