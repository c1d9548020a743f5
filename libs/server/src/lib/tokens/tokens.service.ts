import { Injectable } from '@nestjs/common';
import type { CreateToken } from '@assistant/contracts';
import { storedTokenIdOf, TokenService, type IssuedToken, type Principal } from '@assistant/auth';
import { ApiError } from '@assistant/server-kit';

/**
 * Personal tokens minted over the API by another token (`POST /tokens`). A minted token can hand on what its
 * parent holds, never more, and for no longer than the parent lives, expiry or revocation: otherwise a narrow or
 * short-lived token could mint itself a wider or endless one, or one that survives revoking it.
 */
@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokenService) {}

  mint(parent: Principal, request: CreateToken): Promise<IssuedToken> {
    const beyond = request.scopes.filter((scope) => !parent.scopes.includes(scope));
    if (beyond.length > 0) {
      throw ApiError.validation(
        beyond.map((scope) => ({
          field: 'scopes',
          message: `${scope} is not held by the token making this call`,
        })),
      );
    }
    return this.tokens.issue({
      userId: parent.userId,
      kind: 'personal',
      name: request.name,
      scopes: request.scopes,
      expiresAt: cappedExpiry(request.expires_at ? new Date(request.expires_at) : null, parent.expiresAt),
      parentTokenId: storedTokenIdOf(parent),
    });
  }
}

/**
 * The expiry of a minted token: the one asked for, but never later than its parent's. Capped rather than refused,
 * as OAuth servers choose a token's lifetime and report it: the caller need not know when its own token ends,
 * "no expiry" reads as "as long as allowed", and the reply's `expires_at` says what it got.
 */
export function cappedExpiry(requested: Date | null, parentExpiry: Date | null): Date | null {
  if (parentExpiry === null) return requested;
  if (requested === null || requested > parentExpiry) return parentExpiry;
  return requested;
}
