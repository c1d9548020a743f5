import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from '@assistant/tool-kit';
import { htmlTitle, htmlToText } from './html-text';

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

/** A fetch that cannot be made or is refused; the message is a plain sentence for the answer. */
export class WebFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebFetchError';
  }
}

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

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

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
    const response = await get(url, options.policy, options.resolve ?? systemResolver, signal).catch(
      (error: unknown) => {
        if (deadline.aborted)
          throw new WebFetchError(`${url.host} did not answer within ${limits.timeoutMs / 1000} s`);
        throw error;
      },
    );
    if (REDIRECTS.has(response.statusCode ?? 0) && response.headers.location) {
      response.resume();
      if (hop >= limits.maxRedirects) throw new WebFetchError(`more than ${limits.maxRedirects} redirects`);
      url = parseHttpUrl(new URL(response.headers.location, url).href);
      continue;
    }
    return read(url, response, limits, signal);
  }
}

function parseHttpUrl(raw: string): URL {
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

/** A socket lookup that resolves with `resolve` and refuses the name if any of its addresses is refused. */
function checkedLookup(policy: AddressPolicy, resolve: Resolver): LookupFunction {
  return (host, options, callback) => {
    resolve(host)
      .then(
        (addresses) => {
          if (addresses.length === 0) throw new WebFetchError(`${host} has no address`);
          for (const { address } of addresses) {
            const refusal = policy.refusal(host, address);
            if (refusal) throw new WebFetchError(refusal);
          }
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0].address, addresses[0].family);
        },
        (error: NodeJS.ErrnoException) => {
          if (error instanceof WebFetchError) return callback(error as NodeJS.ErrnoException, '', 0);
          callback(
            Object.assign(
              new WebFetchError(`${host} could not be resolved (${error.code ?? error.message})`),
              { code: error.code },
            ),
            '',
            0,
          );
        },
      )
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

function get(
  url: URL,
  policy: AddressPolicy,
  resolve: Resolver,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL itself is never looked up: check it here.
  if (isIP(host)) {
    const refusal = policy.refusal(host, host);
    if (refusal) return Promise.reject(new WebFetchError(refusal));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolveResponse, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        signal,
        lookup: checkedLookup(policy, resolve),
        headers: {
          'user-agent': 'Assistant web_fetch (+https://github.com/assistant)',
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1',
        },
      },
      resolveResponse,
    );
    req.on('error', (error) =>
      reject(
        error instanceof WebFetchError
          ? error
          : new WebFetchError(`${url.host} could not be reached: ${error.message}`),
      ),
    );
    req.end();
  });
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
  const chunks: Buffer[] = [];
  let bytes = 0;
  let cut = false;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= limits.maxBytes) {
        cut = true;
        break;
      }
    }
  } catch (error) {
    if (signal.aborted)
      throw new WebFetchError(`${url.host} did not finish sending within ${limits.timeoutMs / 1000} s`);
    throw new WebFetchError(`${url.host} broke off: ${(error as Error).message}`);
  } finally {
    response.destroy();
  }
  const body = decode(Buffer.concat(chunks).subarray(0, limits.maxBytes), contentType);
  const html = HTML_TYPES.test(contentType);
  const text = html ? htmlToText(body) : body.trim();
  return {
    url: url.href,
    status,
    content_type: contentType.split(';')[0].trim(),
    title: html ? htmlTitle(body) : undefined,
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
