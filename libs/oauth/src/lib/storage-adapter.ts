import type { OAuthRecordsRepository } from '@assistant/storage';

/** oidc-provider's adapter interface (https://github.com/panva/node-oidc-provider, `adapter`), as used here. */
export interface OidcAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/**
 * How long a client that registered itself (RFC 7591) is kept until someone lets it in, in seconds: a
 * registration nobody completes an authorization for is removed with the expired records (B7). Clients an
 * operator registers (`assistant register-client`) are written without the provider and kept.
 */
export const UNUSED_CLIENT_SECONDS = 24 * 3600;

/**
 * The authorization server's persistence over this server's database (both dialects), one adapter per model
 * (`AccessToken`, `AuthorizationCode`, `Grant`, `Client`, `Interaction`, `Session`…). `consume` is atomic: when a
 * code or refresh token was consumed already — by an earlier request or a simultaneous one — it throws
 * `alreadyConsumed()` (the provider's invalid_grant), so exactly one of many simultaneous redemptions succeeds.
 * A client the provider registers expires after UNUSED_CLIENT_SECONDS unless a grant is saved for it first.
 */
export function storageAdapter(records: OAuthRecordsRepository, alreadyConsumed: () => Error) {
  /** A grant was given to `clientId`: a registration waiting to be used is kept from now on. */
  async function keepClient(clientId: unknown): Promise<void> {
    if (typeof clientId !== 'string') return;
    const client = await records.find('Client', clientId);
    if (client?.expiresAt) await records.upsert('Client', clientId, client.payload);
  }

  return class StorageAdapter implements OidcAdapter {
    constructor(readonly kind: string) {}

    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      if (this.kind === 'Client') {
        return records.upsert(this.kind, id, payload, expiresIn ?? UNUSED_CLIENT_SECONDS);
      }
      await records.upsert(this.kind, id, payload, expiresIn);
      if (this.kind === 'Grant') await keepClient(payload.clientId);
    }

    async find(id: string) {
      return withConsumption(await records.find(this.kind, id));
    }

    async findByUserCode(userCode: string) {
      return withConsumption(await records.findByUserCode(this.kind, userCode));
    }

    async findByUid(uid: string) {
      return withConsumption(await records.findByUid(this.kind, uid));
    }

    async consume(id: string): Promise<void> {
      if (!(await records.consume(this.kind, id))) throw alreadyConsumed();
    }

    destroy(id: string): Promise<void> {
      return records.destroy(this.kind, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return records.revokeGrant(grantId);
    }
  };
}

/** The provider reads consumption from the payload's `consumed` (a time in seconds). */
function withConsumption(
  record: Awaited<ReturnType<OAuthRecordsRepository['find']>>,
): Record<string, unknown> | undefined {
  if (!record) return undefined;
  return record.consumedAt
    ? { ...record.payload, consumed: Math.floor(record.consumedAt.getTime() / 1000) }
    : record.payload;
}
