import { BUILT, run } from './support/processes';
import { dropSchema, freshSchemaUrl } from './support/targets';

/**
 * `assistant-hosted-ops migrate --check` (built) for deploy pipelines: it changes nothing and exits 1 while
 * migrations are pending, 0 once `migrate` has brought the schema up to date.
 */
describe('assistant-hosted-ops migrate --check', () => {
  const { url, schema } = freshSchemaUrl();
  const env = { ASSISTANT_DATABASE_URL: url };
  afterAll(() => dropSchema(schema));

  it('exits 1 while migrations are pending, changing nothing, and 0 after migrate', async () => {
    const pending = await run(BUILT.hostedOps, ['migrate', '--check'], env, undefined, 30_000);
    expect(pending.code).toBe(1);
    expect(pending.stderr).toContain('the database schema is not up to date');
    // Still pending: --check applied nothing.
    expect((await run(BUILT.hostedOps, ['migrate', '--check'], env, undefined, 30_000)).code).toBe(1);

    expect((await run(BUILT.hostedOps, ['migrate'], env, undefined, 30_000)).code).toBe(0);
    const current = await run(BUILT.hostedOps, ['migrate', '--check'], env, undefined, 30_000);
    expect(current.code).toBe(0);
    expect(current.stdout).toContain('the database schema is up to date');
  });
});
