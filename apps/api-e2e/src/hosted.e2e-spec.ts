import { BUILT, run, startServer, type ServerProcess } from './support/processes';
import { dropSchema, freshRedisEnv, freshSchemaUrl, TEST_SECRETS_KEY } from './support/targets';

describe('the hosted API', () => {
  it('refuses to start without a PostgreSQL URL, a secrets key and Redis, in one clear line', async () => {
    const result = await run(BUILT.hosted, [], {});
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe(
      'assistant: ASSISTANT_DATABASE_URL is required: the hosted API runs on PostgreSQL (postgres://user@host:5432/db); ' +
        'ASSISTANT_SECRETS_KEY is required: a base64-encoded 32-byte key (make one with `openssl rand -base64 32`); ' +
        'ASSISTANT_REDIS_URL is required: a redis:// or rediss:// URL',
    );
  });

  it('refuses to start on a database whose migrations have not been run, and the ops command runs them', async () => {
    const { url, schema } = freshSchemaUrl();
    try {
      const early = await run(BUILT.hosted, [], {
        ASSISTANT_DATABASE_URL: url,
        ...freshRedisEnv(),
        ASSISTANT_SECRETS_KEY: TEST_SECRETS_KEY,
        ASSISTANT_PORT: '0',
      });
      expect(early.code).not.toBe(0);
      expect(early.stderr).toContain('assistant-hosted-ops migrate');

      const migrate = await run(BUILT.hostedOps, ['migrate'], { ASSISTANT_DATABASE_URL: url });
      expect(migrate.code).toBe(0);
      const again = await run(BUILT.hostedOps, ['migrate'], { ASSISTANT_DATABASE_URL: url });
      expect(again.stdout).toContain('up to date');

      const account = await run(
        BUILT.hostedOps,
        ['create-account', '--email', 'Ada@Example.com', '--scopes', 'read:account'],
        {
          ASSISTANT_DATABASE_URL: url,
        },
      );
      expect(account.code).toBe(0);
      expect(JSON.parse(account.stdout)).toMatchObject({
        email: 'ada@example.com',
        scopes: ['read:account'],
      });
      expect(JSON.parse(account.stdout)).not.toHaveProperty('set_password_url');
      // With the service's public address, its person gets a link to choose a first password.
      const withLink = await run(BUILT.hostedOps, ['create-account', '--email', 'grace@example.com'], {
        ASSISTANT_DATABASE_URL: url,
        ASSISTANT_PUBLIC_URL: 'https://assistant.example.com',
      });
      expect(withLink.code).toBe(0);
      expect(JSON.parse(withLink.stdout).set_password_url).toMatch(
        /^https:\/\/assistant\.example\.com\/password\//,
      );
      const duplicate = await run(BUILT.hostedOps, ['create-account', '--email', 'ada@example.com'], {
        ASSISTANT_DATABASE_URL: url,
      });
      expect(duplicate.code).not.toBe(0);
      expect(duplicate.stderr.trim()).toBe(
        'assistant: an account with the email ada@example.com already exists',
      );
    } finally {
      await dropSchema(schema);
    }
  });

  it('pre-registers a third-party application, which the authorization server then knows', async () => {
    const { url, schema } = freshSchemaUrl();
    const env = { ASSISTANT_DATABASE_URL: url };
    let server: ServerProcess | undefined;
    try {
      expect((await run(BUILT.hostedOps, ['migrate'], env)).code).toBe(0);
      const refused = await run(
        BUILT.hostedOps,
        ['register-client', '--name', 'Bot', '--redirect-uri', 'http://bot.example.com/cb'],
        env,
      );
      expect(refused.stderr.trim()).toBe(
        'assistant: --redirect-uri http://bot.example.com/cb must be https (http only on 127.0.0.1 or localhost)',
      );
      const registered = await run(
        BUILT.hostedOps,
        ['register-client', '--name', 'Bakery bot', '--redirect-uri', 'https://bot.example.com/cb'],
        env,
      );
      expect(registered.code).toBe(0);
      const client = JSON.parse(registered.stdout) as { client_id: string };
      expect(client).toMatchObject({
        client_name: 'Bakery bot',
        redirect_uris: ['https://bot.example.com/cb'],
      });
      const listed = JSON.parse((await run(BUILT.hostedOps, ['list-clients'], env)).stdout);
      expect(listed).toEqual([expect.objectContaining({ client_id: client.client_id })]);

      server = await startServer(BUILT.hosted, [], {
        ...env,
        ...freshRedisEnv(),
        ASSISTANT_SECRETS_KEY: TEST_SECRETS_KEY,
        ASSISTANT_PORT: '0',
      });
      const authorize = (redirect: string) =>
        fetch(
          `${server?.url}/oauth/authorize?${new URLSearchParams({
            client_id: client.client_id,
            redirect_uri: redirect,
            response_type: 'code',
            scope: 'read:memories',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          })}`,
          { redirect: 'manual' },
        );
      // Known, and its redirect URI matches: on to sign-in. An unregistered redirect URI: an error page.
      expect((await authorize('https://bot.example.com/cb')).headers.get('location')).toMatch(
        /^\/oauth\/interaction\//,
      );
      expect((await authorize('https://bot.example.com/other')).status).toBe(400);
    } finally {
      await server?.stop();
      await dropSchema(schema);
    }
  });

  it('prints the ops usage', async () => {
    const help = await run(BUILT.hostedOps, ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create-account --email');
  });
});
