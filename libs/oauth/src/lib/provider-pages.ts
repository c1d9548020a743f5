import { html, pageDocument, PAGE_HEADERS } from '@assistant/server-kit';

/** The part of a Koa context the provider's `renderError` is given that the page needs. */
interface ErrorPageContext {
  type: string;
  body: unknown;
  set(field: Record<string, string>): void;
}

/**
 * oidc-provider's `renderError`: the page a browser gets when an authorization request cannot go back to its
 * application (an unknown client, a redirect URI it did not register, an expired interaction). It is one of the
 * pages' own (their layout and stylesheet, no script, no font from elsewhere, PAGE_HEADERS), saying what went
 * wrong in the provider's words, which name the request's fault and nothing of the server's (B9).
 */
export async function renderProviderError(
  ctx: ErrorPageContext,
  out: { error: string; error_description?: string },
): Promise<void> {
  ctx.set({ ...PAGE_HEADERS });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = pageDocument({
    title: 'This sign-in did not work',
    body: html`<h1>This sign-in did not work</h1>
      <p>The application’s request could not be completed: ${out.error_description ?? out.error}.</p>
      <p>Go back to the application and start again.</p>`,
  });
}
