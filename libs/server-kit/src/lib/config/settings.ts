import {
  DEFAULT_BUILTIN_PACING_MS,
  DEFAULT_CONTEXT_TOKENS,
  DEFAULT_OLLAMA_URL,
  DEFAULT_RUN_LIMITS,
} from '@assistant/agent-core';
import { HOSTED_RATE_LIMITS, type RateLimitResource } from '@assistant/contracts';
import { z } from 'zod';
import * as kind from './setting-kinds';

/**
 * Every environment variable the server reads, one zod schema per composition root: each name with its kind, its
 * default and what it does. start-up parses the environment (and the flags of `assistant serve`) through these,
 * and the README's configuration table is generated from them (config-table.ts).
 */

/** The flags of `assistant serve`; each stands for one setting and wins over its variable. */
export interface SelfHostFlags {
  host?: string | undefined;
  port?: string | number | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  model?: string | undefined;
  tools?: string | undefined;
}

export interface SettingMeta {
  /** What the setting does (Markdown, for the README's table). */
  description: string;
  /** The `assistant serve` flag that sets it too (`dataDir` is `--data-dir`). */
  flag?: keyof SelfHostFlags;
  /** The default in words, where it is not one value (it depends on the machine, or means "none"). */
  defaultText?: string;
  /** Never repeat the value in a message: an API key, a database URL with its password. */
  secret?: boolean;
}

export const settingMeta = z.registry<SettingMeta>();

function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  settingMeta.add(schema as z.ZodType, meta);
  return schema;
}

