import { Injectable } from '@nestjs/common';
import type { Connection } from '@assistant/contracts';
import {
  html,
  type Html,
  buttonForm,
  csrfField,
  itemTable,
  PAGE_PATHS,
  pathWithId,
  ProfileSection,
  type ProfileSectionContext,
  type ProfileSectionProvider,
} from '@assistant/server-kit';
import { ConnectionsService } from '../connections.service';
import { OAuthConnections } from '../oauth-connections.service';

/** A provider a connection can be added with, for the section's "Add" links. */
export interface OfferedProvider {
  family: string;
  name: string;
  description: string;
}

/** The link to the form of a new connection of one provider. */
export function newConnectionPath(family: string, provider: string): string {
  return `${PAGE_PATHS.newConnection}?${new URLSearchParams({ family, provider }).toString()}`;
}

/** Where that form is posted. */
export function createConnectionPath(family: string, provider: string): string {
  return `${PAGE_PATHS.createConnection}?${new URLSearchParams({ family, provider }).toString()}`;
}

/** An account provider this server connects by OAuth ("Connect Google"). */
export interface ConnectableAccount {
  name: string;
  title: string;
}

/** Where "Connect Google" / "Reconnect" posts. */
export function connectAccountPath(client: string): string {
  return PAGE_PATHS.connectAccount.replace(':client', encodeURIComponent(client));
}

/** A plain button that starts (or starts again) the consent at the provider. */
function connectButton(client: string, csrf: string, label: string, accessibleName = label): Html {
  return html`<form method="post" action="${connectAccountPath(client)}" class="inline">
    ${csrfField(csrf)}<button type="submit" aria-label="${accessibleName}">${label}</button>
  </form>`;
}

function statusCell(c: Connection, csrf: string): Html {
  if (c.status === 'ok') return html`Working`;
  if (c.status === 'needs_reauth') {
    const client = typeof c.settings.oauth_client === 'string' ? c.settings.oauth_client : '';
    return html`<span class="error">Needs reconnecting</span>
      ${client && connectButton(client, csrf, 'Reconnect', `Reconnect ${c.name}`)}`;
  }
  return html`<span class="error">Failing</span>${c.last_error && html`: ${c.last_error}`}`;
}

/** A family's default is marked; another of the account's own gets a button that makes it the default. */
function defaultCell(c: Connection, csrf: string): Html {
  if (c.default) return html`Default`;
  if (c.built_in) return html`<span class="muted">—</span>`;
  return html`<form method="post" action="${pathWithId(PAGE_PATHS.defaultConnection, c.id)}" class="inline">
    ${csrfField(csrf)}<button type="submit" aria-label="Make ${c.name} the default ${c.family} connection">
      Make default
    </button>
  </form>`;
}

function actionsCell(c: Connection, csrf: string): Html {
  if (c.built_in) return html`<span class="muted">Built in</span>`;
  // Made by "Connect Google" / "Connect Microsoft": nothing to edit, Reconnect when it needs it.
  if (typeof c.settings.oauth_client === 'string')
    return buttonForm(pathWithId(PAGE_PATHS.removeConnection, c.id), csrf, 'Remove', `Remove ${c.name}`);
  return html`<a href="${pathWithId(PAGE_PATHS.editConnection, c.id)}" aria-label="Edit ${c.name}">Edit</a>
    ${buttonForm(pathWithId(PAGE_PATHS.removeConnection, c.id), csrf, 'Remove', `Remove ${c.name}`)}`;
}

/**
 * The connections section of /profile: each connection with its family, provider, status and last error, which
 * one is its family's default; edit, make default, remove; and a link to the form of each provider this server
 * offers.
 */
export function connectionsSection(
  connections: readonly Connection[],
  offered: readonly OfferedProvider[],
  csrf: string,
  accounts: readonly ConnectableAccount[] = [],
): Html {
  return html`<section aria-labelledby="connections">
    <h2 id="connections">Connections</h2>
    <p>
      The accounts behind the assistant’s tools: your mailboxes, calendars, folders and smart home. A family
      can have several (work and personal mail); a request uses the family’s default unless it names another
      (“check my work mail”).
    </p>
    ${itemTable(
      ['Name', 'Family', 'Provider', 'Status', 'Default'],
      connections.map(
        (c) =>
          html`<tr>
            <td>${c.name}</td>
            <td>${c.family}</td>
            <td>${c.provider}</td>
            <td>${statusCell(c, csrf)}</td>
            <td>${defaultCell(c, csrf)}</td>
            <td>${actionsCell(c, csrf)}</td>
          </tr>`,
      ),
      'You have no connections.',
    )}
    ${
      accounts.length > 0 &&
      html`<h3 id="connect-account">Connect an account</h3>
        <p>Mail and calendar of a Google or Microsoft account, after you allow it there.</p>
        ${accounts.map((a) => connectButton(a.name, csrf, `Connect ${a.title}`))}`
    }
    <h3 id="new-connection">Add a connection</h3>
    <ul aria-labelledby="new-connection">
      ${offered.map(
        (p) =>
          html`<li>
            <a href="${newConnectionPath(p.family, p.name)}">${p.description}</a>
            <span class="muted">(${p.family}, <code>${p.name}</code>)</span>
          </li>`,
      )}
    </ul>
  </section>`;
}

/** The Connections section of /profile: the account's connections, Connect Google or Microsoft, and Add links. */
@Injectable()
@ProfileSection({ order: 60 })
export class ConnectionsSection implements ProfileSectionProvider {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly oauth: OAuthConnections,
  ) {}

  async render({ userId, csrf }: ProfileSectionContext): Promise<Html> {
    const { data } = await this.connections.list(userId);
    return connectionsSection(data, this.offered(), csrf, this.accounts());
  }

  /** The providers a connection can be added with here. */
  private offered(): OfferedProvider[] {
    return this.connections
      .offered()
      .map(({ family, provider }) => ({ family, name: provider.name, description: provider.description }));
  }

  /** The accounts connected by OAuth here ("Connect Google"): those the operator or owner configured. */
  private accounts(): ConnectableAccount[] {
    return this.oauth.clients().map((c) => ({ name: c.name, title: c.definition.title }));
  }
}
