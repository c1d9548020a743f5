import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, type Connection } from '@assistant/contracts';
import { connectionFields, readConnectionForm, type ProviderDefinition } from '@assistant/tool-kit';
import { ConnectionsService } from '../connections.service';
import {
  formText,
  html,
  renderPage,
  notFoundPage,
  PAGE_PATHS,
  paramOf,
  type PageRoute,
  signedInPage,
  type SignedInAccount,
  WebSessions,
  pathWithId,
  SitePages,
  type PageProvider,
} from '@assistant/server-kit';
import { connectionForm, fieldInputName, type FormOutcome } from './connection-form';
import { createConnectionPath } from './connections-section';

/** What a posted connection form says, in the shapes the API takes. */
interface PostedConnection {
  name: string | undefined;
  settings: Record<string, unknown>;
  /** Undefined when every secret field was left empty (an edit keeps the stored ones). */
  secrets: Record<string, unknown> | undefined;
  intent: 'test' | 'save';
}

/**
 * The connection forms of /profile: add one of any provider this server offers, edit one (its secrets are needed
 * again when where or as whom it logs in changes, as on the API), Test before saving (the remote server's reason
 * shown in the form), make one its family's default. Everything goes through the ConnectionsService, so the
 * form is checked by the same provider schemas, refused for the same private addresses on the hosted service and
 * scoped to the signed-in account as the API is: another account's connection is a not-found page.
 */
@Injectable()
@SitePages()
export class ConnectionPages implements PageProvider {
  constructor(
    private readonly sessions: WebSessions,
    private readonly connections: ConnectionsService,
  ) {}

  private readonly account: SignedInAccount = (request) => this.sessions.userIdFor(request);

  routes(): PageRoute[] {
    return [
      signedInPage(this.account, 'GET', PAGE_PATHS.newConnection, (q, r, u) => this.showNew(q, r, u)),
      signedInPage(this.account, 'POST', PAGE_PATHS.createConnection, (q, r, u) => this.create(q, r, u)),
      signedInPage(this.account, 'GET', PAGE_PATHS.editConnection, (q, r, u) => this.showEdit(q, r, u)),
      signedInPage(this.account, 'POST', PAGE_PATHS.editConnection, (q, r, u) => this.update(q, r, u)),
      signedInPage(this.account, 'POST', PAGE_PATHS.removeConnection, async (q, r, u) => {
        // Not found and built-in connections are ApiErrors, which servePages turns into pages.
        await this.connections.delete(u, paramOf(q, 'id'));
        return r.redirect(`${PAGE_PATHS.profile}#connections`, 303);
      }),
      signedInPage(this.account, 'POST', PAGE_PATHS.defaultConnection, async (q, r, u) => {
        await this.connections.update(u, paramOf(q, 'id'), { default: true });
        return r.redirect(`${PAGE_PATHS.profile}#connections`, 303);
      }),
    ];
  }

  private providerFromQuery(
    request: FastifyRequest,
  ): { family: string; provider: ProviderDefinition } | null {
    const query = request.query as Record<string, unknown>;
    const family = typeof query.family === 'string' ? query.family : '';
    const name = typeof query.provider === 'string' ? query.provider : '';
    const provider = this.connections.providers(family).find((p) => p.name === name);
    return provider ? { family, provider } : null;
  }

  private async showNew(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const chosen = this.providerFromQuery(request);
    if (!chosen) return notFoundPage(reply, 'kind of connection');
    return this.renderForm(request, reply, {
      userId,
      ...chosen,
      action: createConnectionPath(chosen.family, chosen.provider.name),
      values: {},
      name: '',
      editing: null,
      outcome: { kind: 'none' },
    });
  }

  private async create(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const chosen = this.providerFromQuery(request);
    if (!chosen) return notFoundPage(reply, 'kind of connection');
    const posted = readPosted(request, chosen.provider);
    const body = {
      family: chosen.family as Connection['family'],
      provider: chosen.provider.name,
      settings: posted.settings,
      secrets: posted.secrets ?? {},
    };
    const outcome = await outcomeOf(posted.intent, async () => {
      if (posted.intent === 'test') await this.connections.test(userId, body);
      else await this.connections.create(userId, { ...body, ...(posted.name ? { name: posted.name } : {}) });
    });
    if (outcome.kind === 'none') return reply.redirect(`${PAGE_PATHS.profile}#connections`, 303);
    return this.renderForm(request, reply, {
      userId,
      ...chosen,
      action: createConnectionPath(chosen.family, chosen.provider.name),
      values: posted.settings,
      name: posted.name ?? '',
      editing: null,
      outcome,
    });
  }