/** The `--flag` of a SelfHostFlags key. */
export function flagName(flag: keyof SelfHostFlags): string {
  return `--${flag.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

export type RateLimitDefaults = Record<RateLimitResource, { limit: number; windowSeconds: number }>;

/** What the two deployments set differently; each root's schema states its own. */
interface DeploymentDefaults {
  host: string;
  port: number;
  logLevel: kind.LogLevel;
  rateLimits: RateLimitDefaults;
  /** How long a stopping server lets its running queries finish. */
  shutdownGraceSeconds: number;
}

const seconds = (ms: number) => ms / 1000;

/**
 * The settings both deployments read, with the same kinds and meanings. Their defaults are the same too, except
 * those of `defaults`: where to listen, how much to log, the rate limits.
 */
function deploymentSettings(defaults: DeploymentDefaults) {
  return {
    ASSISTANT_HOST: setting(kind.listenAddress.default(defaults.host), {
      description: 'address to listen on',
      flag: 'host',
    }),
    ASSISTANT_PORT: setting(kind.port.default(defaults.port), {
      description: 'port; `0` picks a free one',
      flag: 'port',
    }),
    ASSISTANT_LOG_LEVEL: setting(kind.logLevel.default(defaults.logLevel), {
      description: `${kind.LOG_LEVELS.map((level) => `\`${level}\``).join(', ')}; JSON log lines on stdout (readable lines when a self-hosted server's stdout is a terminal), never with secrets`,
    }),
    ASSISTANT_MODEL: setting(kind.text.default('builtin'), {
      description:
        'the default model: `builtin`, `ollama:<m>`, `openai-compatible:<m>`, `openai:<m>`, `anthropic:<m>`',
      flag: 'model',
    }),
    ASSISTANT_MODELS: setting(
      kind.nameList.default(() => []),
      {
        description: 'further models a query may pick with its `model` field, comma-separated',
      },
    ),
    ASSISTANT_MODEL_BASE_URL: setting(kind.httpUrl.optional(), {
      description: 'the OpenAI-compatible server of `openai-compatible:` models (`http://host:port/v1`)',
    }),
    ASSISTANT_MODEL_API_KEY: setting(kind.text.optional(), {
      description: 'the API key of that OpenAI-compatible server, if it wants one',
      secret: true,
    }),
    ASSISTANT_OLLAMA_URL: setting(kind.httpUrl.default(DEFAULT_OLLAMA_URL), {
      description: 'Ollama, for `ollama:` models',
    }),
    OPENAI_API_KEY: setting(kind.text.optional(), { description: 'for `openai:` models', secret: true }),
    ANTHROPIC_API_KEY: setting(kind.text.optional(), {
      description: 'for `anthropic:` models',
      secret: true,
    }),
    ASSISTANT_MODEL_CONTEXT_TOKENS: setting(
      kind.wholeNumber('tokens', 1_024, 10_000_000).default(DEFAULT_CONTEXT_TOKENS),
      {
        description:
          "the language models' context window: a discussion's oldest messages are left out of the prompt to fit ¾ of it (never the question or recalled memories)",
      },
    ),
    ASSISTANT_MODEL_TIMEOUT_SECONDS: setting(
      kind.timerSeconds.default(seconds(DEFAULT_RUN_LIMITS.modelIdleMs)),
      {
        description: 'a model that sends nothing this long fails the query (`model_unavailable`)',
      },
    ),
    ASSISTANT_RUN_TIMEOUT_SECONDS: setting(
      kind.timerSeconds.default(seconds(DEFAULT_RUN_LIMITS.runTimeoutMs)),
      {
        description: 'longest run of one query',
      },
    ),
    ASSISTANT_TOOL_TIMEOUT_SECONDS: setting(
      kind.timerSeconds.default(seconds(DEFAULT_RUN_LIMITS.toolTimeoutMs)),
      {
        description: 'longest tool call',
      },
    ),
    ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS: setting(kind.timerSeconds.default(300), {
      description:
        'how long a side-effecting call waits for the user’s yes or no; then it is refused and the query ends (`confirmation_timeout`)',
    }),
    ASSISTANT_MAX_CONCURRENT_QUERIES: setting(
      kind.wholeNumber('queries', 1).default(HOSTED_RATE_LIMITS.concurrentQueriesPerUser),
      { description: 'query runs at once per account' },
    ),
    ASSISTANT_ALLOW_PRIVATE_HOSTS: setting(
      kind.hostList.default(() => []),
      {
        description:
          'host names or networks (CIDR, e.g. `192.168.1.0/24`) on the local network that tools may reach; private and local addresses are refused otherwise',
      },
    ),
    ASSISTANT_LOCAL_FOLDERS: setting(
      kind.folderList.default(() => []),
      {
        description:
          "folders of this machine that accounts may connect as files (self-hosted), outside the data directory; each account's own folder there needs no listing",
      },
    ),
    ASSISTANT_TIMEZONE: setting(kind.timeZone.optional(), {
      description:
        "the users' time zone for dates such as “tomorrow” (IANA, e.g. `Europe/Berlin`); default: the server's",
    }),
    ASSISTANT_STREAM_PING_SECONDS: setting(kind.timerSeconds.default(15), {
      description: '`: ping` comment interval of event streams, so that proxies keep them open',
    }),
    ASSISTANT_BUILTIN_PACING_MS: setting(
      kind.wholeNumber('milliseconds', 0).default(DEFAULT_BUILTIN_PACING_MS),
      { description: "pause between the built-in model's streamed words" },
    ),
    ASSISTANT_RATE_LIMIT_CORE: setting(
      kind.wholeNumber('requests', 1).default(defaults.rateLimits.core.limit),
      {
        description: 'requests per window per token (per address without one)',
      },
    ),
    ASSISTANT_RATE_LIMIT_QUERIES: setting(
      kind.wholeNumber('queries', 1).default(defaults.rateLimits.queries.limit),
      { description: 'queries per window per account' },
    ),
    ASSISTANT_RATE_LIMIT_AUTH: setting(
      kind.wholeNumber('requests', 1).default(defaults.rateLimits.auth.limit),
      {
        description:
          'requests to `/oauth/`, `POST /pairing/claim` and the sign-in pages per window per address',
      },
    ),
    // One window for every bucket, as both deployments' defaults have.
    ASSISTANT_RATE_LIMIT_WINDOW_SECONDS: setting(
      kind.wholeNumber('seconds', 1).default(defaults.rateLimits.core.windowSeconds),
      { description: 'length of a rate-limit window' },
    ),
    ASSISTANT_PUBLIC_URL: setting(kind.httpUrl.optional(), {
      description:
        'the address users and third-party apps reach this server at (e.g. `https://assistant.example.com`): the OAuth issuer, and where sign-in links and redirects point',
      defaultText: 'the address it listens on',
    }),
    ASSISTANT_GOOGLE_CLIENT_ID: setting(kind.text.optional(), {
      description:
        'the OAuth client id of this server at Google (see “Google and Microsoft accounts”): shows “Connect Google” on /profile',
      defaultText: 'none: no “Connect Google”',
    }),
    ASSISTANT_GOOGLE_CLIENT_SECRET: setting(kind.text.optional(), {
      description: 'the client secret that goes with `ASSISTANT_GOOGLE_CLIENT_ID`',
      secret: true,
    }),
    ASSISTANT_MICROSOFT_CLIENT_ID: setting(kind.text.optional(), {
      description:
        'the application (client) id of this server at Microsoft Entra (see “Google and Microsoft accounts”): shows “Connect Microsoft” on /profile',
      defaultText: 'none: no “Connect Microsoft”',
    }),
    ASSISTANT_MICROSOFT_CLIENT_SECRET: setting(kind.text.optional(), {
      description: 'the client secret that goes with `ASSISTANT_MICROSOFT_CLIENT_ID`',
      secret: true,
    }),
    ASSISTANT_OAUTH_TEST_OVERRIDES: setting(kind.oauthOverrides.optional(), {
      description:
        'tests only: JSON that points a configured OAuth client at a stand-in provider (`endpoints`) and its connections at stand-in servers (`protocolSettings` by `family/provider`); never set it for real accounts',
      defaultText: 'none',
    }),
    ASSISTANT_TRUST_PROXY: setting(kind.trueOrFalse.default(false), {
      description: 'behind a reverse proxy: take the client address from `X-Forwarded-For`',
    }),
    ASSISTANT_METRICS_PORT: setting(kind.port.optional(), {
      description:
        'serve Prometheus metrics at `/metrics` on this port (same address as the API; keep it private); `0` picks a free one',
      defaultText: 'off',
    }),
    ASSISTANT_SHUTDOWN_GRACE_SECONDS: setting(
      kind.wholeNumber('seconds', 0, 3_600).default(defaults.shutdownGraceSeconds),
      {
        description:
          'on SIGTERM or Ctrl-C, how long running queries may still finish (new ones get 503) before they are ended `interrupted`; a second signal ends them at once',
      },
    ),
  };
}

