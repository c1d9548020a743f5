import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { z } from 'zod';
import type { Connection, CreateConnection, FieldError, UpdateConnection } from '@assistant/contracts';
import {
  ConnectionTestError,
  joinAnd,
  loginChanges,
  type ProviderDefinition,
  type ToolFamily,
} from '@assistant/tool-kit';
import {
  connectionNameTaken,
  type ConnectionsRepository,
  type UsersRepository,
  type StoredConnection,
} from '@assistant/storage';
import { SERVER_CONFIG, InjectRepository, type ServerConfig, ApiError } from '@assistant/server-kit';
import { TOOL_FAMILIES, ToolCatalog } from './tool-catalog';
import { presentConnection, presentDefaultConnection } from './connection.presenter';
import { SecretBox } from './secret-box';
import { OAuthConnections } from './oauth-connections.service';

/** How a refusal's detail starts, before the remote server's reason (kept alone as a connection's last error). */
const REFUSED = 'the connection was tried and refused: ';

/** How long a connection is tried before it is saved: a server that does not answer by then is refused. */
const TEST_TIMEOUT_MS = 15_000;

/**
 * The connections of an account (SPEC §3): each is checked against its provider's schemas and tried before it
 * is saved; its secrets are sealed and never returned. A change tells the catalogue, whose pooled driver of
 * the old version is then left to close.
 */
@Injectable()
export class ConnectionsService {
  constructor(
    @InjectRepository('connections') private readonly connections: ConnectionsRepository,
    @InjectRepository('users') private readonly users: UsersRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(TOOL_FAMILIES) private readonly families: readonly ToolFamily[],
    private readonly box: SecretBox,
    private readonly catalog: ToolCatalog,
    @Optional() private readonly oauth?: OAuthConnections,
  ) {}

  /**
   * The account's own connections in the order they were added, then the ones built into this server; each says
   * whether it is its family's default (a built-in one is while the account has none of the family of its own).
   */
  async list(userId: string): Promise<{ data: Connection[] }> {
    const [own, account] = await Promise.all([this.connections.list(userId), this.users.findById(userId)]);
    const builtIn = this.catalog
      .defaultConnections(userId)
      .map((c) =>
        presentDefaultConnection(
          c,
          account?.createdAt ?? new Date(),
          !own.some((mine) => mine.family === c.family),
        ),
      );
    return { data: [...own.map(presentConnection), ...builtIn] };
  }

  /** One of the account's own connections (another account's is not found). */
  async get(userId: string, id: string): Promise<Connection> {
    return presentConnection(await this.find(userId, id));
  }

  /** Every provider a connection can be added with on this server, family by family. */
  offered(): Array<{ family: string; provider: ProviderDefinition }> {
    return this.families.flatMap((family) =>
      this.providers(family.name).map((provider) => ({ family: family.name, provider })),
    );
  }

  /** The providers of a family this server offers (on its deployment); none for an unknown family. */
  providers(familyName: string): ProviderDefinition[] {
    const family = this.families.find((f) => f.name === familyName);
    return (family?.providers ?? []).filter(
      (p) => !p.deployments || p.deployments.includes(this.config.deployment),
    );
  }

  /**
   * Tries settings and secrets as `create` would, without saving anything: the form's "Test" button. A refusal
   * is 422 connection_failed with the remote reason, a bad field 422 validation_failed.
   */
  async test(
    userId: string,
    body: Pick<CreateConnection, 'family' | 'provider' | 'settings' | 'secrets'>,
  ): Promise<void> {
    const provider = this.providerOf(body.family, body.provider);
    const settings = parse(provider.settings, body.settings, 'settings');
    const secrets = parse(provider.secrets, body.secrets, 'secrets');
    await this.tryConnection(userId, provider, settings, secrets);
  }

  /**
   * Tries a connection of the account with a change of its settings or secrets, saving nothing (the edit form's
   * "Test"); a change of where or as whom it logs in needs its secrets, as `update` does. Tried as stored (no
   * change), the outcome is recorded as its status and last error, and a failing connection's tools leave the
   * account until it works again.
   */
  async testExisting(
    userId: string,
    id: string,
    body: Pick<UpdateConnection, 'settings' | 'secrets'>,
  ): Promise<void> {
    this.refuseDefault(userId, id);
    const stored = await this.find(userId, id);
    const provider = this.providerOf(stored.family, stored.provider);
    const settings = parse(provider.settings, body.settings ?? stored.settings, 'settings');
    const secrets = parse(
      provider.secrets,
      body.secrets ?? this.keptSecrets(userId, stored, provider, settings),
      'secrets',
    );
    const asStored =
      body.secrets === undefined &&
      isDeepStrictEqual(settings, provider.settings.safeParse(stored.settings).data ?? stored.settings);
    try {
      await this.tryConnection(userId, provider, settings, secrets);
      if (asStored) await this.record(userId, stored, null);
    } catch (error) {
      if (asStored && error instanceof ApiError && error.code === 'connection_failed')
        await this.record(userId, stored, error.detail.replace(REFUSED, ''));
      throw error;
    }
  }

