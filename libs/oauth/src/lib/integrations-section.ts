import { Injectable } from '@nestjs/common';
import type { Integration } from '@assistant/contracts';
import {
  html,
  type Html,
  buttonForm,
  itemTable,
  timeOf,
  PAGE_PATHS,
  paramOf,
  pathWithId,
  scopeList,
  signedInPage,
  ProfileSection,
  SitePages,
  WebSessions,
  type PageProvider,
  type PageRoute,
  type ProfileSectionContext,
  type ProfileSectionProvider,
} from '@assistant/server-kit';
import { IntegrationsService } from './integrations.service';

function activityList(activity: Integration['recent_activity']): Html {
  if (activity.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ul class="activity">
    ${activity.map(
      (a) => html`<li>${timeOf(new Date(a.at))} <code>${a.what}</code>${a.scope && html` (${a.scope})`}</li>`,
    )}
  </ul>`;
}

/**
 * The third-party applications this account let in through OAuth: each with its scopes, last use and latest
 * calls, and a Revoke button that ends every token it holds at once.
 */
@Injectable()
@ProfileSection({ order: 40 })
@SitePages()
export class IntegrationsSection implements ProfileSectionProvider, PageProvider {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly sessions: WebSessions,
  ) {}

  routes(): PageRoute[] {
    return [
      signedInPage(
        (request) => this.sessions.userIdFor(request),
        'POST',
        PAGE_PATHS.revokeIntegration,
        async (request, reply, userId) => {
          await this.revoke(userId, paramOf(request, 'id'));
          return reply.redirect(`${PAGE_PATHS.profile}#integrations`, 303);
        },
      ),
    ];
  }

  async render({ userId, csrf }: ProfileSectionContext): Promise<Html> {
    const apps = await this.integrations.list(userId);
    const rows = apps.map(
      (app) =>
        html`<tr>
          <td>${app.name}</td>
          <td>${scopeList(app.scopes)}</td>
          <td>${timeOf(new Date(app.created_at))}</td>
          <td>${timeOf(app.last_used_at ? new Date(app.last_used_at) : null)}</td>
          <td>${activityList(app.recent_activity)}</td>
          <td>
            ${buttonForm(
              pathWithId(PAGE_PATHS.revokeIntegration, app.client_id),
              csrf,
              'Revoke',
              `Revoke ${app.name}`,
            )}
          </td>
        </tr>`,
    );
    return html`<section aria-labelledby="integrations">
      <h2 id="integrations">Applications</h2>
      <p>Applications you allowed to use your assistant. Revoking one ends every token it holds at once.</p>
      ${itemTable(
        ['Application', 'Scopes', 'Allowed', 'Last used', 'Recent activity'],
        rows,
        'You have not allowed any application.',
      )}
    </section>`;
  }

  /** Revokes one application of the account (an unknown one is a not-found page, through its ApiError). */
  revoke(userId: string, clientId: string): Promise<void> {
    return this.integrations.revoke(userId, clientId);
  }
}
