import { OperatorError, type Deployment, type RateLimitResource } from '@assistant/contracts';
import type { DatabaseConfig } from '@assistant/storage';
import { queryConfigFrom, type QueryConfig } from './query-config';
import type { DeploymentSettings } from './settings';
import type { LogLevel } from './setting-kinds';
import type { McpLimits } from './mcp-limits';

export type RateLimitConfig = Record<RateLimitResource, { limit: number; windowSeconds: number }>;

/** Everything an HTTP server of either deployment needs, validated before it is built. */
export interface ServerConfig {
  deployment: Deployment;
  host: string;
  port: number;
  database: DatabaseConfig;
  rateLimits: RateLimitConfig;
  logLevel: LogLevel;
  /** Behind a reverse proxy, trust its X-Forwarded-For for the client address. */
  trustProxy: boolean;
  /** Where users and third-party apps reach this server (`ASSISTANT_PUBLIC_URL`); the listening address otherwise. */
  publicUrl?: string;
  queries: QueryConfig;
  /** What tools may reach on the server's own network besides public addresses (`ASSISTANT_ALLOW_PRIVATE_HOSTS`). */
  allowPrivateHosts: readonly string[];
  /** Folders of this machine that accounts may connect as files (`ASSISTANT_LOCAL_FOLDERS`). */
  localFolders: readonly string[];
  /** Encrypts connection secrets; a self-hosted server without one keeps a generated key in its data directory. */
  secretsKey?: Buffer;
  /** The self-hosted server's data directory (absent on the hosted API): tool families keep default folders there. */
  dataDir?: string;
  /**
   * The self-hosted server's folder of custom tool modules (`ASSISTANT_TOOLS_DIR`, `<data-dir>/tools` by default);
   * absent on the hosted API, which runs no code of its users.
   */
  customToolsDir?: string;
  /**
   * How long a verified token is trusted without asking the database. One self-hosted process sees every
   * revocation itself; the hosted service runs several processes and keeps this at 0 for now.
   */
  tokenCacheTtlMs: number;
  /** Where Prometheus metrics are served (`ASSISTANT_METRICS_PORT`); none when absent. */
  metricsPort?: number;
  /** How long a stopping server lets running queries finish before it interrupts them. */
  shutdownGraceMs: number;
  /** How the service sends its own mail (password links): the hosted API's SMTP settings; none when absent. */
  mail?: MailConfig;
  /** MCP's limits where they differ from MCP_LIMITS (config/mcp-limits.ts); tests make them small. */
  mcp?: Partial<McpLimits>;
  /**
   * This server's registrations at Google and Microsoft (`ASSISTANT_GOOGLE_CLIENT_ID`…): each one configured
   * offers "Connect Google" / "Connect Microsoft" on /profile.
   */
  oauthClients?: Partial<Record<OAuthClientName, OAuthClientConfig>>;
}

export type OAuthClientName = 'google' | 'microsoft';

export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
  /**
   * Tests only (`ASSISTANT_OAUTH_TEST_OVERRIDES`): the provider fixture's endpoints instead of Google's or
   * Microsoft's, and settings of the protocols' connections (`email/imap-oauth`: the fixture's IMAP port) over the
   * declared ones.
   */
  endpoints?: { authorizationEndpoint: string; tokenEndpoint: string; revocationEndpoint?: string };
  protocolSettings?: Record<string, Record<string, unknown>>;
}

export interface MailConfig {
  /** `smtp://` or `smtps://`, with its user and password when the server wants them. */
  smtpUrl: string;
  from: string;
}

/** The mail settings of a deployment that has them (HOSTED_SETTINGS); a URL without a sender is an error. */
interface MailSettings {
  ASSISTANT_SMTP_URL?: string | undefined;
  ASSISTANT_MAIL_FROM?: string | undefined;
}

/** The clients whose id and secret are both set; one without the other is an operator's mistake, said so. */
function oauthClientsConfig(settings: DeploymentSettings): NonNullable<ServerConfig['oauthClients']> {
  const clients: NonNullable<ServerConfig['oauthClients']> = {};
  const pairs = [
    ['google', 'GOOGLE', settings.ASSISTANT_GOOGLE_CLIENT_ID, settings.ASSISTANT_GOOGLE_CLIENT_SECRET],
    [
      'microsoft',
      'MICROSOFT',
      settings.ASSISTANT_MICROSOFT_CLIENT_ID,
      settings.ASSISTANT_MICROSOFT_CLIENT_SECRET,
    ],
  ] as const;
  for (const [name, upper, clientId, clientSecret] of pairs) {
    if (!clientId && !clientSecret) continue;
    if (!clientId || !clientSecret) {
      throw new OperatorError(
        `set both ASSISTANT_${upper}_CLIENT_ID and ASSISTANT_${upper}_CLIENT_SECRET, or neither`,
      );
    }
    clients[name] = { clientId, clientSecret, ...settings.ASSISTANT_OAUTH_TEST_OVERRIDES?.[name] };
  }
  return clients;
}

function mailConfig(settings: MailSettings): MailConfig | undefined {
  if (!settings.ASSISTANT_SMTP_URL) return undefined;
  if (!settings.ASSISTANT_MAIL_FROM) {
    throw new OperatorError(
      'ASSISTANT_SMTP_URL is set but ASSISTANT_MAIL_FROM is not: say who the mail is from',
    );
  }
  return { smtpUrl: settings.ASSISTANT_SMTP_URL, from: settings.ASSISTANT_MAIL_FROM };
}

/** The part of a ServerConfig that both deployments read from their settings the same way. */
export function deploymentConfig(
  settings: DeploymentSettings & MailSettings,
): Pick<
  ServerConfig,
  | 'host'
  | 'port'
  | 'rateLimits'
  | 'logLevel'
  | 'trustProxy'
  | 'publicUrl'
  | 'queries'
  | 'allowPrivateHosts'
  | 'localFolders'
  | 'metricsPort'
  | 'shutdownGraceMs'
  | 'mail'
  | 'oauthClients'
> {
  const windowSeconds = settings.ASSISTANT_RATE_LIMIT_WINDOW_SECONDS;
  return {
    host: settings.ASSISTANT_HOST,
    port: settings.ASSISTANT_PORT,
    rateLimits: {
      core: { limit: settings.ASSISTANT_RATE_LIMIT_CORE, windowSeconds },
      queries: { limit: settings.ASSISTANT_RATE_LIMIT_QUERIES, windowSeconds },
      auth: { limit: settings.ASSISTANT_RATE_LIMIT_AUTH, windowSeconds },
    },
    logLevel: settings.ASSISTANT_LOG_LEVEL,
    trustProxy: settings.ASSISTANT_TRUST_PROXY,
    publicUrl: settings.ASSISTANT_PUBLIC_URL,
    allowPrivateHosts: settings.ASSISTANT_ALLOW_PRIVATE_HOSTS,
    localFolders: settings.ASSISTANT_LOCAL_FOLDERS,
    queries: queryConfigFrom(settings),
    metricsPort: settings.ASSISTANT_METRICS_PORT,
    shutdownGraceMs: settings.ASSISTANT_SHUTDOWN_GRACE_SECONDS * 1000,
    mail: mailConfig(settings),
    oauthClients: oauthClientsConfig(settings),
  };
}
