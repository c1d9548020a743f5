import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { describeStartupError } from '../bootstrap/process-lifecycle';
import {
  hostedConfig,
  hostedDatabase,
  HOSTED_SETTINGS,
  SELF_HOST_SETTINGS,
  selfHostConfig,
  type SelfHostFlags,
} from '@assistant/server-kit';

/** A machine with nothing configured: the tests must not depend on the shell they run in. */
const HOME = { XDG_DATA_HOME: '/home/ada/.local/share' };
const KEY = Buffer.alloc(32, 7).toString('base64');
const PG = {
  ASSISTANT_DATABASE_URL: 'postgres://app@db.internal:5432/assistant',
  ASSISTANT_SECRETS_KEY: KEY,
  ASSISTANT_REDIS_URL: 'redis://cache.internal:6379',
};
/** Warnings are checked where they are the subject; elsewhere they are dropped. */
const ignore = (line: string) => void line;

function selfHost(
  env: Record<string, string>,
  flags: SelfHostFlags = {},
  warn: (line: string) => void = ignore,
) {
  return selfHostConfig(flags, { ...HOME, ...env }, warn);
}

function hosted(env: Record<string, string>, warn: (line: string) => void = ignore) {
  return hostedConfig({ ...PG, ...env }, warn);
}

/** The one line the process would print for what `start` throws. */
function startupLine(start: () => unknown): string {
  try {
    start();
  } catch (error) {
    expect(error).toBeInstanceOf(OperatorError);
    expect(error).toBeInstanceOf(OperatorError);
    return describeStartupError(error);
  }
  throw new Error('the configuration was accepted');
}

