import type { ResolvedConnection } from '@assistant/client/local';

export type ClientModule = typeof import('@assistant/client');

/** Whether a server URL is this machine only (a phone cannot reach it; `assistant serve` is the one to start). */
export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/** Where the command took its token from, as the user would name it. */
export function tokenSource(connection: ResolvedConnection): string {
  if (connection.source === 'flag') return '--token';
  if (connection.source === 'env') return 'ASSISTANT_API_TOKEN';
  return connection.credentialsFile;
}

/** The line for a server that could not be reached, or undefined for any other failure. */
export function unreachable(
  lib: ClientModule,
  connection: ResolvedConnection,
  error: unknown,
): string | undefined {
  if (!(error instanceof lib.ConnectionError)) return undefined;
  const url = connection.baseUrl;
  return isLoopback(url)
    ? `cannot reach the Assistant server at ${url}; is \`assistant serve\` running?`
    : `cannot reach the Assistant server at ${url}${error.reason ? ` (${error.reason})` : ''}`;
}
