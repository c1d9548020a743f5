import type { FastifyReply } from 'fastify';
import { html, markup, PAGE_HEADERS, type Html } from '@assistant/server-kit';
import { APP_ASSETS } from './app-assets';

/**
 * Headers of the web app's pages: those of every page, but with the one script the app needs, loaded from this
 * server only (`script-src 'self'`: no inline script, no other site), fetches to this server only, and the app's
 * manifest and icons. Forms may post to this site only.
 */
export const APP_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "connect-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
} as const;

export interface AppDocument {
  title: string;
  /** Which screen the script sets up: the chat, or the pairing form. */
  view: 'chat' | 'pair';
  /** The CSRF token the script sends in `X-CSRF-Token` (not a credential: the cookie is, and scripts never see it). */
  csrf: string;
  body: Html;
  status?: number;
}

/** Sends a page of the web app: its layout, manifest and icons, the stylesheet and the module script. */
export function renderAppPage(reply: FastifyReply, page: AppDocument): FastifyReply {
  const document = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#1f4e79" />
        <meta name="csrf-token" content="${page.csrf}" />
        <title>${page.title} · Assistant</title>
        <link rel="manifest" href="${APP_ASSETS.manifest}" />
        <link rel="icon" href="${APP_ASSETS.iconSvg}" type="image/svg+xml" />
        <link rel="apple-touch-icon" href="${APP_ASSETS.icon192}" />
        <link rel="stylesheet" href="${APP_ASSETS.stylesheet}" />
        <script type="module" src="${APP_ASSETS.script}"></script>
      </head>
      <body data-view="${page.view}">
        ${page.body}
      </body>
    </html> `;
  return reply
    .code(page.status ?? 200)
    .headers(APP_HEADERS)
    .type('text/html; charset=utf-8')
    .send(markup(document));
}
