/**
 * The authorization server's boundaries against the built servers (oidc-provider is ESM-only, so it is tested end
 * to end): whose browser session an authorization follows, and that no other account or browser reaches a
 * person's consent page, decision or integrations (B1, B3, B4), what its metadata, pages and cookies say about
 * where it is (B4, B9), what it counts and keeps (B7), what it registers (B3, B7), that it issues no ID token it
 * could not stand behind (B8), and client ID metadata documents fetched only where the operator allows (B5).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3-node20';
import { RATE_LIMIT_HEADERS } from '@assistant/contracts';
import { CookieBrowser } from './support/browser';
import { BUILT, startServer } from './support/processes';
import { selfSignedCertificate } from './support/self-signed-certificate';
import { startHosted, type Target } from './support/targets';

const REDIRECT = 'http://127.0.0.1:9/callback';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const PASSWORD = 'a long enough password';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** The authorization request of an application, with PKCE. */
function authorizeUrl(base: string, params: Record<string, string>): string {
  return `${base}/oauth/authorize?${new URLSearchParams({
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'st-1',
    scope: 'read:memories',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  })}`;
}

/** RFC 7591 registration, as an application would send it. */
async function register(
  base: string,
  metadata: Json,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...metadata,
    }),
  });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

async function registeredClient(base: string, name = 'Bakery bot'): Promise<string> {
  const { status, body } = await register(base, { client_name: name, redirect_uris: [REDIRECT] });
  expect(status).toBe(201);
  return String(body.client_id);
}

/** The code of a callback, redeemed for tokens. */
async function redeem(base: string, clientId: string, callback: URL | undefined): Promise<Json> {
  const code = callback?.searchParams.get('code');
  expect({ code, error: callback?.searchParams.get('error') }).toEqual({
    code: expect.any(String),
    error: null,
  });
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code as string,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    }).toString(),
  });
  const tokens = (await response.json()) as Json;
  expect(tokens.access_token).toEqual(expect.any(String));
  return tokens;
}

async function emailOfToken(base: string, accessToken: string): Promise<string> {
  const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(me.status).toBe(200);
  return ((await me.json()) as Json).email as string;
}

/** A GET with a Host header of the caller's choosing (fetch would not send one). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Every URL of the authorization server's metadata (issuer, endpoints, jwks_uri) that is not on `origin`. */
function urlsElsewhere(metadata: Json, origin: string): string[] {
  return Object.entries(metadata)
    .filter(([key]) => key === 'issuer' || key === 'jwks_uri' || key.endsWith('_endpoint'))
    .map(([, value]) => String(value))
    .filter((url) => url !== origin && !url.startsWith(`${origin}/`));
}

