import { ApiRequestError, AssistantClient, ConnectionError } from '@assistant/client';
import { LauncherError } from './options';

export interface CheckServerOptions {
  baseUrl: string;
  token: string;
  userAgent: string;
  timeoutMs?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Asks the server once, before relaying anything, whether it is there and takes the token (`GET /api/v1/me`),
 * so that a wrong setup fails at once with one clear line instead of as an MCP error deep inside the client.
 * A 403 (the token lacks `read:account`) still means the token is valid. Throws LauncherError otherwise.
 */
export async function checkServer(options: CheckServerOptions): Promise<void> {
  const { baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const client = new AssistantClient({
    baseUrl,
    token: options.token,
    userAgent: options.userAgent,
    fetch: options.fetch,
    validateResponses: false,
  });
  try {
    await client.call('getMe', undefined, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if (error instanceof ApiRequestError) {
      if (error.status === 403) return;
      if (error.status === 401) {
        throw new LauncherError(
          `the server at ${baseUrl} refused the token (401); create a new one on /profile`,
        );
      }
      throw new LauncherError(
        `the server at ${baseUrl} answered ${error.status} to GET /api/v1/me (${error.detail}); is it an Assistant server?`,
      );
    }
    if (error instanceof ConnectionError) {
      const hint = LOOPBACK.has(new URL(baseUrl).hostname)
        ? 'start one with assistant serve'
        : 'check the address and your network';
      throw new LauncherError(
        `no server answers at ${baseUrl}${error.reason ? ` (${error.reason})` : ''}; ${hint}`,
      );
    }
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      throw new LauncherError(`the server at ${baseUrl} did not answer within ${timeoutMs / 1000} s`);
    }
    throw new LauncherError(
      `the server at ${baseUrl} gave an unexpected answer to GET /api/v1/me: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
