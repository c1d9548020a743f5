import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AddressRefusedError, policyLookup, type AddressPolicy, type Resolver } from '@assistant/tool-kit';

/** A request that cannot be made or is refused; the message is a plain sentence for the answer. */
export class WebFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebFetchError';
  }
}

export interface CheckedGetOptions {
  policy: AddressPolicy;
  signal: AbortSignal;
  headers?: Record<string, string>;
  /** The name resolver (the system's by default); tests give names addresses of their choosing. */
  resolve?: Resolver;
}

/** An http(s) URL without credentials in it, or a WebFetchError saying what is wrong with it. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebFetchError(`"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchError(`only http and https pages can be fetched, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username || url.password)
    throw new WebFetchError('URLs with a user name or password are not fetched');
  return url;
}

/**
 * One GET, connected only to an address the policy allows: the socket's own lookup resolves the name and checks
 * every address it got, and the socket connects to the one checked, so a DNS answer that changes between check
 * and connect cannot slip through. Redirects are the caller's to follow (and so to check again).
 */
export function checkedGet(url: URL, options: CheckedGetOptions): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL itself is never looked up: check it here.
  if (isIP(host)) {
    const refusal = options.policy.refusal(host, host);
    if (refusal) return Promise.reject(new WebFetchError(refusal));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolveResponse, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        signal: options.signal,
        lookup: policyLookup(options.policy, options.resolve),
        headers: { 'user-agent': 'Assistant (+https://github.com/assistant)', ...options.headers },
      },
      resolveResponse,
    );
    req.on('error', (error) =>
      reject(
        error instanceof AddressRefusedError
          ? new WebFetchError(error.message)
          : new WebFetchError(`${url.host} could not be reached: ${error.message}`),
      ),
    );
    req.end();
  });
}

/** A response's body up to `maxBytes` (the rest is not downloaded), and whether it was cut there. */
export async function readBody(
  url: URL,
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let cut = false;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= maxBytes) {
        cut = true;
        break;
      }
    }
  } catch (error) {
    if (signal.aborted) throw new WebFetchError(`${url.host} did not finish sending in time`);
    throw new WebFetchError(`${url.host} broke off: ${(error as Error).message}`);
  } finally {
    response.destroy();
  }
  return { body: Buffer.concat(chunks).subarray(0, maxBytes), cut };
}