  private async showEdit(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const connection = await this.connections.get(userId, paramOf(request, 'id'));
    const provider = this.providerOf(connection);
    if (!provider) return notFoundPage(reply, 'kind of connection');
    return this.renderForm(request, reply, {
      userId,
      family: connection.family,
      provider,
      action: pathWithId(PAGE_PATHS.editConnection, connection.id),
      values: connection.settings,
      name: connection.name,
      editing: connection,
      outcome: { kind: 'none' },
    });
  }

  private async update(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const connection = await this.connections.get(userId, paramOf(request, 'id'));
    const provider = this.providerOf(connection);
    if (!provider) return notFoundPage(reply, 'kind of connection');
    const posted = readPosted(request, provider);
    // Settings as stored are no change: a rename alone is not tried again, nor a Test of the connection as it is.
    const stored = provider.settings.safeParse(connection.settings).data ?? connection.settings;
    const parsed = provider.settings.safeParse(posted.settings);
    const changed = !(parsed.success && isDeepStrictEqual(parsed.data, stored));
    const change = {
      ...(changed ? { settings: posted.settings } : {}),
      ...(posted.secrets ? { secrets: posted.secrets } : {}),
    };
    const outcome = await outcomeOf(posted.intent, async () => {
      if (posted.intent === 'test') await this.connections.testExisting(userId, connection.id, change);
      else
        await this.connections.update(userId, connection.id, {
          ...change,
          name: posted.name ?? connection.name,
        });
    });
    if (outcome.kind === 'none') return reply.redirect(`${PAGE_PATHS.profile}#connections`, 303);
    return this.renderForm(request, reply, {
      userId,
      family: connection.family,
      provider,
      action: pathWithId(PAGE_PATHS.editConnection, connection.id),
      values: posted.settings,
      name: posted.name ?? '',
      editing: connection,
      outcome,
    });
  }

  private providerOf(connection: Connection): ProviderDefinition | undefined {
    return this.connections.providers(connection.family).find((p) => p.name === connection.provider);
  }

  private async renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    view: {
      userId: string;
      family: string;
      provider: ProviderDefinition;
      action: string;
      values: Record<string, unknown>;
      name: string;
      editing: Connection | null;
      outcome: FormOutcome;
    },
  ): Promise<unknown> {
    const csrf = await this.sessions.csrfFor(request);
    const title = view.editing ? `Edit ${view.editing.name}` : `Add: ${view.provider.description}`;
    const status = view.editing
      ? html`<p>
          Status:
          ${
            view.editing.status === 'ok'
              ? 'working'
              : html`<span class="error">failing</span
                  >${view.editing.last_error && html`: ${view.editing.last_error}`}`
          }${view.editing.default && html`. The default ${view.family} connection`}.
        </p>`
      : null;
    return renderPage(reply, {
      status: STATUS_OF[view.outcome.kind],
      title,
      body: html`<h1>${title}</h1>
        ${status}
        ${connectionForm({
          action: view.action,
          csrf,
          family: view.family,
          provider: view.provider,
          fields: connectionFields(view.provider),
          values: view.values,
          name: view.name,
          editing: view.editing !== null,
          outcome: view.outcome,
        })}
        <p><a href="${PAGE_PATHS.profile}#connections">Back to your profile</a></p>`,
    });
  }
}

const STATUS_OF: Record<FormOutcome['kind'], number> = { none: 200, tested: 200, refused: 422, invalid: 422 };

/** The form's fields in the provider's shapes; secrets only when one was typed. */
function readPosted(request: FastifyRequest, provider: ProviderDefinition): PostedConnection {
  const fields = connectionFields(provider);
  const values = Object.fromEntries(fields.map((f) => [f.name, formText(request, fieldInputName(f))]));
  const { settings, secrets } = readConnectionForm(fields, values);
  const typed = fields.some((f) => f.secret && values[f.name] !== '');
  const name = formText(request, 'name').trim();
  return {
    name: name === '' ? undefined : name,
    settings,
    secrets: typed ? secrets : undefined,
    intent: formText(request, 'intent') === 'test' ? 'test' : 'save',
  };
}

/**
 * How a press of Test or Save went: `none` when the action was done (a Save is then followed by a redirect),
 * `tested` for a Test that worked, else what the service refused. Anything else is a bug, for the error page.
 */
async function outcomeOf(
  intent: PostedConnection['intent'],
  action: () => Promise<void>,
): Promise<FormOutcome> {
  try {
    await action();
    return { kind: intent === 'test' ? 'tested' : 'none' };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    if (error.code === 'connection_failed') {
      return { kind: 'refused', reason: error.detail.replace(/^the connection was tried and refused: /, '') };
    }
    if (error.code === 'validation_failed' || error.code === 'conflict') {
      return { kind: 'invalid', errors: error.fieldErrors ?? [], detail: error.detail };
    }
    throw error;
  }
}
