import { BUILT, run } from './support/processes';
import { dropSchema, freshSchemaUrl, TEST_SECRETS_KEY } from './support/targets';

describe('the hosted API', () => {
  it('refuses to start without a PostgreSQL URL and a secrets key, in one clear line', async () => {
    const result = await run(BUILT.hosted, [], {});
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe(
      'assistant: ASSISTANT_DATABASE_URL is required: the hosted API runs on PostgreSQL (postgres://user@host:5432/db); ' +
        'ASSISTANT_SECRETS_KEY is required: a base64-encoded 32-byte key (make one with `openssl rand -base64 32`)',
    );
  });

  it('refuses to start on a database whose migrations have not been run, and the ops command runs them', async () => {
    const { url, schema } = freshSchemaUrl();
    try {
      const early = await run(BUILT.hosted, [], {
        ASSISTANT_DATABASE_URL: url,
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

  it('prints the ops usage', async () => {
    const help = await run(BUILT.hostedOps, ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create-account --email');
  });
});
