import type { IncomingHttpHeaders } from 'node:http';
import type { AddressPolicy } from '@assistant/tool-kit';
import { checkedGet, parseHttpUrl, readBody } from '@assistant/tools-web';

/**
 * What the authorization server may download of a URL a client names — a client ID metadata document (its
 * `client_id`), and in principle a `jwks_uri` or `sector_identifier_uri` — and how long it may take. The provider
 * checks each purpose against its own smaller limit (`fetchResponseBodyLimits`); this is the most any is read.
 */
export const CLIENT_DOCUMENT_LIMITS = {
  /** Bytes of a client ID metadata document (the provider's default: a document is a few hundred bytes). */
  metadataDocumentBytes: 5 * 1024,
  /** Bytes of a client's JWKS or sector identifier document. */
  otherDocumentBytes: 64 * 1024,
  /** For the whole fetch, connection to last byte (the provider gives each fetch 2.5 s of its own as well). */
  timeoutMs: 5_000,
} as const;

/** Bytes read of any response: one more than the largest limit, so that the provider can tell a larger one. */
const MAX_READ_BYTES = CLIENT_DOCUMENT_LIMITS.otherDocumentBytes + 1;

/** Statuses whose response may not have a body (a `Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, one);
  }
  return headers;
}

/**
 * The provider's `fetch` (every request it makes to a URL a client chose): one GET through the tools' pinned,
 * address-checked request (`checkedGet` of the web family: every address the name resolves to is checked against
 * `policy`, and the socket connects to the one checked, so a DNS answer that changes in between cannot slip
 * through — B5), no redirect followed, the body bounded in bytes and the whole in time. The dispatcher the
 * provider offers with its own special-use-address check is not used: `policy` decides, and it allows what the
 * operator allows (`ASSISTANT_ALLOW_PRIVATE_HOSTS`) and nothing private otherwise, on either deployment.
 */
export function clientDocumentFetch(policy: AddressPolicy) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' || input instanceof Request) {
      throw new TypeError('the authorization server fetches documents with a plain GET only');
    }
    const url = parseHttpUrl(String(input));
    const deadline = AbortSignal.timeout(CLIENT_DOCUMENT_LIMITS.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const accept = new Headers(init.headers).get('accept');
    const response = await checkedGet(url, {
      policy,
      signal,
      headers: accept ? { accept } : {},
    });
    const status = response.statusCode ?? 502;
    const headers = headersOf(response.headers);
    if (NO_BODY.has(status)) {
      response.resume();
      return new Response(null, { status, headers });
    }
    const { body } = await readBody(url, response, MAX_READ_BYTES, signal);
    return new Response(body, { status, headers });
  };
}
