/** What a token endpoint answers (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
}

/**
 * A refusal by the provider's endpoint, with its OAuth `error` code (`invalid_grant`, `invalid_client`, …), or
 * `unreachable`/`server_error` when it could not answer. Never carries a token or the client secret.
 */
export class OAuthEndpointError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OAuthEndpointError';
  }
}

const TIMEOUT_MS = 20_000;

/**
 * POSTs a form to a token or revocation endpoint with the client's credentials (in the body or as HTTP Basic,
 * RFC 6749 §2.3.1) and returns its JSON; an OAuth error answer becomes an `OAuthEndpointError`.
 */
export async function postForm(
  endpoint: string,
  clientAuth: 'client_secret_post' | 'client_secret_basic',
  client: { clientId: string; clientSecret: string },
  form: Record<string, string>,
  fetchImpl: typeof globalThis.fetch = globalThis.fetch,
  { expectJson = true }: { expectJson?: boolean } = {},
): Promise<TokenResponse> {
  const body = new URLSearchParams(form);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (clientAuth === 'client_secret_basic') {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`;
  } else {
    body.set('client_id', client.clientId);
    body.set('client_secret', client.clientSecret);
  }
  const host = new URL(endpoint).host;
  const response = await fetchImpl(endpoint, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((error: Error) => {
    throw new OAuthEndpointError('unreachable', `${host} could not be reached (${error.message})`);
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    if (expectJson && response.ok) {
      throw new OAuthEndpointError(
        'server_error',
        `${host} answered something that is not JSON`,
        response.status,
      );
    }
  }
  if (!response.ok) {
    const code =
      typeof json.error === 'string'
        ? json.error
        : response.status >= 500
          ? 'server_error'
          : 'invalid_request';
    const description = typeof json.error_description === 'string' ? `: ${json.error_description}` : '';
    throw new OAuthEndpointError(code, `${host} refused (${code}${description})`, response.status);
  }
  if (expectJson && typeof json.access_token !== 'string') {
    throw new OAuthEndpointError('server_error', `${host} answered without an access token`, response.status);
  }
  return json as unknown as TokenResponse;
}
