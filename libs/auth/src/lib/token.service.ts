import { FIRST_PARTY_ONLY_SCOPES, isScope, type Scope } from '@assistant/contracts';
import type {
  OAuthRecordsRepository,
  Page,
  PageRequest,
  StoredTokenKind,
  TokenEntity,
  TokensRepository,
} from '@assistant/storage';
import { AuthError } from './auth.errors';
import { checkTokenFormat, digestToken, generateToken } from './token-format';
import type { Principal } from './principal';

/** How often at most a token's `last_used_at` is written: it is informative, and a write per request is not. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedToken {
  record: TokenEntity;
  /** The secret: hand it to the user once and forget it. */
  secret: string;
}

/**
 * Which verified tokens to forget: those whose principal has every field given (`{}` is every token). Plain data,
 * so that the other processes of a deployment can be told to forget the same ones.
 */
export type PrincipalMatch = Partial<Pick<Principal, 'userId' | 'tokenId' | 'clientId' | 'grantId'>>;

export function principalMatches(principal: Principal, match: PrincipalMatch): boolean {
  return (Object.keys(match) as Array<keyof PrincipalMatch>).every(
    (field) => principal[field] === match[field],
  );
}

export interface TokenServiceOptions {
  /**
   * How long a verified token is remembered in this process, skipping the database on the hot path. Revoking
   * through this service forgets it at once; a revocation made by another process is only seen after this
   * long, unless `onForget` tells the others (the hosted service broadcasts it over Redis).
   */
  cacheTtlMs?: number;
  /**
   * Told of every revocation made in this process (`revoke`, and `forget` of this process's own), so that the
   * deployment's other processes forget the same tokens (`forget(match, 'peer')`). A revocation answers once the
   * promise it returns has settled (at most TELL_OTHERS_MS): a token revoked here is refused everywhere by then.
   */
  onForget?: (match: PrincipalMatch) => void | Promise<void>;
  /**
   * Where OAuth access tokens issued by this server's authorization server are found, and the audience they must
   * name (this API's resource identifier, known once the server knows its public address).
   */
  oauth?: { records: OAuthRecordsRepository; audience(): string };
}

/** Scopes a third-party application's token never carries, whatever its record says (SPEC §2). */

/** An opaque OAuth access token: base64url characters, nothing else (the authorization server makes 43). */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{20,128}$/;

const CACHE_MAX_ENTRIES = 10_000;

/**
 * How long a revocation waits for the other processes to be told (`onForget`) before it answers anyway: a bus
 * that does not answer (Redis away) must not hold it; the other processes' caches then forget the token within
 * their TTL, or all at once when their bus connection comes back.
 */
const TELL_OTHERS_MS = 1_000;

