import type { FastifyReply } from 'fastify';
import { STYLESHEET_PATH } from './stylesheet';

/**
 * The pages outside /api/v1 (sign-in, /profile, OAuth consent): server-rendered HTML, no scripts. Everything a
 * page shows goes through `escapeHtml`, directly or through the `html` template tag below, which escapes every
 * value put into it unless that value is itself `html`.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML content and for quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

const TRUSTED = Symbol('html');

/** A piece of markup built by `html`: its values are escaped already. */
export interface Html {
  readonly [TRUSTED]: string;
}

type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && TRUSTED in value;
}

function markupOf(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (isHtml(value)) return value[TRUSTED];
  if (Array.isArray(value)) return value.map(markupOf).join('');
  return escapeHtml(String(value));
}

/**
 * Template tag for markup: `html\`<p>${name}</p>\`` escapes `name`; nested `html` values, and lists of them, are
 * kept as they are; null, undefined and false leave nothing (for `${cond && html\`…\`}`).
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += markupOf(value) + strings[i + 1]));
  return { [TRUSTED]: out };
}

/** The markup of an `html` value, for a body given as a string. */
export function markup(value: Html): string {
  return value[TRUSTED];
}

/**
 * Headers of every page. No script may run and nothing may load from elsewhere (the only resource is our
 * stylesheet); no other site may frame a page (clickjacking a consent or revoke button), in the header modern
 * browsers read and the one older ones do; a page holds a user's data or a secret shown once, so no cache keeps
 * it; a sign-in link's token is in the URL, so no Referer carries the URL anywhere.
 *
 * `form-action` is left out on purpose: browsers apply it to every redirect after a form is sent, and the OAuth
 * consent form ends in a redirect to the third-party application.
 */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
} as const;

export interface PageContent {
  /** The page's title, as text (escaped here). */
  title: string;
  /** The inside of `<main>`: `html` markup, or a string of markup whose values the caller escaped. */
  body: Html | string;
  /** 200 when absent. */
  status?: number;
}

/** Sends a whole page: the shared layout around `body`, with PAGE_HEADERS. */
export function renderPage(reply: FastifyReply, { title, body, status = 200 }: PageContent): FastifyReply {
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(pageDocument({ title, body }));
}

/** The markup of a whole page: the shared layout around `body` (for a response that is not Fastify's). */
export function pageDocument({ title, body }: Pick<PageContent, 'title' | 'body'>): string {
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Assistant</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
      </head>
      <body>
        <header>
          <a href="/profile" class="brand">Assistant</a>
          <a href="/app" class="app-link">Open the chat</a>
        </header>
        <main>${typeof body === 'string' ? { [TRUSTED]: body } : body}</main>
      </body>
    </html> `;
  return markup(page);
}
