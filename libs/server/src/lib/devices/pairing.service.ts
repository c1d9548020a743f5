import { Injectable } from '@nestjs/common';
import { isScope, type Scope } from '@assistant/contracts';
import {
  AuthError,
  digestPairingCode,
  generatePairingCode,
  storedTokenIdOf,
  TokenService,
  type IssuedToken,
  type Principal,
} from '@assistant/auth';
import type {
  PairingCodeEntity,
  TokenEntity,
  PairingCodesRepository,
  TokensRepository,
} from '@assistant/storage';
import { InjectRepository, ApiError } from '@assistant/server-kit';

/** How long a pairing code can be claimed (SPEC §3). */
export const PAIRING_CODE_LIFETIME_MS = 10 * 60_000;

/** A device never manages the account: its tokens, integrations and devices stay with the account holder. */
const NEVER_FOR_DEVICES: readonly Scope[] = ['write:account'];

/** Codes drawn before giving up when each one's digest is already taken (about 1 in 6.6e11 per draw). */
const MAX_DRAWS = 5;

export type PairingState = 'waiting' | 'claimed' | 'expired';

/**
 * Phone pairing: the account holder makes a short code, a phone presents it once and gets a device token. A code
 * hands on what the token that made it holds, except `write:account`, and for no longer than that token lives,
 * as `POST /tokens` does: otherwise a narrow or short-lived token could pair itself a wider or endless one.
 * Revoking that token revokes the device, and deletes the code if it is still unclaimed (its lineage).
 */
@Injectable()
export class PairingService {
  constructor(
    @InjectRepository('pairingCodes') private readonly pairingCodes: PairingCodesRepository,
    @InjectRepository('tokens') private readonly tokensRecords: TokensRepository,
    private readonly tokens: TokenService,
  ) {}

  async create(creator: Principal, now = new Date()): Promise<{ record: PairingCodeEntity; code: string }> {
    const lifetimeEnd = new Date(now.getTime() + PAIRING_CODE_LIFETIME_MS);
    // A code outliving its creator's token would pair a device whose token has already expired.
    const expiresAt = creator.expiresAt && creator.expiresAt < lifetimeEnd ? creator.expiresAt : lifetimeEnd;
    for (let draw = 0; draw < MAX_DRAWS; draw++) {
      const { code, digest } = generatePairingCode();
      const record = await this.pairingCodes
        .create(
          {
            userId: creator.userId,
            digest,
            scopes: creator.scopes.filter((scope) => !NEVER_FOR_DEVICES.includes(scope)),
            tokenExpiresAt: creator.expiresAt,
            expiresAt,
            parentTokenId: storedTokenIdOf(creator),
          },
          now,
        )
        .catch((error: unknown) => this.refusedIfCreatorRevoked(creator, error));
      if (record) return { record, code };
    }
    throw new Error(`no unused pairing code after ${MAX_DRAWS} draws`);
  }

  /**
   * A code whose insert failed because the token making it was revoked meanwhile (the database refuses a code of
   * a deleted token): 401, as that token's next call gets. Any other failure is passed on.
   */
  private async refusedIfCreatorRevoked(creator: Principal, error: unknown): Promise<never> {
    const parent = storedTokenIdOf(creator);
    const kind = creator.kind === 'device' ? 'device' : 'personal';
    if (parent && !(await this.tokensRecords.find(creator.userId, parent, kind))) {
      throw AuthError.invalidToken('the token making this call has been revoked');
    }
    throw error;
  }

  /** One of the account's codes and, once claimed, its device (absent again once that device is revoked). */
  async get(
    userId: string,
    id: string,
    now = new Date(),
  ): Promise<{ record: PairingCodeEntity; state: PairingState; device: TokenEntity | null }> {
    const record = await this.pairingCodes.get(userId, id);
    if (!record) throw ApiError.notFound('pairing code');
    const device = record.deviceTokenId
      ? await this.tokensRecords.find(userId, record.deviceTokenId, 'device')
      : null;
    return { record, state: pairingState(record, now), device };
  }

  /**
   * Trades a code for a device token. The claim is one conditional UPDATE, so of concurrent claims exactly one
   * wins. A wrong, used or expired code (or one that cannot be a code) gets one and the same answer, so that the
   * answer tells a guesser nothing. Should issuing the token fail after the claim, the code stays spent: the
   * user makes another, which is safer than a code that could be claimed twice.
   */
  async claim(code: string, deviceName: string): Promise<IssuedToken> {
    const digest = digestPairingCode(code);
    const claimed = digest ? await this.pairingCodes.claim(digest) : null;
    if (!claimed) throw badCode();
    let issued: IssuedToken;
    try {
      issued = await this.tokens.issue({
        userId: claimed.userId,
        kind: 'device',
        name: deviceName,
        scopes: claimed.scopes.filter(isScope),
        expiresAt: claimed.tokenExpiresAt,
        parentTokenId: claimed.parentTokenId,
      });
    } catch (error) {
      // The token that made the code was revoked just now: the code went with it.
      if (error instanceof AuthError) throw badCode();
      throw error;
    }
    await this.pairingCodes.attachDevice(claimed.id, issued.record.id);
    return issued;
  }
}

/**
 * Claimed once its device token exists (the claim sets `claimed_at` a moment before), so that a waiting CLI that
 * sees `claimed` can always name the device; expired when its ten minutes ran out unclaimed.
 */
export function pairingState(record: PairingCodeEntity, now: Date): PairingState {
  if (record.deviceTokenId) return 'claimed';
  return record.expiresAt <= now ? 'expired' : 'waiting';
}

function badCode(): ApiError {
  return ApiError.validation([
    {
      field: 'code',
      message:
        'not a pairing code that can be claimed: it is wrong, already used or expired; make a new one (assistant pair)',
    },
  ]);
}
