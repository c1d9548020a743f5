import { Injectable } from '@nestjs/common';
import { isScope, type Integration } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import type { IntegrationActivityRepository, OAuthRecord, OAuthRecordsRepository } from '@assistant/storage';
import { InjectRepository, ApiError } from '@assistant/server-kit';

/** How many of an application's latest calls the account sees. */
const RECENT_ACTIVITY = 10;

/** What the authorization server keeps of a grant: per resource, the scopes allowed (space-separated). */
interface GrantPayload {
  clientId: string;
  iat?: number;
  resources?: Record<string, string>;
}

/**
 * The third-party applications an account let in (its OAuth grants, one per application), and their revocation in
 * one step: every grant, code and token of the application goes, and no verified-token cache keeps one alive.
 */
@Injectable()
export class IntegrationsService {
  constructor(
    @InjectRepository('oauth') private readonly oauthRecords: OAuthRecordsRepository,
    @InjectRepository('integrationActivity')
    private readonly integrationActivity: IntegrationActivityRepository,
    private readonly tokens: TokenService,
  ) {}

  async list(userId: string): Promise<Integration[]> {
    const grants = await this.oauthRecords.grantsOf(userId);
    const byClient = new Map<string, OAuthRecord[]>();
    for (const grant of grants) {
      const clientId = (grant.payload as unknown as GrantPayload).clientId;
      byClient.set(clientId, [...(byClient.get(clientId) ?? []), grant]);
    }
    return Promise.all(
      [...byClient].map(async ([clientId, clientGrants]) => {
        const client = await this.oauthRecords.find('Client', clientId);
        const scopes = new Set(clientGrants.flatMap((g) => scopesOf(g.payload as unknown as GrantPayload)));
        const created = Math.min(...clientGrants.map((g) => (g.payload as unknown as GrantPayload).iat ?? 0));
        const used = clientGrants.map((g) => g.lastUsedAt?.getTime() ?? 0);
        const activity = await this.integrationActivity.recent(userId, clientId, RECENT_ACTIVITY);
        return {
          client_id: clientId,
          name: String(client?.payload.client_name ?? clientId),
          scopes: [...scopes].filter(isScope).sort(),
          created_at: new Date(created * 1000).toISOString(),
          last_used_at: Math.max(...used) > 0 ? new Date(Math.max(...used)).toISOString() : null,
          recent_activity: activity.map((a) => ({
            at: a.at.toISOString(),
            what: a.what,
            scope: a.scope !== null && isScope(a.scope) ? a.scope : null,
          })),
        };
      }),
    );
  }

  async revoke(userId: string, clientId: string): Promise<void> {
    const removed = await this.oauthRecords.revokeClient(userId, clientId);
    await this.tokens.forget({ userId, clientId });
    if (removed === 0) throw ApiError.notFound('integration');
    await this.integrationActivity.forget({ userId, clientId });
  }
}

function scopesOf(grant: GrantPayload): string[] {
  return Object.values(grant.resources ?? {}).flatMap((scope) => scope.split(' '));
}
