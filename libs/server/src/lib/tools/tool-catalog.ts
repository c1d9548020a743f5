import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { z } from 'zod';
import type { Scope, ToolInfo } from '@assistant/contracts';
import {
  allowedTools,
  chooseConnection,
  connectTool,
  servesTool,
  takeConnectionArgument,
  withConnectionArgument,
  withheldTools,
  type ConnectedTool,
  type DriverEnvironment,
  type ProviderDefinition,
  type ToolFamily,
} from '@assistant/tool-kit';
import type { MemoryDriver } from '@assistant/tools-memory';
import type { MemoriesRepository } from '@assistant/storage';
import {
  SERVER_CONFIG,
  InjectRepository,
  type ServerConfig,
  ApiError,
  CLUSTER_BUS,
  type ClusterBus,
  type RunTools,
  type ToolCatalogue,
} from '@assistant/server-kit';
import { CONNECTION_SOURCE, type ActiveConnection, type ConnectionSource } from './connection-source';
import { DriverPool } from './driver-pool';
import { AccountToolsCache } from './account-tools-cache';
import { OAuthConnections } from './oauth-connections.service';
import { OAUTH_PROVIDERS } from './oauth-clients';

/** Nest's handle on the tool families this server offers (`ServerParts.families`, the product's by default). */
export const TOOL_FAMILIES = Symbol('TOOL_FAMILIES');

/** How long an opened driver (an IMAP session) is kept for the next question; an account's built tools too. */
const DRIVER_IDLE_MS = 60_000;
/** How many accounts' built tools are kept at most (the most recently built). */
const KEPT_ACCOUNTS = 1_000;

/** An account's tools, connected, and the connections they go through (each with the tools it serves). */
interface AccountTools {
  tools: ConnectedTool[];
  connections: Array<{ name: string; family: string; serves: ReadonlySet<string> }>;
}

/**
 * The one place that knows which tools an account has: the families' tools, connected to the account's active
 * connections (the memory family to this server's storage; a self-hosted server's custom tools need none),
 * filtered by the caller's scopes and the query's own `tools` list, in a stable order. Queries, `GET /tools`
 * and MCP use it. Emits a change event per account when its connections change, and for every account
 * when a family's tools change (the custom tools folder): MCP's `notifications/tools/list_changed`.
 */
@Injectable()
export class ToolCatalog implements ToolCatalogue, OnApplicationShutdown {
  private readonly logger = new Logger('ToolCatalog');
  private readonly pool = new DriverPool(DRIVER_IDLE_MS);
  /** Each account's tools as `accountTools` built them, until they change. */
  private readonly built = new AccountToolsCache<AccountTools>(DRIVER_IDLE_MS, KEPT_ACCOUNTS);
  private readonly changes = new EventEmitter();
  private readonly shutdown = new AbortController();
  /** The drivers of the families this server serves itself (no provider): memory over its storage. */
  private readonly ownDrivers: Partial<Record<string, unknown>>;
  private readonly unwatch: Array<() => void>;

  constructor(
    @Inject(TOOL_FAMILIES) readonly families: readonly ToolFamily[],
    @Inject(CONNECTION_SOURCE) private readonly connections: ConnectionSource,
    @InjectRepository('memories') memories: MemoriesRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Optional() @Inject(CLUSTER_BUS) private readonly bus?: ClusterBus,
    @Optional() private readonly oauth?: OAuthConnections,
  ) {
    this.ownDrivers = { memory: memoryDriverOver(memories) };
    // One listener per connected MCP client and account: many are expected.
    this.changes.setMaxListeners(0);
    this.unwatch = families.flatMap((family) => family.onToolsChanged?.(() => this.notifyAllChanged()) ?? []);
    if (bus) {
      this.unwatch.push(
        // A connection changed on another instance: this instance's MCP sessions of the account hear it too.
        bus.subscribe('tools.changed', ({ userId }) => this.changed(userId)),
        // Changes made elsewhere while the bus was away were missed: every account's tools are built again.
        bus.onReconnect(() => this.built.forgetAll()),
      );
    }
  }

  /** The tools a query of this principal may use; `only` is the query's `tools` list (unknown names are a 422). */
  async forRun(
    principal: { userId: string; scopes: readonly Scope[] },
    only?: readonly string[],
  ): Promise<RunTools> {
    if (only) this.assertKnown(only);
    const account = await this.builtTools(principal.userId);
    const tools = allowedTools(account.tools, principal.scopes, only);
    const names = new Set(tools.map((tool) => tool.name));
    return {
      tools,
      withheld: withheldTools(account.tools, principal.scopes, only),
      connections: account.connections
        .filter((connection) => [...connection.serves].some((tool) => names.has(tool)))
        .map(({ name, family }) => ({ name, family })),
    };
  }