  /** Keeps how the last try of a stored connection went; the catalogue hears of a change of status. */
  private async record(userId: string, stored: StoredConnection, lastError: string | null): Promise<void> {
    const status = lastError === null ? ('ok' as const) : ('error' as const);
    if (stored.status === status && stored.lastError === lastError) return;
    await this.connections.update(userId, stored.id, { status, lastError });
    this.catalog.notifyChanged(userId);
  }

  async create(userId: string, body: CreateConnection): Promise<Connection> {
    const provider = this.providerOf(body.family, body.provider);
    const settings = parse(provider.settings, body.settings, 'settings');
    const secrets = parse(provider.secrets, body.secrets, 'secrets');
    const name = body.name ?? (await this.freeName(userId, body.family, provider.name));
    await this.refuseTakenName(userId, body.family, name);
    await this.tryConnection(userId, provider, settings, secrets);
    const created = await this.connections.create(userId, {
      family: body.family,
      provider: body.provider,
      name,
      ...(body.default ? { isDefault: true } : {}),
      settings,
      sealedSecrets: this.box.seal(secrets, userId),
      status: 'ok',
      lastError: null,
    });
    this.catalog.notifyChanged(userId);
    return presentConnection(created);
  }

  async update(userId: string, id: string, body: UpdateConnection): Promise<Connection> {
    this.refuseDefault(userId, id);
    const stored = await this.find(userId, id);
    if (madeByOAuth(stored)) return this.renameOrMakeDefault(userId, stored, body);
    const provider = this.providerOf(stored.family, stored.provider);
    if (body.name !== undefined) await this.refuseTakenName(userId, stored.family, body.name, id);
    const reconnect = body.settings !== undefined || body.secrets !== undefined;
    const settings = parse(provider.settings, body.settings ?? stored.settings, 'settings');
    const secrets = parse(
      provider.secrets,
      body.secrets ?? this.keptSecrets(userId, stored, provider, settings),
      'secrets',
    );
    if (reconnect) await this.tryConnection(userId, provider, settings, secrets);
    const updated = await this.connections.update(userId, id, {
      name: body.name,
      ...(reconnect
        ? { settings, sealedSecrets: this.box.seal(secrets, userId), status: 'ok' as const, lastError: null }
        : {}),
    });
    if (!updated) throw ApiError.notFound('connection');
    if (body.default && !updated.isDefault) await this.connections.makeDefault(userId, id);
    this.catalog.notifyChanged(userId);
    return body.default ? presentConnection(await this.find(userId, id)) : presentConnection(updated);
  }

  /**
   * A connection made by "Connect Google" / "Connect Microsoft" is renamed or made the default like any other;
   * where it logs in comes from the provider's consent, so its settings change only by connecting it again.
   */
  private async renameOrMakeDefault(
    userId: string,
    stored: StoredConnection,
    body: UpdateConnection,
  ): Promise<Connection> {
    if (body.settings !== undefined || body.secrets !== undefined) {
      throw ApiError.validation([
        {
          field: body.settings !== undefined ? 'settings' : 'secrets',
          message:
            'this connection was made by connecting an account on /profile: connect it again there to change it',
        },
      ]);
    }
    if (body.name !== undefined) await this.refuseTakenName(userId, stored.family, body.name, stored.id);
    const updated = await this.connections.update(userId, stored.id, { name: body.name });
    if (!updated) throw ApiError.notFound('connection');
    if (body.default && !updated.isDefault) await this.connections.makeDefault(userId, stored.id);
    this.catalog.notifyChanged(userId);
    return presentConnection(await this.find(userId, stored.id));
  }

