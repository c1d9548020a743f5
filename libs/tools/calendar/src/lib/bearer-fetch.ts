import type { AccessTokenSource } from '@assistant/tool-kit';

/**
 * A fetch that sends the connection's access token with every request, and when the server answers 401 (the
 * token expired or was revoked before its time) asks the source for a fresh one and tries once more. The request
 * bodies the calendar drivers send are strings, so a retry sends the same body again.
 */
export function bearerFetch(tokens: AccessTokenSource, base: typeof fetch = globalThis.fetch): typeof fetch {
  const send = (input: Parameters<typeof fetch>[0], init: RequestInit | undefined, token: string) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return base(input, { ...init, headers });
  };
  return async (input, init) => {
    const token = await tokens.accessToken();
    const response = await send(input, init, token);
    if (response.status !== 401) return response;
    const fresh = await tokens.accessToken({ rejected: token });
    if (fresh === token) return response;
    await response.body?.cancel();
    return send(input, init, fresh);
  };
}
