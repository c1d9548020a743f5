import { isScope, type Scope } from '@assistant/contracts';
import type { Page, PageRequest, StoredTokenKind, TokenEntity, TokensRepository } from '@assistant/storage';
import { checkTokenFormat, digestToken, generateToken } from './token-format';
import type { Principal } from './principal';

/** How often at most a token's `last_used_at` is written: it is informative, and a write per request is not. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedToken {
  record: TokenEntity;
  /** The secret: hand it to the user once and forget it. */
  secret: string;
}

export class TokenService {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly tokens: TokensRepository) {}

  async issue(input: {
    userId: string;
    kind: StoredTokenKind;
    name: string;
    scopes: Scope[];
    expiresAt?: Date | null;
  }): Promise<IssuedToken> {
    const generated = generateToken(input.kind);
    const record = await this.tokens.create({
      userId: input.userId,
      kind: input.kind,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      digest: generated.digest,
      tokenPrefix: generated.displayPrefix,
      expiresAt: input.expiresAt ?? null,
    });
    return { record, secret: generated.secret };
  }

  /** The principal for a presented secret, or null when it is malformed, unknown, revoked or expired. */
  async verify(secret: string): Promise<Principal | null> {
    if (!checkTokenFormat(secret)) return null;
    const record = await this.tokens.findByDigest(digestToken(secret));
    if (!record) return null;
    const now = Date.now();
    if (record.expiresAt && record.expiresAt.getTime() <= now) return null;
    this.noteUse(record.id, now);
    return {
      userId: record.userId,
      tokenId: record.id,
      kind: record.kind,
      scopes: record.scopes.filter(isScope),
      expiresAt: record.expiresAt,
    };
  }

  list(userId: string, kind: StoredTokenKind, page: PageRequest): Promise<Page<TokenEntity>> {
    return this.tokens.list(userId, kind, page);
  }

  async revoke(userId: string, tokenId: string, kind: StoredTokenKind): Promise<boolean> {
    this.lastTouched.delete(tokenId);
    return this.tokens.delete(userId, tokenId, kind);
  }

  private noteUse(tokenId: string, now: number): void {
    const last = this.lastTouched.get(tokenId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(tokenId, now);
    // Fire and forget: failing to record the time of use must not fail the request.
    this.tokens.touch(tokenId, new Date(now)).catch(() => this.lastTouched.delete(tokenId));
  }
}
