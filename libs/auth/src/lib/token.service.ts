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

export interface TokenServiceOptions {
  /**
   * How long a verified token is remembered in this process, skipping the database on the hot path. Revoking
   * through this service forgets it at once; a revocation made by another process is only seen after this
   * long, so the hosted service keeps it at 0 until revocations are broadcast between its processes.
   */
  cacheTtlMs?: number;
}

const CACHE_MAX_ENTRIES = 10_000;

export class TokenService {
  private readonly lastTouched = new Map<string, number>();
  /** digest → principal and when it was verified; insertion-ordered, so the oldest entry goes first. */
  private readonly verified = new Map<string, { principal: Principal; at: number }>();
  private readonly cacheTtlMs: number;
  /** Bumped by every revocation, so that a verification that read the row before it does not cache it. */
  private revocations = 0;
  /** request → the verification of its bearer secret; weak, so that it goes with the request. */
  private readonly perRequest = new WeakMap<
    object,
    { secret: string; principal: Promise<Principal | null> }
  >();

  constructor(
    private readonly tokens: TokensRepository,
    options: TokenServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
  }

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
    const digest = digestToken(secret);
    const now = Date.now();
    const cached = this.verified.get(digest);
    if (cached && now - cached.at < this.cacheTtlMs && !isExpired(cached.principal, now)) {
      this.noteUse(cached.principal.tokenId, now);
      return cached.principal;
    }
    this.verified.delete(digest);
    const revocationsBefore = this.revocations;
    const record = await this.tokens.findByDigest(digest);
    if (!record) return null;
    const principal: Principal = {
      userId: record.userId,
      tokenId: record.id,
      kind: record.kind,
      scopes: record.scopes.filter(isScope),
      expiresAt: record.expiresAt,
    };
    if (isExpired(principal, now)) return null;
    this.noteUse(record.id, now);
    if (this.cacheTtlMs > 0 && revocationsBefore === this.revocations) this.remember(digest, principal, now);
    return principal;
  }

  /**
   * `verify`, at most once per request: the rate-limit hook verifies before routing (only a verified token gets
   * a bucket of its own) and the bearer strategy after it; both get the same answer from one verification.
   */
  verifyForRequest(request: object, secret: string): Promise<Principal | null> {
    const known = this.perRequest.get(request);
    if (known?.secret === secret) return known.principal;
    const principal = this.verify(secret);
    this.perRequest.set(request, { secret, principal });
    return principal;
  }

  list(userId: string, kind: StoredTokenKind, page: PageRequest): Promise<Page<TokenEntity>> {
    return this.tokens.list(userId, kind, page);
  }

  async revoke(userId: string, tokenId: string, kind: StoredTokenKind): Promise<boolean> {
    const deleted = await this.tokens.delete(userId, tokenId, kind);
    // Forget it only after the row is gone; a verification already reading the row will not cache it either.
    this.revocations++;
    this.lastTouched.delete(tokenId);
    for (const [digest, entry] of this.verified)
      if (entry.principal.tokenId === tokenId) this.verified.delete(digest);
    return deleted;
  }

  private remember(digest: string, principal: Principal, now: number): void {
    if (this.verified.size >= CACHE_MAX_ENTRIES)
      this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(digest, { principal, at: now });
  }

  private noteUse(tokenId: string, now: number): void {
    const last = this.lastTouched.get(tokenId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(tokenId, now);
    // Fire and forget: failing to record the time of use must not fail the request.
    this.tokens.touch(tokenId, new Date(now)).catch(() => this.lastTouched.delete(tokenId));
  }
}

function isExpired(principal: Principal, now: number): boolean {
  return principal.expiresAt !== null && principal.expiresAt.getTime() <= now;
}
