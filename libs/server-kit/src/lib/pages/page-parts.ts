import type { FastifyReply } from 'fastify';
import { CSRF_FIELD } from './forms';
import { html, renderPage, type Html } from './page';

/** The hidden field that carries the session's CSRF token; every form has one. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/** A form of one button that POSTs to `action` (revoke, remove, sign out). */
export function buttonForm(action: string, csrf: string, label: string, accessibleName = label): Html {
  return html`<form method="post" action="${action}" class="inline">
    ${csrfField(csrf)}<button type="submit" class="danger" aria-label="${accessibleName}">${label}</button>
  </form>`;
}

/** A time for people: `2025-03-01 14:05 UTC`, machine-readable in its `datetime`. */
export function timeOf(date: Date | null, none = 'never'): Html {
  if (!date) return html`<span class="muted">${none}</span>`;
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

/** A page that only says something: an error, a refusal, a dead link. */
export function messagePage(
  reply: FastifyReply,
  status: number,
  title: string,
  message: Html | string,
): FastifyReply {
  return renderPage(reply, {
    status,
    title,
    body: html`<h1>${title}</h1>
      <p>${message}</p>`,
  });
}

export function notFoundPage(reply: FastifyReply, what = 'page'): FastifyReply {
  return messagePage(
    reply,
    404,
    'Not found',
    html`There is no such ${what} here. <a href="/profile">Back to your profile</a>.`,
  );
}

/** The answer to a POST whose CSRF token is missing or wrong. */
export function refusedFormPage(reply: FastifyReply): FastifyReply {
  return messagePage(
    reply,
    403,
    'Form refused',
    html`This form was not sent from this site’s own page, or the page is too old. Go back, reload the page
    and try again.`,
  );
}

/**
 * A list of the account's things on /profile: a sentence when there is none, else a table with one row each and a
 * last column of actions (a button per row).
 */
export function itemTable(columns: readonly string[], rows: readonly Html[], empty: Html | string): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table>
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
        <th scope="col"><span class="muted">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** A page path with its `:id` filled in. */
export const pathWithId = (path: string, id: string) => path.replace(':id', encodeURIComponent(id));

/** Scopes as code, comma-separated. */
export function scopeList(scopes: readonly string[]): Html {
  return html`${scopes.map((scope, i) => html`${i > 0 && ', '}<code>${scope}</code>`)}`;
}