/** `assistant serve` on a data directory of its own, and a browser signed in as its owner (unless told not to). */
async function signedInSelfHost(env: Record<string, string> = {}, { signIn = true } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'assistant-oauth-boundaries-'));
  const server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], env);
  const browser = new CookieBrowser(server.url);
  if (signIn) {
    const link = /(http:\/\/\S+\/signin\/link\?token=[\w-]+)/.exec(server.output())?.[1];
    expect(link).toBeDefined();
    await browser.request(link as string);
  }
  return {
    dataDir,
    server,
    browser,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the authorization server on a self-hosted server', () => {
  let setup: Awaited<ReturnType<typeof signedInSelfHost>>;
  let base: string;
  let clientId: string;

  beforeAll(async () => {
    setup = await signedInSelfHost();
    base = setup.server.url;
    clientId = await registeredClient(base);
  });
  afterAll(() => setup?.stop());

  it('counts /oauth/ requests in the auth bucket and says so in the rate-limit headers', async () => {
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=nothing',
    });
    const authorize = await fetch(authorizeUrl(base, { client_id: clientId }), { redirect: 'manual' });
    for (const response of [token, authorize]) {
      expect(response.headers.get(RATE_LIMIT_HEADERS.resource)).toBe('auth');
      expect(response.headers.get(RATE_LIMIT_HEADERS.limit)).toMatch(/^\d+$/);
      expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(Number(authorize.headers.get(RATE_LIMIT_HEADERS.remaining))).toBe(
      Number(token.headers.get(RATE_LIMIT_HEADERS.remaining)) - 1,
    );
  });

  it('keeps a registered client a day unless someone lets it in: unused registrations are purged', async () => {
    const id = await registeredClient(base, 'Passing through');
    const expiry = () => {
      const db = new Database(join(setup.dataDir, 'assistant.sqlite'), { readonly: true });
      try {
        const row = db
          .prepare(`SELECT expires_at FROM oauth_records WHERE kind = 'Client' AND id = ?`)
          .get(id) as { expires_at: string | null };
        return row.expires_at === null ? null : new Date(`${row.expires_at.replace(' ', 'T')}Z`).getTime();
      } finally {
        db.close();
      }
    };
    const registered = expiry();
    expect(registered).not.toBeNull();
    expect(Math.abs((registered as number) - (Date.now() + 24 * 3600_000))).toBeLessThan(10 * 60_000);

    const { callback, consented } = await setup.browser.authorize(authorizeUrl(base, { client_id: id }));
    expect(consented).toBe(true);
    expect(callback?.searchParams.get('code')).toEqual(expect.any(String));
    expect(expiry()).toBeNull();
  });

  it('takes the endpoints in its metadata from its own address, never from the Host header', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const { status, body } = await getWithHost(`${base}${path}`, 'evil.test');
      expect(status).toBe(200);
      const metadata = JSON.parse(body) as Json;
      expect(metadata.issuer).toBe(base);
      expect(metadata.token_endpoint).toBe(`${base}/oauth/token`);
      expect(urlsElsewhere(metadata, base)).toEqual([]);
    }
  });

  it('answers its error pages with the pages’ kit and headers, and has no pages of its own', async () => {
    const response = await fetch(authorizeUrl(base, { client_id: clientId, redirect_uri: `${REDIRECT}x` }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await response.text();
    expect(body).toContain('/assets/pages.css');
    expect(body).not.toMatch(/googleapis|<script|<style/i);

    for (const [method, path] of [
      ['GET', '/oauth/userinfo'],
      ['GET', `/oauth/logout?client_id=${clientId}`],
      ['POST', '/oauth/logout/confirm'],
      ['GET', '/oauth/device'],
    ]) {
      const answer = await fetch(`${base}${path}`, { method });
      expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({
        path,
        status: 404,
        type: expect.stringContaining('application/problem+json'),
      });
    }
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(metadata).not.toHaveProperty('end_session_endpoint');
    expect(metadata).not.toHaveProperty('userinfo_endpoint');
    expect(metadata.response_modes_supported).toEqual(['query']);
  });

  it('refuses the openid scope, so that it never signs an ID token', async () => {
    for (const scope of ['openid', 'openid read:memories']) {
      const { callback } = await setup.browser.authorize(authorizeUrl(base, { client_id: clientId, scope }));
      expect({ scope, error: callback?.searchParams.get('error') }).toEqual({
        scope,
        error: 'invalid_scope',
      });
    }
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(metadata.scopes_supported).not.toContain('openid');
    expect(metadata.scopes_supported).toContain('read:memories');
    for (const openIdOnly of [
      'jwks_uri',
      'claims_supported',
      'claim_types_supported',
      'id_token_signing_alg_values_supported',
      'subject_types_supported',
    ]) {
      expect(metadata).not.toHaveProperty(openIdOnly);
    }
  });

  it('registers https redirect URIs, and http ones on this machine only; few of them, and short well-formed names', async () => {
    const refused = [
      { client_name: 'Far away', redirect_uris: ['http://bot.example.com/cb'] },
      {
        client_name: 'Many',
        redirect_uris: Array.from({ length: 11 }, (_, i) => `https://bot.example.com/cb${i}`),
      },
      { client_name: 'n'.repeat(50_000), redirect_uris: [REDIRECT] },
      { client_name: 'Half \ud800 a character', redirect_uris: [REDIRECT] },
      { client_name: 'Nul\u0000', redirect_uris: [REDIRECT] },
      { client_name: 'Script', redirect_uris: ['javascript:alert(1)'], application_type: 'native' },
    ];
    for (const metadata of refused) {
      const { status, body } = await register(base, metadata);
      expect({ name: metadata.client_name.slice(0, 20), status, error: body.error }).toEqual({
        name: metadata.client_name.slice(0, 20),
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
    const accepted = await register(base, {
      client_name: 'Near by',
      redirect_uris: ['https://bot.example.com/cb', 'http://127.0.0.1:8123/cb', 'http://localhost/cb'],
    });
    expect(accepted.status).toBe(201);
  });
});

describe('the authorization server behind an https public address', () => {
  const PUBLIC = 'https://assistant.example.test';
  let target: Awaited<ReturnType<typeof signedInSelfHost>>;

  beforeAll(async () => {
    target = await signedInSelfHost({ ASSISTANT_PUBLIC_URL: PUBLIC }, { signIn: false });
  });
  afterAll(() => target?.stop());

  it('puts its issuer and every endpoint on the public address', async () => {
    const metadata = (await (
      await fetch(`${target.server.url}/.well-known/oauth-authorization-server`)
    ).json()) as Json;
    expect(metadata.issuer).toBe(PUBLIC);
    expect(metadata.authorization_endpoint).toBe(`${PUBLIC}/oauth/authorize`);
    expect(urlsElsewhere(metadata, PUBLIC)).toEqual([]);
  });

  it('marks every cookie it sets Secure', async () => {
    const clientId = await registeredClient(target.server.url);
    const response = await fetch(authorizeUrl(target.server.url, { client_id: clientId }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    const cookies = response.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*secure/i);
  });
});

describe('dynamic client registration, per address', () => {
  let target: Awaited<ReturnType<typeof signedInSelfHost>>;

  beforeAll(async () => {
    target = await signedInSelfHost({}, { signIn: false });
  });
  afterAll(() => target?.stop());

  it('registers at most 20 clients an hour from one address; the next is 429 with Retry-After', async () => {
    for (let i = 0; i < 20; i++) await registeredClient(target.server.url, `App ${i}`);
    const { status, body, headers } = await register(target.server.url, {
      client_name: 'One too many',
      redirect_uris: [REDIRECT],
    });
    expect(status).toBe(429);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body.code).toBe('rate_limited');
    expect(headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

/** An application's client ID metadata document, served over https on this machine with a self-signed certificate. */
class MetadataDocuments {
  readonly fetched: string[] = [];
  private server?: HttpsServer;
  url = '';
  readonly certificate = selfSignedCertificate();
  readonly certificateFile: string;
  private readonly dir = mkdtempSync(join(tmpdir(), 'assistant-cimd-'));

  constructor() {
    this.certificateFile = join(this.dir, 'ca.pem');
    writeFileSync(this.certificateFile, this.certificate.cert);
  }

  /** The client_id of the document at `path`. */
  clientId(path: string): string {
    return `${this.url}${path}`;
  }

  async start(): Promise<void> {
    this.server = createHttpsServer(this.certificate, (request, response) => {
      this.fetched.push(String(request.url));
      const clientId = this.clientId(String(request.url));
      const document: Json = {
        client_id: clientId,
        client_name: 'Notebook app',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      };
      if (request.url === '/large.json') document.padding = 'x'.repeat(20_000);
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
      response.end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('client ID metadata documents', () => {
  const documents = new MetadataDocuments();
  /** Trusts the documents' certificate, but has no say about private addresses: they stay refused. */
  let trusting: Awaited<ReturnType<typeof signedInSelfHost>>;
  /** Trusts it, and its operator allows this machine's address (`ASSISTANT_ALLOW_PRIVATE_HOSTS`). */
  let allowing: Awaited<ReturnType<typeof signedInSelfHost>>;

  beforeAll(async () => {
    await documents.start();
    const trust = { NODE_EXTRA_CA_CERTS: documents.certificateFile };
    trusting = await signedInSelfHost(trust);
    allowing = await signedInSelfHost({ ...trust, ASSISTANT_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' });
  });
  afterAll(async () => {
    await trusting?.stop();
    await allowing?.stop();
    await documents.stop();
  });

  it('says in its metadata that it takes them', async () => {
    const base = allowing.server.url;
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.registration_endpoint).toBe(`${base}/oauth/register`);
  });

  it('lets a client known by its document through the code flow with PKCE, fetching the document once', async () => {
    const base = allowing.server.url;
    const clientId = documents.clientId('/app.json');
    const { callback, page, consented } = await allowing.browser.authorize(
      authorizeUrl(base, { client_id: clientId, scope: 'read:account' }),
    );
    expect(page).toBeUndefined();
    expect(consented).toBe(true);
    const tokens = await redeem(base, clientId, callback);
    const me = await fetch(`${base}/api/v1/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(((await me.json()) as Json).token).toMatchObject({ kind: 'oauth_access', client_id: clientId });

    // A second authorization of the same application reads the cached document.
    const again = await allowing.browser.authorize(authorizeUrl(base, { client_id: clientId }));
    expect(again.callback?.searchParams.get('code')).toEqual(expect.any(String));
    expect(documents.fetched.filter((path) => path === '/app.json')).toHaveLength(1);
  });

  it('shows the document’s name on the consent page', async () => {
    const browser = allowing.browser;
    let next = authorizeUrl(allowing.server.url, { client_id: documents.clientId('/named.json') });
    let response = await browser.request(next);
    for (let hops = 0; response.status === 303 && hops < 5; hops++) {
      next = new URL(response.headers.get('location') as string, next).href;
      response = await browser.request(next);
    }
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Allow <strong>Notebook app</strong>');
  });

  it('lists an application known by its document among the integrations, and revokes it', async () => {
    const base = allowing.server.url;
    const clientId = documents.clientId('/app.json');
    const owner = JSON.parse(readFileSync(join(allowing.dataDir, 'credentials.json'), 'utf8')) as {
      token: string;
    };
    const asOwner = (path: string, method = 'GET') =>
      fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${owner.token}` } });
    const listed = (await (await asOwner('/integrations')).json()) as Json;
    expect(listed.data).toContainEqual(expect.objectContaining({ client_id: clientId }));
    expect((await asOwner(`/integrations/${encodeURIComponent(clientId)}`, 'DELETE')).status).toBe(204);
  });

  it('refuses a document larger than 5 KiB', async () => {
    const { callback, page } = await allowing.browser.authorize(
      authorizeUrl(allowing.server.url, { client_id: documents.clientId('/large.json') }),
    );
    expect(callback).toBeUndefined();
    expect(page?.status).toBe(400);
  });

  it('never fetches a document from a private address unless the operator allows it', async () => {
    const before = documents.fetched.length;
    const { callback, page } = await trusting.browser.authorize(
      authorizeUrl(trusting.server.url, { client_id: documents.clientId('/private.json') }),
    );
    expect(callback).toBeUndefined();
    expect(page?.status).toBe(400);
    expect(documents.fetched.length).toBe(before);
  });
});

describe('two people on one browser (hosted)', () => {
  let target: Target;
  let base: string;
  let appX: string;
  let appY: string;

  /** Makes an account for `email` (sign-up answers with the sign-in page: it does not sign in). */
  async function account(email: string): Promise<string> {
    const response = await new CookieBrowser(base).submit('/signup', { email, password: PASSWORD });
    expect(response.status).toBe(200);
    return email;
  }
  /** Signs in with the form of `formPage`: the sign-in page, or /profile's when someone is signed in already. */
  async function signIn(
    browser: CookieBrowser,
    email: string,
    { returnTo, formPage = '/signin' }: { returnTo?: string; formPage?: string } = {},
  ): Promise<Response> {
    const response = await browser.submit(
      '/signin',
      { email, password: PASSWORD, ...(returnTo ? { return_to: returnTo } : {}) },
      formPage,
    );
    expect(response.status).toBe(303);
    return response;
  }
  /** A browser in which `email` has just made an account and signed in. */
  async function signUp(browser: CookieBrowser, email: string): Promise<void> {
    await signIn(browser, await account(email));
  }
  async function signOut(browser: CookieBrowser): Promise<void> {
    expect((await browser.submit('/signout', {}, '/profile')).status).toBe(303);
  }
  /** Approves `clientId` in `browser` and returns whose token the application got. */
  async function tokenOwner(
    browser: CookieBrowser,
    clientId: string,
  ): Promise<{ email: string; consented: boolean }> {
    const { callback, consented } = await browser.authorize(
      authorizeUrl(base, { client_id: clientId, scope: 'read:account' }),
    );
    const tokens = await redeem(base, clientId, callback);
    return { email: await emailOfToken(base, tokens.access_token), consented };
  }

  beforeAll(async () => {
    target = await startHosted();
    base = target.url;
    appX = await registeredClient(base, 'App X');
    appY = await registeredClient(base, 'App Y');
  });
  afterAll(() => target?.stop());

  it('after one person signs out, the next gets a consent page of their own and a token of their own', async () => {
    const browser = new CookieBrowser(base);
    await signUp(browser, 'erin@example.test');
    expect(await tokenOwner(browser, appX)).toEqual({ email: 'erin@example.test', consented: true });
    await signOut(browser);

    await signUp(browser, 'frank@example.test');
    expect(await tokenOwner(browser, appX)).toEqual({ email: 'frank@example.test', consented: true });
  });

  it('signed out, even an application the person approved gets no code until someone signs in', async () => {
    const browser = new CookieBrowser(base);
    await signUp(browser, 'erin2@example.test');
    expect((await tokenOwner(browser, appX)).email).toBe('erin2@example.test');
    await signOut(browser);

    const { callback, page } = await browser.authorize(
      authorizeUrl(base, { client_id: appX, scope: 'read:account' }),
    );
    expect(callback).toBeUndefined();
    expect(page?.status).toBe(200);
    expect(page?.body).toContain('<h1>Sign in</h1>');
  });

  it('an application never approved, opened signed out, asks for one sign-in, then for the consent of whoever signed in', async () => {
    const frank = await account('frank3@example.test');
    const browser = new CookieBrowser(base);
    await signUp(browser, 'erin3@example.test');
    expect((await tokenOwner(browser, appX)).email).toBe('erin3@example.test');
    await signOut(browser);

    const signInPage = await browser.authorize(
      authorizeUrl(base, { client_id: appY, scope: 'read:account' }),
    );
    expect(signInPage.page?.body).toContain('<h1>Sign in</h1>');
    const returnTo = /name="return_to" value="([^"]+)"/.exec(signInPage.page?.body ?? '')?.[1];
    expect(returnTo).toMatch(/^\/oauth\/interaction\//);

    const signedIn = await signIn(browser, frank, { returnTo });
    const { callback, consented } = await browser.authorize(
      new URL(signedIn.headers.get('location') as string, base).href,
    );
    expect(consented).toBe(true);
    const tokens = await redeem(base, appY, callback);
    expect(await emailOfToken(base, tokens.access_token)).toBe(frank);
  });

  it('signing in as someone else without signing out hands over no authorization of the first', async () => {
    const frank = await account('frank4@example.test');
    const browser = new CookieBrowser(base);
    await signUp(browser, 'erin4@example.test');
    expect((await tokenOwner(browser, appX)).email).toBe('erin4@example.test');

    await signIn(browser, frank, { formPage: '/profile' });
    expect(await tokenOwner(browser, appX)).toEqual({ email: frank, consented: true });
  });

  it('a consent page left open while someone else signs in asks the new person, and never answers for the first', async () => {
    const frank = await account('frank5@example.test');
    const browser = new CookieBrowser(base);
    await signUp(browser, 'erin5@example.test');
    expect((await tokenOwner(browser, appX)).email).toBe('erin5@example.test');
    const consentPage = (
      await browser.request(authorizeUrl(base, { client_id: appY, scope: 'read:account' }))
    ).headers.get('location') as string;
    expect(consentPage).toMatch(/\/oauth\/interaction\//);

    await signIn(browser, frank, { formPage: '/profile' });
    const { callback, consented } = await browser.authorize(new URL(consentPage, base).href);
    expect(consented).toBe(true);
    const tokens = await redeem(base, appY, callback);
    expect(await emailOfToken(base, tokens.access_token)).toBe(frank);
  });
});

describe('one person’s authorizations, seen from another account (hosted)', () => {
  let target: Target;
  let base: string;
  let app: string;

  /** A browser in which `email` has just made an account and signed in. */
  async function signedUp(email: string): Promise<CookieBrowser> {
    expect((await new CookieBrowser(base).submit('/signup', { email, password: PASSWORD })).status).toBe(200);
    const browser = new CookieBrowser(base);
    expect((await browser.submit('/signin', { email, password: PASSWORD })).status).toBe(303);
    return browser;
  }
  /** Follows the authorization request of `app` in `browser` to its consent page; returns that page's path. */
  async function consentPage(browser: CookieBrowser): Promise<string> {
    let next = authorizeUrl(base, { client_id: app, scope: 'read:account' });
    let response = await browser.request(next);
    for (let hops = 0; response.status === 303 && hops < 5; hops++) {
      next = new URL(response.headers.get('location') as string, next).href;
      response = await browser.request(next);
    }
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Allow <strong>Mail sorter</strong>');
    return new URL(next).pathname;
  }
  /** Posts the consent page's `decision` form at `page`, with `csrf` (or none). */
  function decide(browser: CookieBrowser, page: string, decision: string, csrf?: string): Promise<Response> {
    return browser.request(`${page}/${decision}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(csrf === undefined ? {} : { csrf }).toString(),
    });
  }

  beforeAll(async () => {
    target = await startHosted();
    base = target.url;
    app = await registeredClient(base, 'Mail sorter');
  });
  afterAll(() => target?.stop());

  it('another account never sees an application among its integrations, nor revokes it', async () => {
    const browser = await signedUp('gina@example.test');
    const { callback } = await browser.authorize(
      authorizeUrl(base, { client_id: app, scope: 'read:account' }),
    );
    const tokens = await redeem(base, app, callback);

    const asOther = (path: string, method = 'GET') =>
      fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${target.otherToken}` } });
    const listed = (await (await asOther('/integrations')).json()) as Json;
    expect(listed.data.map((integration: Json) => integration.client_id)).not.toContain(app);
    const revoked = await asOther(`/integrations/${encodeURIComponent(app)}`, 'DELETE');
    expect(revoked.status).toBe(404);
    expect(revoked.headers.get('content-type')).toContain('application/problem+json');

    expect(await emailOfToken(base, tokens.access_token)).toBe('gina@example.test');
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: app,
        refresh_token: tokens.refresh_token,
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
  });

  it('a consent page opened in another browser, signed in as someone else, neither shows nor decides anything', async () => {
    const gina = await signedUp('gina2@example.test');
    const page = await consentPage(gina);
    const hank = await signedUp('hank2@example.test');

    const shown = await hank.request(page);
    const body = await shown.text();
    expect({ status: shown.status, location: shown.headers.get('location') }).toEqual({
      status: 400,
      location: null,
    });
    expect(body).not.toContain('gina2@example.test');
    expect(body).not.toContain('Mail sorter');
    expect(body).not.toMatch(/<form method="post" action="[^"]*\/oauth\/interaction\//);

    const csrf = await hank.csrfOf('/profile');
    for (const decision of ['allow', 'deny']) {
      const answer = await decide(hank, page, decision, csrf);
      expect({ decision, status: answer.status, location: answer.headers.get('location') }).toEqual({
        decision,
        status: 400,
        location: null,
      });
    }

    // The page is still the first person's own, in their browser.
    const { callback, consented } = await gina.authorize(`${base}${page}`);
    expect(consented).toBe(true);
    expect(await emailOfToken(base, (await redeem(base, app, callback)).access_token)).toBe(
      'gina2@example.test',
    );
  });

  it('refuses an allow or a deny without the session’s CSRF token, and issues no code', async () => {
    const gina = await signedUp('gina3@example.test');
    const page = await consentPage(gina);
    const otherBrowsersToken = await (await signedUp('hank3@example.test')).csrfOf('/profile');
    for (const decision of ['allow', 'deny']) {
      for (const csrf of [undefined, '', 'forged', otherBrowsersToken]) {
        const answer = await decide(gina, page, decision, csrf);
        expect({ decision, csrf, status: answer.status, location: answer.headers.get('location') }).toEqual({
          decision,
          csrf,
          status: 403,
          location: null,
        });
      }
    }
    const { callback, consented } = await gina.authorize(`${base}${page}`);
    expect(consented).toBe(true);
    expect(await emailOfToken(base, (await redeem(base, app, callback)).access_token)).toBe(
      'gina3@example.test',
    );
  });

  it('an allow sent after someone else signed in on the browser starts the request again for them: no code for the first', async () => {
    const hank = 'hank4@example.test';
    await signedUp(hank);
    const browser = await signedUp('gina4@example.test');
    const page = await consentPage(browser);
    expect((await browser.submit('/signin', { email: hank, password: PASSWORD }, '/profile')).status).toBe(
      303,
    );

    const answer = await decide(browser, page, 'allow', await browser.csrfOf('/profile'));
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location') as string, base);
    expect(location.origin).toBe(base);
    expect(location.pathname).toBe('/oauth/authorize');

    const { callback, consented } = await browser.authorize(location.href);
    expect(consented).toBe(true);
    expect(await emailOfToken(base, (await redeem(base, app, callback)).access_token)).toBe(hank);
  });
});
