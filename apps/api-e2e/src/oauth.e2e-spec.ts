import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3-node20';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';
import { CookieBrowser } from './support/browser';

const CLIENT = join(WORKSPACE_ROOT, 'apps/api-e2e/src/support/oauth-client.mjs');
const REDIRECT = 'http://127.0.0.1:9/callback';

/** A reply's JSON: OAuth's `{error}`, tokens, or an API resource. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;
const answer = async (response: Response | Promise<Response>): Promise<Answer> =>
  (await (await response).json()) as Answer;

interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  error?: string;
  error_description?: string;
}

/**
 * OAuth 2.0 for third-party applications against a real `assistant serve`: the application's side is played by
 * openid-client (an independent, certified client library, in its own process), the user's by a cookie-keeping
 * browser that signs in with the server's one-time link and answers the consent page.
 */
describe('third-party access with OAuth 2.0 and PKCE', () => {
  let dataDir: string;
  let server: ServerProcess;
  let browser: CookieBrowser;
  let clientId: string;

  const app = async <T = Record<string, string>>(step: string, input: object): Promise<T> => {
    const result = await run(CLIENT, [step, server.url, JSON.stringify(input)], {});
    return JSON.parse(result.stdout) as T;
  };
  const api = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
    });
  const tokenRequest = (params: Record<string, string>) =>
    fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...params }).toString(),
    });
  /** The authorization request as the seed writes it: scopes joined with `+`. */
  const authorizeUrl = (params: Record<string, string>) =>
    `${server.url}/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      state: 'st-1',
      ...params,
    })}`;
  const CHALLENGE = { verifier: 'v'.repeat(43) };
  const s256 = async (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
  /** A code for `scope` (allowed on the consent page), with a known verifier. */
  const code = async (scope = 'read:memories') => {
    const { callback } = await browser.authorize(
      authorizeUrl({
        scope,
        code_challenge: await s256(CHALLENGE.verifier),
        code_challenge_method: 'S256',
      }),
    );
    const value = callback?.searchParams.get('code');
    expect(value).toEqual(expect.any(String));
    return value as string;
  };
  const redeem = (value: string, verifier = CHALLENGE.verifier) =>
    tokenRequest({
      grant_type: 'authorization_code',
      code: value,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-oauth-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    browser = new CookieBrowser(server.url);
    const link = /(http:\/\/\S+\/signin\/link\?token=[\w-]+)/.exec(server.output())?.[1];
    expect(link).toBeDefined();
    await browser.request(link as string);
    ({ client_id: clientId } = await app('register', { redirect_uri: REDIRECT, client_name: 'Bakery bot' }));
    expect(clientId).toBeTruthy();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets an application in through consent, then its token works with its scopes and no more', async () => {
    const started = await app<{ url: string; verifier: string; state: string }>('start', {
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'read:account read:memories',
    });
    const { callback, page } = await browser.authorize(started.url);
    expect(page).toBeUndefined();
    expect(callback?.searchParams.get('iss')).toBe(server.url);
    const tokens = await app<Tokens>('exchange', {
      client_id: clientId,
      callback: callback?.href,
      ...started,
    });
    expect(tokens).toMatchObject({ scope: 'read:account read:memories', refresh_token: expect.any(String) });

    const me = await api(tokens.access_token, '/me');
    expect(me.status).toBe(200);
    expect((await answer(me)).token).toMatchObject({
      kind: 'oauth_access',
      client_id: clientId,
      scopes: ['read:account', 'read:memories'],
    });
    expect((await api(tokens.access_token, '/memories')).status).toBe(200);
    const write = await api(tokens.access_token, '/memories', { method: 'POST', body: '{"content":"x"}' });
    expect(write.status).toBe(403);

    const refreshed = await app<Tokens>('refresh', {
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api(refreshed.access_token, '/me')).status).toBe(200);

    await app('revoke', { client_id: clientId, token: refreshed.access_token });
    expect((await api(refreshed.access_token, '/me')).status).toBe(401);
  });

  it('requires PKCE with S256: no challenge, or plain, is refused', async () => {
    const none = await browser.authorize(authorizeUrl({ scope: 'read:memories' }));
    expect(none.callback?.searchParams.get('error')).toBe('invalid_request');
    const plain = await browser.authorize(
      authorizeUrl({
        scope: 'read:memories',
        code_challenge: CHALLENGE.verifier,
        code_challenge_method: 'plain',
      }),
    );
    expect(plain.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a wrong verifier', async () => {
    const response = await redeem(await code(), 'w'.repeat(43));
    expect(response.status).toBe(400);
    expect((await answer(response)).error).toBe('invalid_grant');
  });

  it('matches the redirect URI exactly: one character off is an error page, not a redirect', async () => {
    const { callback, page } = await browser.authorize(
      authorizeUrl({
        scope: 'read:memories',
        redirect_uri: `${REDIRECT}x`,
        code_challenge: await s256(CHALLENGE.verifier),
        code_challenge_method: 'S256',
      }),
    );
    expect(callback).toBeUndefined();
    expect(page?.status).toBe(400);
  });

  it('redeems a code once: a replay fails and kills the tokens the first redemption got', async () => {
    const value = await code();
    const first = (await (await redeem(value)).json()) as Tokens;
    expect((await api(first.access_token, '/memories')).status).toBe(200);
    const replay = await redeem(value);
    expect((await answer(replay)).error).toBe('invalid_grant');
    expect((await api(first.access_token, '/memories')).status).toBe(401);
  });

  it('gives exactly one of ten simultaneous redemptions of a code its tokens', async () => {
    const value = await code();
    const statuses = await Promise.all(Array.from({ length: 10 }, () => redeem(value).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  });

  it('refuses an expired code', async () => {
    const value = await code();
    // The code's 60 seconds, passed: its record says it has expired.
    const db = new Database(join(dataDir, 'assistant.sqlite'));
    db.prepare(
      `UPDATE oauth_records SET expires_at = '2000-01-01 00:00:00.000' WHERE kind = 'AuthorizationCode'`,
    ).run();
    db.close();
    expect((await answer(redeem(value))).error).toBe('invalid_grant');
  });

  it('revokes the whole grant when a refresh token is used twice, and never widens scopes on refresh', async () => {
    const tokens = (await (await redeem(await code('read:memories'))).json()) as Tokens;
    const wider = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      scope: 'read:memories write:memories',
    });
    expect((await answer(wider)).error).toBe('invalid_scope');
    const rotated = (await (
      await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
    ).json()) as Tokens;
    expect(rotated.access_token).toBeTruthy();
    const reused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect((await answer(reused)).error).toBe('invalid_grant');
    expect((await api(rotated.access_token, '/memories')).status).toBe(401);
    const afterRevocation = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: rotated.refresh_token,
    });
    expect((await answer(afterRevocation)).error).toBe('invalid_grant');
  });

  it('refuses unknown scopes, write:account and another audience', async () => {
    const challenge = { code_challenge: await s256(CHALLENGE.verifier), code_challenge_method: 'S256' };
    for (const scope of ['read:nothing', 'write:account', 'read:memories write:account']) {
      const { callback } = await browser.authorize(authorizeUrl({ scope, ...challenge }));
      expect({ scope, error: callback?.searchParams.get('error') }).toEqual({
        scope,
        error: 'invalid_scope',
      });
    }
    const { callback } = await browser.authorize(
      authorizeUrl({ scope: 'read:memories', resource: 'https://elsewhere.example/api', ...challenge }),
    );
    expect(callback?.searchParams.get('error')).toBe('invalid_target');
  });

  it('says a revoked token is no longer active when asked to introspect it', async () => {
    const tokens = (await (await redeem(await code())).json()) as Tokens;
    const introspect = () =>
      fetch(`${server.url}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, token: tokens.access_token }).toString(),
      }).then((r) => r.json());
    expect(await introspect()).toMatchObject({ active: true, client_id: clientId });
    await app('revoke', { client_id: clientId, token: tokens.access_token });
    expect(await introspect()).toEqual({ active: false });
  });

  it('lists the application among the integrations and revokes every token of it in one step', async () => {
    const tokens = (await (await redeem(await code('read:memories'))).json()) as Tokens;
    const owner = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string };
    expect((await api(tokens.access_token, '/memories')).status).toBe(200);
    const listed = await answer(api(owner.token, '/integrations'));
    expect(listed.data).toContainEqual(
      expect.objectContaining({
        recent_activity: expect.arrayContaining([
          { at: expect.any(String), what: 'GET /api/v1/memories', scope: 'read:memories' },
        ]),
        client_id: clientId,
        name: 'Bakery bot',
        last_used_at: expect.any(String),
        scopes: expect.arrayContaining(['read:memories']),
      }),
    );
    // A third-party token cannot manage integrations: write:account is never delegated.
    expect((await api(tokens.access_token, '/integrations')).status).toBe(403);
    expect((await api(owner.token, `/integrations/${clientId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(tokens.access_token, '/memories')).status).toBe(401);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect((await answer(refresh)).error).toBe('invalid_grant');
    expect((await api(owner.token, `/integrations/${clientId}`, { method: 'DELETE' })).status).toBe(404);
  });
});