const DATABASE_URL_MEANING =
  'PostgreSQL: `postgres://user@host:5432/db`; `?schema=name` keeps the tables in their own schema';

const SECRETS_KEY_MEANING =
  'the key that encrypts connection secrets: base64 of 32 bytes (`openssl rand -base64 32`); keep it safe and unchanged';

/** One household: generous limits, logs for the operator at their terminal, this machine only. */
export const SELF_HOST_SETTINGS = z.object({
  ...deploymentSettings({
    host: '127.0.0.1',
    port: 7747,
    logLevel: 'warn',
    // Ctrl-C at a terminal should stop the server promptly.
    shutdownGraceSeconds: 5,
    rateLimits: {
      core: { limit: 20_000, windowSeconds: 3_600 },
      queries: { limit: 600, windowSeconds: 3_600 },
      auth: { limit: 600, windowSeconds: 3_600 },
    },
  }),
  ASSISTANT_DATA_DIR: setting(kind.text.optional(), {
    description: 'database, credentials, lock file',
    flag: 'dataDir',
    defaultText: '`$XDG_DATA_HOME/assistant`',
  }),
  ASSISTANT_SECRETS_KEY: setting(kind.secretsKey.optional(), {
    description: SECRETS_KEY_MEANING,
    defaultText: 'generated into `<data-dir>/secrets.key`',
    secret: true,
  }),
  ASSISTANT_DATABASE_URL: setting(kind.postgresUrl().optional(), {
    description: DATABASE_URL_MEANING,
    flag: 'databaseUrl',
    defaultText: 'embedded SQLite',
    secret: true,
  }),
  ASSISTANT_TOOLS_DIR: setting(kind.text.optional(), {
    description:
      'the folder of custom tool modules (`.js`, `.mjs`, `.cjs`, each `export default defineTool(…)`), loaded at start and again when it changes; see “Custom tools”',
    flag: 'tools',
    defaultText: '`<data-dir>/tools`',
  }),
});

/** The hosted service: every interface (behind its proxy), the limits of SPEC §7, PostgreSQL only. */
export const HOSTED_SETTINGS = z.object({
  ...deploymentSettings({
    host: '0.0.0.0',
    port: 8080,
    logLevel: 'info',
    rateLimits: HOSTED_RATE_LIMITS,
    // Below the 30 s an orchestrator waits after SIGTERM before it kills (Kubernetes, Docker).
    shutdownGraceSeconds: 25,
  }),
  ASSISTANT_DATABASE_URL: setting(
    kind.postgresUrl('the hosted API runs on PostgreSQL (postgres://user@host:5432/db)'),
    { description: DATABASE_URL_MEANING, secret: true },
  ),
  ASSISTANT_SECRETS_KEY: setting(kind.secretsKey, {
    description: SECRETS_KEY_MEANING,
    secret: true,
  }),
  ASSISTANT_REDIS_URL: setting(kind.redisUrl, {
    description:
      'Redis (`redis://[:password@]host:6379[/db]`), shared by every API process: rate-limit counts, the concurrent-run cap, live query events, revocations and confirmations',
    secret: true,
  }),
  ASSISTANT_SMTP_URL: setting(kind.smtpUrl.optional(), {
    description:
      'the mail server the service sends its own mail through (password links): `smtps://user:password@mail.example.com:465`, or `smtp://…:587` (STARTTLS when the server offers it); without it, “forgot password” says that mail is off',
    defaultText: 'off',
    secret: true,
  }),
  ASSISTANT_MAIL_FROM: setting(kind.emailAddress.optional(), {
    description: 'the sender of that mail (`assistant@example.com`); needed with `ASSISTANT_SMTP_URL`',
    defaultText: 'none',
  }),
  ASSISTANT_REDIS_KEY_PREFIX: setting(kind.text.default('assistant:'), {
    description:
      'put before every Redis key and channel, so that several deployments can share one Redis (channels ignore the `/db` of the URL)',
  }),
});

export type SelfHostSettings = z.output<typeof SELF_HOST_SETTINGS>;
export type HostedSettings = z.output<typeof HOSTED_SETTINGS>;
/** What both deployments read the same way. */
export type DeploymentSettings = z.output<z.ZodObject<ReturnType<typeof deploymentSettings>>>;