/** Resolves once `told` settles, or after `ms`, whichever comes first; never rejects. */
function settledWithin(told: void | Promise<void>, ms: number): Promise<void> {
  if (!(told instanceof Promise)) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([told.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

export class TokenService {
  private readonly lastTouched = new Map<string, number>();
  /** digest → principal and when it was verified; insertion-ordered, so the oldest entry goes first. */
  private readonly verified = new Map<string, { principal: Principal; at: number }>();
  private readonly cacheTtlMs: number;
  /** Bumped by every revocation, so that a verification that read the row before it does not cache it. */
  private revocations = 0;

  private readonly oauth?: TokenServiceOptions['oauth'];
  private readonly onForget: (match: PrincipalMatch) => void | Promise<void>;

  constructor(
    private readonly tokens: TokensRepository,
    options: TokenServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.oauth = options.oauth;
    this.onForget = options.onForget ?? (() => undefined);
  }

  /**
   * Makes a token. `parentTokenId`: the token it comes from (which minted it, or made the pairing code it is
   * claimed with): revoking that one revokes this one too. A parent revoked meanwhile is `invalid_token`: nothing
   * is made.
   */
  async issue(input: {
    userId: string;
    kind: StoredTokenKind;
    name: string;
    scopes: Scope[];
    expiresAt?: Date | null;
    parentTokenId?: string | null;
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
      parentTokenId: input.parentTokenId ?? null,
    });
    if (!record) throw AuthError.invalidToken('the token this one would come from has been revoked');
    return { record, secret: generated.secret };
  }

  /**
   * The principal for a presented secret, or null when it is malformed, unknown, revoked or expired. A value, not
   * a promise, when no database is asked: a token verified within `cacheTtlMs` (the digest is looked up first: a
   * digest is only remembered for a secret that passed the format check), or a malformed one.
   */
  verify(secret: string): Principal | null | Promise<Principal | null> {
    const digest = digestToken(secret);
    const now = Date.now();
    const cached = this.verified.get(digest);
    if (cached !== undefined) {
      if (now - cached.at < this.cacheTtlMs && !isExpired(cached.principal, now)) {
        this.noteUse(cached.principal, now);
        return cached.principal;
      }
      this.verified.delete(digest);
    }
    const ours = checkTokenFormat(secret) !== null;
    if (!ours && !(this.oauth && OPAQUE_TOKEN.test(secret))) return null;
    return this.lookUp(secret, digest, ours, now);
  }

  private async lookUp(
    secret: string,
    digest: string,
    ours: boolean,
    now: number,
  ): Promise<Principal | null> {
    const revocationsBefore = this.revocations;
    const principal = ours ? await this.findOwn(digest) : await this.findOAuth(secret, digest);
    if (!principal || isExpired(principal, now)) return null;
    this.noteUse(principal, now);
    if (this.cacheTtlMs > 0 && revocationsBefore === this.revocations) this.remember(digest, principal, now);
    return principal;
  }

  list(userId: string, kind: StoredTokenKind, page: PageRequest): Promise<Page<TokenEntity>> {
    return this.tokens.list(userId, kind, page);
  }

  /**
   * Revokes one of the user's tokens and its lineage: the tokens it minted, the devices paired with its codes,
   * and theirs (TokensRepository.deleteLineage). False when the user has no such token.
   */
  async revoke(userId: string, tokenId: string, kind: StoredTokenKind): Promise<boolean> {
    const revoked = await this.tokens.deleteLineage(userId, tokenId, kind);
    // Forget them only after the rows are gone; a verification already reading a row will not cache it either.
    // The token asked for is forgotten even if its row was gone already.
    const ids = [...new Set([tokenId, ...revoked])];
    for (const id of ids) this.lastTouched.delete(id);
    await Promise.all(ids.map((id) => this.forget({ tokenId: id })));
    return revoked.length > 0;
  }

  /**
   * Forgets every verified token that `match`es (a token, an integration or a grant revoked): the next request
   * with it asks the database, which no longer has it. A revocation made here is passed on (`onForget`), and
   * resolves once the other processes were told (at most TELL_OTHERS_MS); one that another process made (`'peer'`)
   * is not passed back.
   */
  forget(match: PrincipalMatch, origin: 'here' | 'peer' = 'here'): Promise<void> {
    this.revocations++;
    for (const [digest, entry] of this.verified)
      if (principalMatches(entry.principal, match)) this.verified.delete(digest);
    return origin === 'here' ? settledWithin(this.onForget(match), TELL_OTHERS_MS) : Promise.resolve();
  }

  private async findOwn(digest: string): Promise<Principal | null> {
    const record = await this.tokens.findByDigest(digest);
    if (!record) return null;
    return {
      userId: record.userId,
      tokenId: record.id,
      kind: record.kind,
      scopes: record.scopes.filter(isScope),
      expiresAt: record.expiresAt,
    };
  }

  /** An access token of this server's authorization server, for this API's audience only. */
  private async findOAuth(secret: string, digest: string): Promise<Principal | null> {
    if (!this.oauth) return null;
    const record = await this.oauth.records.find('AccessToken', secret);
    const token = record?.payload as
      | {
          accountId?: string;
          clientId?: string;
          grantId?: string;
          scope?: string;
          aud?: unknown;
          exp?: number;
        }
      | undefined;
    if (!token?.accountId || !token.clientId || !token.grantId || typeof token.exp !== 'number') return null;
    const audiences = Array.isArray(token.aud) ? token.aud : [token.aud];
    if (!audiences.includes(this.oauth.audience())) return null;
    return {
      userId: token.accountId,
      // Named by its digest: the token itself is the secret and goes nowhere.
      tokenId: `oat_${digest.slice(0, 24)}`,
      kind: 'oauth_access',
      scopes: (token.scope ?? '')
        .split(' ')
        .filter(isScope)
        .filter((scope) => !FIRST_PARTY_ONLY_SCOPES.includes(scope)),
      clientId: token.clientId,
      grantId: token.grantId,
      expiresAt: new Date(token.exp * 1000),
    };
  }

  private remember(digest: string, principal: Principal, now: number): void {
    if (this.verified.size >= CACHE_MAX_ENTRIES)
      this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(digest, { principal, at: now });
  }

  /** Records when a token (for OAuth: its grant, which the profile shows) was last used. */
  private noteUse(principal: Principal, now: number): void {
    const key = principal.grantId ?? principal.tokenId;
    const last = this.lastTouched.get(key) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(key, now);
    const write = principal.grantId
      ? this.oauth?.records.touchGrant(principal.grantId, new Date(now))
      : this.tokens.touch(principal.tokenId, new Date(now));
    // Fire and forget: failing to record the time of use must not fail the request.
    write?.catch(() => this.lastTouched.delete(key));
  }
}

function isExpired(principal: Principal, now: number): boolean {
  return principal.expiresAt !== null && principal.expiresAt.getTime() <= now;
}