describe('the settings of the composition roots', () => {
  it('gives the self-hosted server its defaults', () => {
    const config = selfHost({});
    expect(config).toMatchObject({
      deployment: 'self-hosted',
      host: '127.0.0.1',
      port: 7747,
      logLevel: 'warn',
      trustProxy: false,
      dataDir: '/home/ada/.local/share/assistant',
      database: { dialect: 'sqlite', file: join('/home/ada/.local/share/assistant', 'assistant.sqlite') },
      rateLimits: {
        core: { limit: 20_000, windowSeconds: 3_600 },
        queries: { limit: 600, windowSeconds: 3_600 },
        auth: { limit: 600, windowSeconds: 3_600 },
      },
      tokenCacheTtlMs: 60_000,
      shutdownGraceMs: 5_000,
    });
    expect(config.metricsPort).toBeUndefined();
    expect(config.queries).toEqual({
      models: {
        defaultModel: 'builtin',
        extraModels: [],
        ollamaBaseUrl: 'http://127.0.0.1:11434',
        builtinPacingMs: 10,
      },
      maxConcurrentPerUser: 4,
      confirmationTimeoutMs: 300_000,
      pingIntervalMs: 15_000,
      contextTokens: 8_192,
      // Unset, the users' time zone is the server's.
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      limits: {
        maxSteps: expect.any(Number),
        runTimeoutMs: 300_000,
        toolTimeoutMs: 30_000,
        modelIdleMs: 60_000,
      },
    });
  });

  it('gives the hosted API no custom tools folder: it runs no code of its users', () => {
    expect(hosted({ ASSISTANT_TOOLS_DIR: '/srv/tools' }).customToolsDir).toBeUndefined();
  });

  it('gives the hosted API its own defaults', () => {
    expect(hosted({})).toMatchObject({
      deployment: 'hosted',
      host: '0.0.0.0',
      port: 8080,
      logLevel: 'info',
      trustProxy: false,
      database: { dialect: 'postgres', url: 'postgres://app@db.internal:5432/assistant' },
      rateLimits: {
        core: { limit: 5_000, windowSeconds: 3_600 },
        queries: { limit: 60, windowSeconds: 3_600 },
        auth: { limit: 300, windowSeconds: 3_600 },
      },
      tokenCacheTtlMs: 30_000,
      shutdownGraceMs: 25_000,
    });
  });

  it('reads every setting from its variable', () => {
    const config = selfHost({
      ASSISTANT_HOST: '::1',
      ASSISTANT_PORT: '8123',
      ASSISTANT_DATA_DIR: '/srv/assistant',
      ASSISTANT_LOG_LEVEL: 'debug',
      ASSISTANT_MODEL: 'openai-compatible:qwen',
      ASSISTANT_MODELS: ' ollama:llama3.2, ,anthropic:claude ',
      ASSISTANT_MODEL_BASE_URL: 'http://127.0.0.1:8080/v1',
      ASSISTANT_MODEL_API_KEY: 'local-key',
      ASSISTANT_OLLAMA_URL: 'http://gpu.lan:11434',
      OPENAI_API_KEY: 'sk-openai',
      ANTHROPIC_API_KEY: 'sk-anthropic',
      ASSISTANT_MODEL_TIMEOUT_SECONDS: '5',
      ASSISTANT_MODEL_CONTEXT_TOKENS: '32768',
      ASSISTANT_RUN_TIMEOUT_SECONDS: '600',
      ASSISTANT_TOOL_TIMEOUT_SECONDS: '7',
      ASSISTANT_MAX_CONCURRENT_QUERIES: '2',
      ASSISTANT_STREAM_PING_SECONDS: '3',
      ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS: '60',
      ASSISTANT_TIMEZONE: 'Europe/Berlin',
      ASSISTANT_BUILTIN_PACING_MS: '0',
      ASSISTANT_RATE_LIMIT_CORE: '100',
      ASSISTANT_RATE_LIMIT_QUERIES: '10',
      ASSISTANT_RATE_LIMIT_AUTH: '20',
      ASSISTANT_RATE_LIMIT_WINDOW_SECONDS: '60',
      ASSISTANT_TRUST_PROXY: 'true',
      ASSISTANT_TOOLS_DIR: '/srv/assistant-tools',
      ASSISTANT_METRICS_PORT: '9464',
      ASSISTANT_SHUTDOWN_GRACE_SECONDS: '0',
    });
    expect(config).toMatchObject({
      metricsPort: 9464,
      shutdownGraceMs: 0,
      host: '::1',
      port: 8123,
      dataDir: '/srv/assistant',
      customToolsDir: '/srv/assistant-tools',
      database: { dialect: 'sqlite', file: join('/srv/assistant', 'assistant.sqlite') },
      logLevel: 'debug',
      trustProxy: true,
      rateLimits: {
        core: { limit: 100, windowSeconds: 60 },
        queries: { limit: 10, windowSeconds: 60 },
        auth: { limit: 20, windowSeconds: 60 },
      },
    });
    expect(config.queries).toEqual({
      models: {
        defaultModel: 'openai-compatible:qwen',
        extraModels: ['ollama:llama3.2', 'anthropic:claude'],
        openAiCompatibleBaseUrl: 'http://127.0.0.1:8080/v1',
        openAiCompatibleApiKey: 'local-key',
        ollamaBaseUrl: 'http://gpu.lan:11434',
        openAiApiKey: 'sk-openai',
        anthropicApiKey: 'sk-anthropic',
        builtinPacingMs: 0,
      },
      maxConcurrentPerUser: 2,
      pingIntervalMs: 3_000,
      contextTokens: 32_768,
      confirmationTimeoutMs: 60_000,
      timeZone: 'Europe/Berlin',
      limits: {
        maxSteps: expect.any(Number),
        runTimeoutMs: 600_000,
        toolTimeoutMs: 7_000,
        modelIdleMs: 5_000,
      },
    });
    expect(selfHost({ ...PG }).database).toEqual({
      dialect: 'postgres',
      url: 'postgres://app@db.internal:5432/assistant',
    });
  });

  it('lets the flags of `assistant serve` win over the variables, without looking at those', () => {
    const config = selfHost(
      {
        ASSISTANT_HOST: 'not an address',
        ASSISTANT_PORT: 'abc',
        ASSISTANT_DATA_DIR: '/ignored',
        ASSISTANT_DATABASE_URL: 'mysql://nope',
        ASSISTANT_MODEL: 'nonsense',
      },
      {
        host: '0.0.0.0',
        port: '9000',
        dataDir: '/srv/flag',
        databaseUrl: 'postgres://me@127.0.0.1/flag?schema=mine',
        model: 'ollama:llama3.2',
      },
    );
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/srv/flag',
      database: { dialect: 'postgres', url: 'postgres://me@127.0.0.1/flag', schema: 'mine' },
    });
    expect(config.queries.models.defaultModel).toBe('ollama:llama3.2');
    expect(selfHostConfig({ port: 0 }, HOME).port).toBe(0);
    // The custom tools folder: <data-dir>/tools, else --tools over ASSISTANT_TOOLS_DIR, relative to here.
    expect(config.customToolsDir).toBe('/srv/flag/tools');
    expect(selfHost({ ASSISTANT_TOOLS_DIR: '/env/tools' }, { tools: 'my-tools' }).customToolsDir).toBe(
      join(process.cwd(), 'my-tools'),
    );
  });

  it('treats empty or blank values as unset and trims the others', () => {
    expect(selfHost({ ASSISTANT_PORT: '', ASSISTANT_TRUST_PROXY: '  ' }, { host: '' })).toMatchObject({
      host: '127.0.0.1',
      port: 7747,
      trustProxy: false,
    });
    expect(selfHost({ ASSISTANT_PORT: ' 8080 ' }).port).toBe(8080);
  });

  // Every variable whose value can be wrong, with one wrong value and the line that says so.
  const BAD_VALUES: [variable: string, value: string, line: string][] = [
    ['ASSISTANT_PORT', 'abc', 'ASSISTANT_PORT must be a port number 0–65535 (got "abc")'],
    ['ASSISTANT_PORT', '65536', 'ASSISTANT_PORT must be a port number 0–65535 (got "65536")'],
    ['ASSISTANT_TRUST_PROXY', '1', 'ASSISTANT_TRUST_PROXY must be true or false (got "1")'],
    ['ASSISTANT_METRICS_PORT', '9x', 'ASSISTANT_METRICS_PORT must be a port number 0–65535 (got "9x")'],
    [
      'ASSISTANT_SHUTDOWN_GRACE_SECONDS',
      '-1',
      'ASSISTANT_SHUTDOWN_GRACE_SECONDS must be a whole number of seconds from 0 to 3600 (got "-1")',
    ],
    [
      'ASSISTANT_MODEL_CONTEXT_TOKENS',
      '512',
      'ASSISTANT_MODEL_CONTEXT_TOKENS must be a whole number of tokens from 1024 to 10000000 (got "512")',
    ],
    [
      'ASSISTANT_BUILTIN_PACING_MS',
      'abc',
      'ASSISTANT_BUILTIN_PACING_MS must be a whole number of milliseconds ≥ 0 (got "abc")',
    ],
    [
      'ASSISTANT_HOST',
      'my host',
      'ASSISTANT_HOST must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::1) or a host name (got "my host")',
    ],
    [
      'ASSISTANT_LOG_LEVEL',
      'loud',
      'ASSISTANT_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
    [
      'ASSISTANT_MODEL_BASE_URL',
      '127.0.0.1:8080/v1',
      'ASSISTANT_MODEL_BASE_URL must be an http:// or https:// URL (got "127.0.0.1:8080/v1")',
    ],
    [
      'ASSISTANT_PUBLIC_URL',
      'assistant.example.com',
      'ASSISTANT_PUBLIC_URL must be an http:// or https:// URL (got "assistant.example.com")',
    ],
    [
      'ASSISTANT_OLLAMA_URL',
      'ftp://gpu.lan',
      'ASSISTANT_OLLAMA_URL must be an http:// or https:// URL (got "ftp://gpu.lan")',
    ],
    [
      'ASSISTANT_MODEL_TIMEOUT_SECONDS',
      '0',
      'ASSISTANT_MODEL_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 2147483 (got "0")',
    ],
    [
      'ASSISTANT_RUN_TIMEOUT_SECONDS',
      '9999999',
      'ASSISTANT_RUN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 2147483 (got "9999999")',
    ],
    [
      'ASSISTANT_TOOL_TIMEOUT_SECONDS',
      '1.5',
      'ASSISTANT_TOOL_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 2147483 (got "1.5")',
    ],
    [
      'ASSISTANT_STREAM_PING_SECONDS',
      '1e3',
      'ASSISTANT_STREAM_PING_SECONDS must be a whole number of seconds from 1 to 2147483 (got "1e3")',
    ],
    [
      'ASSISTANT_ALLOW_PRIVATE_HOSTS',
      'nas.lan, 10.0.0.0/99',
      'ASSISTANT_ALLOW_PRIVATE_HOSTS must be comma-separated host names, IP addresses or CIDR networks (such as 192.168.1.0/24) (got "nas.lan, 10.0.0.0/99")',
    ],
    [
      'ASSISTANT_SECRETS_KEY',
      'hunter2',
      'ASSISTANT_SECRETS_KEY must be a base64-encoded 32-byte key (make one with `openssl rand -base64 32`)',
    ],
    [
      'ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS',
      'forever',
      'ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 2147483 (got "forever")',
    ],
    [
      'ASSISTANT_LOCAL_FOLDERS',
      '/srv/photos,relative/path',
      'ASSISTANT_LOCAL_FOLDERS must be comma-separated absolute folder paths (such as /srv/family-photos) (got "/srv/photos,relative/path")',
    ],
    [
      'ASSISTANT_TIMEZONE',
      'Mars/Olympus',
      'ASSISTANT_TIMEZONE must be an IANA time zone such as Europe/Berlin or UTC (got "Mars/Olympus")',
    ],
    [
      'ASSISTANT_MAX_CONCURRENT_QUERIES',
      '0',
      'ASSISTANT_MAX_CONCURRENT_QUERIES must be a whole number of queries ≥ 1 (got "0")',
    ],
    [
      'ASSISTANT_RATE_LIMIT_CORE',
      '-5',
      'ASSISTANT_RATE_LIMIT_CORE must be a whole number of requests ≥ 1 (got "-5")',
    ],
    [
      'ASSISTANT_RATE_LIMIT_QUERIES',
      'many',
      'ASSISTANT_RATE_LIMIT_QUERIES must be a whole number of queries ≥ 1 (got "many")',
    ],
    [
      'ASSISTANT_RATE_LIMIT_AUTH',
      '0x10',
      'ASSISTANT_RATE_LIMIT_AUTH must be a whole number of requests ≥ 1 (got "0x10")',
    ],
    [
      'ASSISTANT_RATE_LIMIT_WINDOW_SECONDS',
      '1h',
      'ASSISTANT_RATE_LIMIT_WINDOW_SECONDS must be a whole number of seconds ≥ 1 (got "1h")',
    ],
    [
      'ASSISTANT_DATABASE_URL',
      'mysql://root:hunter2@db/app',
      // Never the value: it may hold a password.
      'ASSISTANT_DATABASE_URL must be a postgres://user@host:5432/database URL, optionally with ?schema=<lower-case SQL name>',
    ],
  ];

  it.each(BAD_VALUES)('stops the self-hosted server on %s=%j with one line', (variable, value, line) => {
    const printed = startupLine(() => selfHost({ [variable]: value }));
    expect(printed).toBe(`assistant: ${line}`);
    expect(printed).not.toContain('\n');
  });

  it.each(BAD_VALUES)('stops the hosted API on %s=%j with the same line', (variable, value, line) => {
    expect(startupLine(() => hosted({ [variable]: value }))).toBe(`assistant: ${line}`);
  });

  it('requires Redis for the hosted API, and stops on a URL that is not one without repeating it', () => {
    const { ASSISTANT_REDIS_URL: _redis, ...withoutRedis } = PG;
    expect(startupLine(() => hostedConfig(withoutRedis, ignore))).toBe(
      'assistant: ASSISTANT_REDIS_URL is required: a redis:// or rediss:// URL',
    );
    // It may hold a password.
    expect(startupLine(() => hosted({ ASSISTANT_REDIS_URL: 'http://:hunter2@cache:6379' }))).toBe(
      'assistant: ASSISTANT_REDIS_URL must be a redis:// or rediss:// URL',
    );
  });

  it('gives the hosted API its mail server and sender, and none without them', () => {
    expect(
      hosted({ ASSISTANT_SMTP_URL: 'smtps://u:p@mail.example.com:465', ASSISTANT_MAIL_FROM: 'a@example.com' })
        .mail,
    ).toEqual({ smtpUrl: 'smtps://u:p@mail.example.com:465', from: 'a@example.com' });
    expect(hosted({}).mail).toBeUndefined();
  });

  it('stops the hosted API on a mail server URL or a sender that is not one, without repeating the URL', () => {
    expect(startupLine(() => hosted({ ASSISTANT_SMTP_URL: 'http://user:hunter2@mail.example.com' }))).toBe(
      'assistant: ASSISTANT_SMTP_URL must be an smtp:// or smtps:// URL',
    );
    expect(
      startupLine(() =>
        hosted({ ASSISTANT_SMTP_URL: 'smtps://mail.example.com', ASSISTANT_MAIL_FROM: 'me' }),
      ),
    ).toBe(
      'assistant: ASSISTANT_MAIL_FROM must be an email address, such as assistant@example.com (got "me")',
    );
    expect(startupLine(() => hosted({ ASSISTANT_SMTP_URL: 'smtps://user:hunter2@mail.example.com' }))).toBe(
      'assistant: ASSISTANT_SMTP_URL is set but ASSISTANT_MAIL_FROM is not: say who the mail is from',
    );
  });

  it('refuses an OAuth client id without its secret, and takes the pair as a client', () => {
    expect(startupLine(() => hosted({ ASSISTANT_GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com' }))).toBe(
      'assistant: set both ASSISTANT_GOOGLE_CLIENT_ID and ASSISTANT_GOOGLE_CLIENT_SECRET, or neither',
    );
    expect(startupLine(() => hosted({ ASSISTANT_MICROSOFT_CLIENT_SECRET: 'hunter2' }))).toBe(
      'assistant: set both ASSISTANT_MICROSOFT_CLIENT_ID and ASSISTANT_MICROSOFT_CLIENT_SECRET, or neither',
    );
    expect(
      hosted({ ASSISTANT_GOOGLE_CLIENT_ID: 'id', ASSISTANT_GOOGLE_CLIENT_SECRET: 'hunter2' }).oauthClients,
    ).toEqual({ google: { clientId: 'id', clientSecret: 'hunter2' } });
    const endpoints = {
      authorizationEndpoint: 'http://127.0.0.1:9400/auth',
      tokenEndpoint: 'http://127.0.0.1:9400/token',
    };
    expect(
      hosted({
        ASSISTANT_GOOGLE_CLIENT_ID: 'id',
        ASSISTANT_GOOGLE_CLIENT_SECRET: 'hunter2',
        ASSISTANT_OAUTH_TEST_OVERRIDES: JSON.stringify({ google: { endpoints }, microsoft: { endpoints } }),
      }).oauthClients,
    ).toEqual({ google: { clientId: 'id', clientSecret: 'hunter2', endpoints } });
    expect(
      startupLine(() => hosted({ ASSISTANT_OAUTH_TEST_OVERRIDES: '{"google": {"endpoints": 1}}' })),
    ).toMatch(/^assistant: ASSISTANT_OAUTH_TEST_OVERRIDES must be JSON such as \{"google"/);
  });

  it('has a bad-value case for every setting that can refuse one', () => {
    // These take any text: a model name is checked below against its provider, a key or a path as it is.
    const anyText = [
      'ASSISTANT_MODEL',
      'ASSISTANT_MODELS',
      'ASSISTANT_MODEL_API_KEY',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'ASSISTANT_DATA_DIR',
      // A folder that must exist: checked when the server starts (startSelfHost), not by its kind.
      'ASSISTANT_TOOLS_DIR',
      'ASSISTANT_REDIS_KEY_PREFIX',
    ];
    // Hosted only, with cases of their own above.
    const covered = new Set([
      ...BAD_VALUES.map(([variable]) => variable),
      'ASSISTANT_REDIS_URL',
      'ASSISTANT_SMTP_URL',
      'ASSISTANT_MAIL_FROM',
      // Any text, but never one without the other: the case below.
      'ASSISTANT_GOOGLE_CLIENT_ID',
      'ASSISTANT_GOOGLE_CLIENT_SECRET',
      'ASSISTANT_MICROSOFT_CLIENT_ID',
      'ASSISTANT_MICROSOFT_CLIENT_SECRET',
      'ASSISTANT_OAUTH_TEST_OVERRIDES',
    ]);
    for (const schema of [SELF_HOST_SETTINGS, HOSTED_SETTINGS]) {
      const uncovered = Object.keys(schema.shape).filter(
        (name) => !covered.has(name) && !anyText.includes(name),
      );
      expect(uncovered).toEqual([]);
    }
  });

  it('names the flag when the bad value came from a flag', () => {
    expect(startupLine(() => selfHost({ ASSISTANT_PORT: '8080' }, { port: 'abc' }))).toBe(
      'assistant: --port must be a port number 0–65535 (got "abc")',
    );
    expect(startupLine(() => selfHost({}, { host: 'a b' }))).toMatch(
      /^assistant: --host must be an IP address/,
    );
    expect(startupLine(() => selfHost({}, { databaseUrl: 'sqlite:x' }))).toMatch(
      /^assistant: --database-url must be a postgres:\/\/user@host:5432\/database URL/,
    );
  });

  it('names every bad value in the same line', () => {
    expect(startupLine(() => selfHost({ ASSISTANT_PORT: 'abc', ASSISTANT_TRUST_PROXY: 'yes' }))).toBe(
      'assistant: ASSISTANT_PORT must be a port number 0–65535 (got "abc"); ASSISTANT_TRUST_PROXY must be true or false (got "yes")',
    );
  });

  it('requires a database URL for the hosted API, also for its operator commands', () => {
    const line =
      'assistant: ASSISTANT_DATABASE_URL is required: the hosted API runs on PostgreSQL (postgres://user@host:5432/db)';
    expect(
      startupLine(() =>
        hostedConfig({ ASSISTANT_SECRETS_KEY: KEY, ASSISTANT_REDIS_URL: PG.ASSISTANT_REDIS_URL }, ignore),
      ),
    ).toBe(line);
    expect(startupLine(() => hostedDatabase({ ASSISTANT_PORT: 'ignored here' }))).toBe(line);
    expect(hostedDatabase(PG)).toEqual({
      dialect: 'postgres',
      url: 'postgres://app@db.internal:5432/assistant',
    });
  });

  it('requires a secrets key for the hosted API, and never repeats a bad one', () => {
    expect(
      startupLine(() =>
        hostedConfig(
          { ASSISTANT_DATABASE_URL: PG.ASSISTANT_DATABASE_URL, ASSISTANT_REDIS_URL: PG.ASSISTANT_REDIS_URL },
          ignore,
        ),
      ),
    ).toBe(
      'assistant: ASSISTANT_SECRETS_KEY is required: a base64-encoded 32-byte key (make one with `openssl rand -base64 32`)',
    );
    expect(startupLine(() => hosted({ ASSISTANT_SECRETS_KEY: 'hunter2' }))).toBe(
      'assistant: ASSISTANT_SECRETS_KEY must be a base64-encoded 32-byte key (make one with `openssl rand -base64 32`)',
    );
    expect(hosted({}).secretsKey).toEqual(Buffer.alloc(32, 7));
    // Optional on a self-hosted server, which keeps a generated key in its data directory.
    expect(selfHost({}).secretsKey).toBeUndefined();
  });

  it('still refuses at start-up a model that cannot work', () => {
    expect(startupLine(() => selfHost({ ASSISTANT_MODEL: 'openai-compatible:qwen' }))).toBe(
      'assistant: model "openai-compatible:qwen" needs ASSISTANT_MODEL_BASE_URL (e.g. http://127.0.0.1:8080/v1)',
    );
    expect(startupLine(() => hosted({ ASSISTANT_MODELS: 'builtin,anthropic:claude' }))).toBe(
      'assistant: model "anthropic:claude" needs ANTHROPIC_API_KEY',
    );
    expect(startupLine(() => selfHost({}, { model: 'gpt' }))).toMatch(/^assistant: unknown model "gpt"/);
  });

  it('warns about an ASSISTANT_* variable that is no setting, and starts', () => {
    const warnings: string[] = [];
    const config = selfHost(
      {
        ASSISTANT_PROT: '9000',
        ASSISTANT_WHATEVER: 'x',
        ASSISTANT_API_TOKEN: 'asp_for_the_client',
        ASSISTANT_BASE_URL: 'http://127.0.0.1:7747',
        ASSISTANT_TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1/test',
      },
      {},
      (line) => warnings.push(line),
    );
    expect(config.port).toBe(7747);
    expect(warnings).toEqual([
      'ASSISTANT_PROT is not a setting of the self-hosted server and is ignored; did you mean ASSISTANT_PORT?',
      'ASSISTANT_WHATEVER is not a setting of the self-hosted server and is ignored',
    ]);

    const hostedWarnings: string[] = [];
    hosted({ ASSISTANT_DATA_DIR: '/srv' }, (line) => hostedWarnings.push(line));
    expect(hostedWarnings).toEqual(['ASSISTANT_DATA_DIR is not a setting of the hosted API and is ignored']);
  });
});

describe('describeStartupError', () => {
  it('gives any operator error as one line, a bug with its stack', () => {
    expect(describeStartupError(new OperatorError('the lock is held'))).toBe('assistant: the lock is held');
    expect(describeStartupError(new TypeError('x is undefined'))).toMatch(
      /^assistant: failed to start: TypeError: x is undefined\n\s+at /,
    );
  });
});