  /** The whole catalogue, with `active` for the tools this account has (`GET /tools`). */
  async list(userId: string): Promise<ToolInfo[]> {
    // Connecting nothing: drivers open only when a tool is called.
    const active = new Map((await this.builtTools(userId)).tools.map((tool) => [tool.name, tool]));
    return this.families
      .flatMap((family) =>
        family.tools.map((tool) => ({
          name: tool.name,
          family: family.name,
          description: tool.description,
          // An active tool's schema names the account's connections that can serve it; an inactive one of a
          // family with connections still takes the argument.
          input_schema: z.toJSONSchema(
            (
              active.get(tool.name) ??
              (family.providers.length > 0 ? withConnectionArgument(tool, family.name) : tool)
            ).input,
            { io: 'input' },
          ) as Record<string, unknown>,
          scope: tool.scope,
          side_effects: tool.side_effects,
          active: active.has(tool.name),
        })),
      )
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Calls `listener` whenever the account's tools may have changed; returns the unsubscribe function. */
  onChange(userId: string, listener: () => void): () => void {
    this.changes.on(userId, listener);
    return () => this.changes.off(userId, listener);
  }

  /** Called by the connections resource after it adds, changes or removes one of the account's connections. */
  notifyChanged(userId: string): void {
    this.changed(userId);
    void this.bus?.publish('tools.changed', { userId });
  }

  private changed(userId: string): void {
    this.built.forget(userId);
    this.changes.emit(userId);
  }

  /** Every account's tools changed (a family's own, such as the custom tools of this server). */
  private notifyAllChanged(): void {
    this.built.forgetAll();
    for (const userId of this.changes.eventNames()) this.changes.emit(userId);
  }

  async onApplicationShutdown(): Promise<void> {
    this.unwatch.forEach((stop) => stop());
    this.shutdown.abort();
    await this.pool.closeAll();
  }

  /** The account's tools as last built, or built now (see `accountTools`). */
  private builtTools(userId: string): Promise<AccountTools> {
    return this.built.get(userId, () => this.accountTools(userId));
  }

  /**
   * The account's tools, each connected to its driver: the memory family always; every other tool through one of
   * the family's connections — the account's own in the order they were added, then the family's built-in ones
   * on this deployment. A call goes through the connection its `connection` argument names (the kit's, added to
   * every such tool's schema with the names that can serve it), else through the family's default when it serves
   * the tool, else through the first that does (`web_fetch` keeps the built-in fetcher when a search connection
   * is the default). Drivers open when a tool is first called (a question about memories logs in to no mail
   * server), then stay in the pool; a connection that cannot be opened fails that call, in its words.
   */
  private async accountTools(userId: string): Promise<AccountTools> {
    const connections = await this.connections.activeConnections(userId);
    const tools: ConnectedTool[] = [];
    const through: AccountTools['connections'] = [];
    for (const family of this.families) {
      if (family.providers.length === 0) {
        // A family without providers is served by this server itself, for every account: memory over its
        // storage, and a self-hosted server's custom tools.
        const driver = this.ownDrivers[family.name];
        tools.push(...family.tools.map((tool) => connectTool(tool, driver)));
        continue;
      }
      const own = connections.filter((c) => c.family === family.name);
      const candidates = [
        ...own,
        ...this.defaultConnections(userId)
          .filter((c) => c.family === family.name)
          .map((c) => ({ ...c, isDefault: own.length === 0 })),
      ];
      const served = new Map(candidates.map((c) => [c, new Set<string>()]));
      for (const tool of family.tools) {
        const serves = (c: ActiveConnection) =>
          servesTool(c.provider, tool) && providersOf(family).some((p) => p.name === c.provider);
        const able = candidates.filter(serves);
        if (able.length === 0) continue;
        for (const c of able) served.get(c)?.add(tool.name);
        const offered = withConnectionArgument(tool, family.name, able);
        tools.push({
          ...offered,
          driver: undefined,
          handler: async (input, context) => {
            const { named, rest } = takeConnectionArgument(input as Record<string, unknown>);
            const connection = chooseConnection(tool.name, family.name, named, candidates, serves);
            const provider = providersOf(family).find((p) => p.name === connection?.provider);
            if (!connection || !provider) throw new Error(`${tool.name} has no connection on this account`);
            // Opened when the tool is first called, not when the run is prepared.
            const driver = await this.open(provider, connection, userId);
            return tool.handler(rest as never, { ...context, driver });
          },
        });
      }
      for (const [c, serves] of served) {
        if (serves.size > 0) through.push({ name: c.name, family: family.name, serves });
      }
    }
    return { tools, connections: through };
  }

  /**
   * The connections every account has on this deployment without adding one (the web fetcher; a self-hosted
   * account's own folder), with their ids as `GET /connections` lists them.
   */
  defaultConnections(userId: string): ActiveConnection[] {
    const env = this.environment(userId);
    return this.families.flatMap((family) =>
      (family.defaults ?? [])
        .filter((fallback) => fallback.deployments.includes(this.config.deployment))
        .map((fallback) => ({
          id: defaultConnectionId(family.name, fallback.provider),
          family: family.name,
          provider: fallback.provider,
          name: fallback.name,
          // Whether it is its family's default depends on the account's own connections (see accountTools).
          isDefault: false,
          settings: fallback.settings(env, userId),
          secrets: {},
          // Pooled per account: the id alone is the same for every account.
          poolKey: `${userId}:${defaultConnectionId(family.name, fallback.provider)}`,
          updatedAt: new Date(0),
        })),
    );
  }

  /** The pooled driver of a connection, opened on first use (a failure is not kept: the next call tries again). */
  private open(provider: ProviderDefinition, connection: ActiveConnection, userId: string): Promise<unknown> {
    const key = `${connection.poolKey ?? connection.id}@${connection.updatedAt.getTime()}`;
    return this.pool.get(key, async () => {
      try {
        return await provider.open(
          {
            settings: provider.settings.parse(connection.settings),
            secrets: provider.secrets.parse(connection.secrets),
          },
          {
            ...this.environment(userId),
            ...(connection.poolKey ? {} : { connectionName: connection.name }),
            // A connection made by OAuth: its driver's access tokens (it never sees the refresh token).
            ...this.accessTokensFor(userId, connection),
          },
        );
      } catch (error) {
        // Said to the operator without the connection's secrets; the call's error says it to the user.
        this.logger.warn({
          connection_id: connection.id,
          family: connection.family,
          reason: (error as Error).message,
        });
        throw error;
      }
    });
  }

  private accessTokensFor(userId: string, connection: ActiveConnection) {
    const source = this.oauth?.tokenSource(userId, connection, () => this.notifyChanged(userId));
    return source ? { accessTokens: source } : {};
  }

  /** What a driver of this server is opened with; `userId`: the account whose connection it is. */
  environment(userId?: string): DriverEnvironment {
    return {
      deployment: this.config.deployment,
      dataDir: this.config.dataDir,
      userId,
      allowPrivateHosts: this.config.allowPrivateHosts,
      localFolders: this.config.localFolders,
      signal: this.shutdown.signal,
    };
  }

  private assertKnown(names: readonly string[]): void {
    const known = new Set(this.families.flatMap((family) => family.tools.map((tool) => tool.name)));
    const unknown = names.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw ApiError.validation(unknown.map((name) => ({ field: 'tools', message: `unknown tool ${name}` })));
    }
  }
}

/** The id of a default connection in `GET /connections`: the same for every account, which never sees another's. */
export function defaultConnectionId(family: string, provider: string): string {
  return `con_default_${family}_${provider}`;
}

/** A family's providers and those of its connections that only "Connect Google" / "Connect Microsoft" make. */
function providersOf(family: ToolFamily): readonly ProviderDefinition[] {
  return [...family.providers, ...(OAUTH_PROVIDERS[family.name] ?? [])];
}

/** The memory family's driver: this server's own storage. */
function memoryDriverOver(memories: MemoriesRepository): MemoryDriver {
  return {
    save: async (userId, { content, discussionId }) => {
      const memory = await memories.create(userId, { content, source: 'assistant', discussionId });
      return { id: memory.id, content: memory.content };
    },
    recall: async (userId, text, limit) =>
      (await memories.recall(userId, text, limit)).map((m) => ({
        id: m.id,
        content: m.content,
        created_at: m.createdAt.toISOString(),
      })),
    // Scoped to the user, as DELETE /memories/{id}: another account's id deletes nothing.
    forget: (userId, id) => memories.delete(userId, id),
  };
}