  /** `provider`, or `provider 2`, `provider 3`…: the first name the account's family does not have yet. */
  private async freeName(userId: string, family: string, base: string): Promise<string> {
    const taken = await this.namesIn(userId, family);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base} ${n}`;
      if (!taken.has(name.toLowerCase())) return name;
    }
  }

  /** A name is unique in the account's family whatever its case: a tool call names its connection by it. */
  private async refuseTakenName(
    userId: string,
    family: string,
    name: string,
    except?: string,
  ): Promise<void> {
    const taken = await this.namesIn(userId, family, except);
    if (taken.has(name.trim().toLowerCase())) throw connectionNameTaken(name.trim(), family);
  }

  private async namesIn(userId: string, family: string, except?: string): Promise<Set<string>> {
    const own = await this.connections.list(userId);
    return new Set(
      own.filter((c) => c.family === family && c.id !== except).map((c) => c.name.toLowerCase()),
    );
  }

  async delete(userId: string, id: string): Promise<void> {
    this.refuseDefault(userId, id);
    const stored = await this.connections.get(userId, id);
    if (!stored || !(await this.connections.delete(userId, id))) throw ApiError.notFound('connection');
    this.catalog.notifyChanged(userId);
    // One made by OAuth, the last of its grant: the grant is revoked at Google.
    await this.oauth?.removed(userId, stored);
  }

  /** A default connection is part of the server: adding one of the account's own is how it is replaced. */
  private refuseDefault(userId: string, id: string): void {
    const fallback = this.catalog.defaultConnections(userId).find((c) => c.id === id);
    if (fallback) {
      throw new ApiError(
        'conflict',
        `${fallback.name} (${id}) is built into this server and cannot be changed or removed; add a ${fallback.family} connection of your own to use instead`,
      );
    }
  }

  /**
   * The stored secrets, for a change that keeps them (secrets given anew replace them unread); refused when the
   * change moves where or as whom the connection logs in (`refuseLoginChange`).
   */
  private keptSecrets(
    userId: string,
    stored: StoredConnection,
    provider: ProviderDefinition,
    settings: Record<string, unknown>,
  ): Record<string, unknown> {
    const kept = this.box.open(stored.sealedSecrets, userId);
    refuseLoginChange(provider, stored.settings, settings, kept);
    return kept;
  }

  private async find(userId: string, id: string): Promise<StoredConnection> {
    const stored = await this.connections.get(userId, id);
    if (!stored) throw ApiError.notFound('connection');
    return stored;
  }

  private providerOf(familyName: string, providerName: string): ProviderDefinition {
    const offered = this.providers(familyName);
    if (offered.length === 0) {
      throw ApiError.validation([
        { field: 'family', message: `this server has no connections for ${familyName}` },
      ]);
    }
    const provider = offered.find((p) => p.name === providerName);
    if (!provider) {
      const names = offered.map((p) => p.name).join(', ');
      throw ApiError.validation([
        { field: 'provider', message: `${familyName} connections here are one of: ${names}` },
      ]);
    }
    return provider;
  }

  /** Opens the provider's driver and tries it; a refusal or a silence is 422 with the remote server's reason. */
  private async tryConnection(
    userId: string,
    provider: ProviderDefinition,
    settings: Record<string, unknown>,
    secrets: Record<string, unknown>,
  ): Promise<void> {
    const deadline = AbortSignal.timeout(TEST_TIMEOUT_MS);
    let driver: unknown;
    try {
      const attempt = (async () => {
        driver = await provider.open({ settings, secrets }, this.catalog.environment(userId));
        await provider.test(driver, deadline);
      })();
      await Promise.race([
        attempt,
        new Promise((_, reject) =>
          deadline.addEventListener('abort', () =>
            reject(new ConnectionTestError(`no answer within ${TEST_TIMEOUT_MS / 1000} s`)),
          ),
        ),
      ]);
    } catch (error) {
      const reason =
        error instanceof ConnectionTestError
          ? error.message
          : `it could not be made (${(error as Error).message})`;
      throw new ApiError('connection_failed', `${REFUSED}${reason}`);
    } finally {
      await (driver as { close?: () => Promise<void> } | undefined)?.close?.().catch(() => undefined);
    }
  }
}

/** Made by "Connect Google" / "Connect Microsoft" (OAuthConnections), not by a form or `POST /connections`. */
function madeByOAuth(stored: StoredConnection): boolean {
  return typeof stored.settings.oauth_client === 'string';
}

/**
 * Refuses a change of where or as whom a connection logs in (every setting its provider does not mark
 * `loginNeutral`) made without its secrets: otherwise whoever may change connections — a narrow token, an app's —
 * could point one at a server of its own and have this server try it with the password the user stored (B3).
 * A connection without stored secrets has nothing to give away.
 */
function refuseLoginChange(
  provider: ProviderDefinition,
  storedSettings: Record<string, unknown>,
  settings: Record<string, unknown>,
  storedSecrets: Record<string, unknown>,
): void {
  if (!Object.values(storedSecrets).some((value) => value !== undefined && value !== '')) return;
  const before = provider.settings.safeParse(storedSettings);
  const changed = loginChanges(provider.settings, before.success ? before.data : storedSettings, settings);
  if (changed.length === 0) return;
  throw ApiError.validation([
    {
      field: 'secrets',
      message: `changing ${joinAnd(changed)} changes where or as whom the connection logs in: send its secrets again with the change`,
    },
  ]);
}

/** Checks a value against a provider's schema; its problems are field errors under `settings.` or `secrets.`. */
function parse(schema: z.ZodObject, value: unknown, field: 'settings' | 'secrets'): Record<string, unknown> {
  const result = schema.safeParse(value);
  if (result.success) return result.data as Record<string, unknown>;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    field: [field, ...issue.path].join('.'),
    // Never echo a secret's value back: only what is wrong with it.
    message: issue.message,
  }));
  throw ApiError.validation(errors);
}
