import type { IncomingMessage } from 'node:http';
import type { AddressPolicy, Resolver } from '@assistant/tool-kit';
import { checkedGet, parseHttpUrl, readBody, WebFetchError } from './checked-get';
import { readablePage } from './readable-page';

export interface FetchLimits {
  /** Bytes of the body read at most; the rest is not downloaded. */
  maxBytes: number;
  maxRedirects: number;
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  /** Characters of text handed back. */
  maxTextChars: number;
}

export const FETCH_LIMITS: FetchLimits = {
  maxBytes: 2_000_000,
  maxRedirects: 5,
  timeoutMs: 15_000,
  maxTextChars: 20_000,
};

export interface FetchedPage {
  /** Where the page was found, after redirects. */
  url: string;
  status: number;
  content_type: string;
  title?: string;
  /** The page's readable text, untrusted: data to read, never instructions. */
  text: string;
  /** True when the page was longer than the limits and was cut. */
  truncated: boolean;
}

const TEXT_TYPES = /^(text\/|application\/(?:json|xml|xhtml\+xml|[\w.+-]+\+(?:json|xml))\b)/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FetchOptions {
  policy: AddressPolicy;
  limits?: Partial<FetchLimits>;
  signal?: AbortSignal;
  /** The name resolver (the system's by default); tests give names addresses of their choosing. */
  resolve?: Resolver;
}

/**
 * Fetches an http(s) URL as readable text. Every address a name resolves to is checked against the policy, and
 * the connection goes to the address that was checked (the socket's own lookup does the check, so a DNS answer
 * that changes between check and connect cannot slip through); every redirect is checked again.
 */
export async function fetchPage(rawUrl: string, options: FetchOptions): Promise<FetchedPage> {
  const limits = { ...FETCH_LIMITS, ...options.limits };
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = parseHttpUrl(rawUrl);
  for (let hop = 0; ; hop++) {
    const response = await checkedGet(url, {
      policy: options.policy,
      resolve: options.resolve,
      signal,
      headers: {
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1',
      },
    }).catch((error: unknown) => {
      if (deadline.aborted)
        throw new WebFetchError(`${url.host} did not answer within ${limits.timeoutMs / 1000} s`);
      throw error;
    });
    if (REDIRECTS.has(response.statusCode ?? 0) && response.headers.location) {
      response.resume();
      if (hop >= limits.maxRedirects) throw new WebFetchError(`more than ${limits.maxRedirects} redirects`);
      url = parseHttpUrl(new URL(response.headers.location, url).href);
      continue;
    }
    return read(url, response, limits, signal);
  }
}

async function read(
  url: URL,
  response: IncomingMessage,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const contentType = String(response.headers['content-type'] ?? 'application/octet-stream');
  if (status >= 400) {
    response.resume();
    throw new WebFetchError(`${url.host} answered ${status} for ${url.pathname}`);
  }
  if (!TEXT_TYPES.test(contentType)) {
    response.resume();
    throw new WebFetchError(`${url.href} is not a text page (${contentType.split(';')[0]})`);
  }
  const { body: bytes, cut } = await readBody(url, response, limits.maxBytes, signal).catch((error) => {
    if (signal.aborted)
      throw new WebFetchError(`${url.host} did not finish sending within ${limits.timeoutMs / 1000} s`);
    throw error;
  });
  const body = decode(bytes, contentType);
  const { title, text } = HTML_TYPES.test(contentType)
    ? await readablePage(body, url.href, { signal })
    : { title: undefined, text: body.trim() };
  return {
    url: url.href,
    status,
    content_type: contentType.split(';')[0].trim(),
    title,
    text: text.slice(0, limits.maxTextChars),
    truncated: cut || text.length > limits.maxTextChars,
  };
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
