/**
 * The authorization server in-process: PKCE, refresh-token rotation with reuse detection, and the consent form's
 * CSRF token, on the real provider (oidc-provider) inside the in-process app — the same rules as
 * `apps/api-e2e/src/oauth.e2e-spec.ts` and `oauth-boundaries.e2e-spec.ts`, without a child process.
 *
 * The provider is ESM-only and `@assistant/oauth` loads it with `import()` at the first OAuth request; jest takes
 * that library as built (CommonJS that keeps its `import()`), so the provider loads here through jest's own ESM
 * loader, unmocked.
 */
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

const REDIRECT = 'http://127.0.0.1:9/callback';
const VERIFIER = 'v'.repeat(43);
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

interface Tokens {
  access_token: string;
  refresh_token: string;
}

let api: InProcessApp;
let clientId: string;
let browser: PageClient;

beforeEach(async () => {
  api = await startInProcessApp();
  const registered = await api.inject({
    method: 'POST',
    url: '/oauth/register',
    token: null,
    payload: {
      redirect_uris: [REDIRECT],
      client_name: 'Bakery bot',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
  expect(registered.statusCode).toBe(201);
  clientId = registered.json<{ client_id: string }>().client_id;
  browser = new PageClient(api);
  await browser.signInAs(api.userId);
});
afterEach(() => api?.close());

/** Path and query of a redirect, to follow it in-process (the public address of this tier has port 0). */
function locationOf(res: LightMyRequestResponse): URL | undefined {
  const location = res.headers.location;
  return location === undefined ? undefined : new URL(String(location), 'http://localhost');
}

/**
 * Follows an authorization request through the provider's redirects to the consent page or to the
 * application's redirect URI (not followed: that is the application's). Returns the last answer.
 */
async function follow(url: string): Promise<{ res: LightMyRequestResponse; callback?: URL }> {
  let res = await browser.get(url);
  for (let hops = 0; hops < 10; hops += 1) {
    const next = locationOf(res);
    if (!next) return { res };
    if (String(res.headers.location).startsWith(REDIRECT))
      return { res, callback: new URL(String(res.headers.location)) };
    res = await browser.get(`${next.pathname}${next.search}`);
  }
  throw new Error('too many redirects');
}

function authorizeUrl(params: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'read:memories',
    state: 'st-1',
    ...params,
  })}`;
}

/** The consent page's interaction path (`/oauth/interaction/<uid>`) for an authorization request with PKCE. */
async function consentPage(): Promise<string> {
  const { res } = await follow(
    authorizeUrl({ code_challenge: s256(VERIFIER), code_challenge_method: 'S256' }),
  );
  expect(res.statusCode).toBe(200);
  expect(res.body).toContain('Allow <strong>Bakery bot</strong>');
  const action = /action="(\/oauth\/interaction\/[^"/]+)\/allow"/.exec(res.body)?.[1];
  expect(action).toBeDefined();
  return action as string;
}

/** Allows the pending consent with the page's CSRF token, and returns the code the application is sent. */
async function allow(interaction: string): Promise<string> {
  const decided = await browser.post(`${interaction}/allow`);
  expect(decided.statusCode).toBe(303);
  const next = locationOf(decided) as URL;
  const { callback } = await follow(`${next.pathname}${next.search}`);
  const code = callback?.searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  return code as string;
}

function tokenRequest(params: Record<string, string>): Promise<LightMyRequestResponse> {
  return api.inject({
    method: 'POST',
    url: '/oauth/token',
    token: null,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ client_id: clientId, ...params }).toString(),
  });
}

const redeem = (code: string, verifier = VERIFIER) =>
  tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
const refresh = (refreshToken: string) =>
  tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken });
/** A request the grant's scope (read:memories) allows. */
const memories = (accessToken: string) =>
  api.inject({ method: 'GET', url: '/api/v1/memories', token: accessToken });

describe('PKCE', () => {
  it('sends no code for an authorization request without a code_challenge, only invalid_request', async () => {
    const { callback } = await follow(authorizeUrl({}));

    expect(callback?.searchParams.get('error')).toBe('invalid_request');
    expect(callback?.searchParams.has('code')).toBe(false);
  });

  it('refuses a code redeemed with a wrong code_verifier, and redeems it with the right one', async () => {
    const code = await allow(await consentPage());

    const wrong = await redeem(code, 'w'.repeat(43));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_grant' });
    expect(wrong.json()).not.toHaveProperty('access_token');

    const right = await redeem(code);
    expect(right.statusCode).toBe(200);
    expect((await memories(right.json<Tokens>().access_token)).statusCode).toBe(200);
  });
});

describe('refresh tokens', () => {
  it('rotate, and one used again after its rotation revokes the whole grant', async () => {
    const first = (await redeem(await allow(await consentPage()))).json<Tokens>();
    const rotated = await refresh(first.refresh_token);
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json<Tokens>();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await memories(second.access_token)).statusCode).toBe(200);

    const reused = await refresh(first.refresh_token);

    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({ error: 'invalid_grant' });
    // The grant is gone: the rotated pair, which the reuse may have been stolen alongside, is dead too.
    expect((await memories(second.access_token)).statusCode).toBe(401);
    expect((await refresh(second.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the consent form', () => {
  it('refuses an allow or a deny without the session’s CSRF token, and sends no code', async () => {
    const interaction = await consentPage();
    const pageToken = browser.csrf;

    for (const decision of ['allow', 'deny']) {
      for (const csrf of [null, 'forged']) {
        const refused = await browser.post(`${interaction}/${decision}`, {}, csrf);
        expect({ decision, csrf, status: refused.statusCode, location: refused.headers.location }).toEqual({
          decision,
          csrf,
          status: 403,
          location: undefined,
        });
      }
    }

    // Still pending: the same page's form, with its token, is what lets the application in.
    browser.csrf = pageToken;
    expect(await allow(interaction)).toEqual(expect.any(String));
  });
});
