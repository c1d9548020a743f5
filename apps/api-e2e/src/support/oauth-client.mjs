#!/usr/bin/env node
/**
 * A third-party application's side of OAuth, done by an independent client library (openid-client, which is
 * ESM-only and so runs in its own process rather than inside jest). One step per run; input and output are JSON:
 *
 *   node oauth-client.mjs register <issuer> '{"redirect_uri": …, "client_name": …}'  → {client_id}
 *   node oauth-client.mjs start    <issuer> '{"client_id", "redirect_uri", "scope"}'  → {url, verifier, state}
 *   node oauth-client.mjs exchange <issuer> '{"client_id", "callback", "verifier", "state"}' → tokens
 *   node oauth-client.mjs refresh  <issuer> '{"client_id", "refresh_token", "scope"?}' → tokens
 *   node oauth-client.mjs revoke   <issuer> '{"client_id", "token"}'                  → {}
 *
 * Discovery goes through RFC 8414's /.well-known/oauth-authorization-server. A failure prints
 * {"error", "error_description"} and exits 1.
 */
import * as client from 'openid-client';

const [step, issuer, raw] = process.argv.slice(2);
const input = JSON.parse(raw ?? '{}');
const insecure = { execute: [client.allowInsecureRequests], algorithm: 'oauth2' };

const configure = (clientId) =>
  client.discovery(
    new URL(issuer),
    clientId,
    { token_endpoint_auth_method: 'none' },
    client.None(),
    insecure,
  );

const tokens = (t) => ({
  access_token: t.access_token,
  refresh_token: t.refresh_token,
  token_type: t.token_type,
  expires_in: t.expires_in,
  scope: t.scope,
});

const steps = {
  async register() {
    const config = await client.dynamicClientRegistration(
      new URL(issuer),
      {
        redirect_uris: [input.redirect_uri],
        client_name: input.client_name,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      client.None(),
      insecure,
    );
    return { client_id: config.clientMetadata().client_id };
  },
  async start() {
    const config = await configure(input.client_id);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: input.redirect_uri,
      scope: input.scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    return { url: url.href, verifier, state };
  },
  async exchange() {
    const config = await configure(input.client_id);
    return tokens(
      await client.authorizationCodeGrant(config, new URL(input.callback), {
        pkceCodeVerifier: input.verifier,
        expectedState: input.state,
      }),
    );
  },
  async refresh() {
    const config = await configure(input.client_id);
    return tokens(
      await client.refreshTokenGrant(config, input.refresh_token, input.scope ? { scope: input.scope } : {}),
    );
  },
  async revoke() {
    const config = await configure(input.client_id);
    await client.tokenRevocation(config, input.token);
    return {};
  },
};

try {
  process.stdout.write(`${JSON.stringify(await steps[step]())}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ error: error.error ?? error.code ?? 'failed', error_description: error.error_description ?? error.message })}\n`,
  );
  process.exit(1);
}
