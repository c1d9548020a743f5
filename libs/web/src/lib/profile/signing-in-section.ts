import type { Deployment } from '@assistant/contracts';
import { html, type Html, csrfField, PAGE_PATHS } from '@assistant/server-kit';

/**
 * How people sign in, on /profile: on the hosted service, a way to change the password; on a self-hosted server,
 * for its owner only, a sign-in link for another account of the household (password.pages.ts serves both).
 */
export function signingInSection(deployment: Deployment, isOwner: boolean, csrf: string): Html | null {
  if (deployment === 'hosted') {
    return html`<section aria-labelledby="password">
      <h2 id="password">Password</h2>
      <p><a href="${PAGE_PATHS.changePassword}">Change your password</a></p>
    </section>`;
  }
  if (!isOwner) return null;
  return html`<section aria-labelledby="household">
    <h2 id="household">Household</h2>
    <p>
      Someone you added with <code>assistant accounts add</code> signs in with a one-time link. Make one for
      them here and hand it to them: whoever opens it is signed in as that account.
    </p>
    <form method="post" action="${PAGE_PATHS.memberSignInLink}">
      ${csrfField(csrf)}
      <label for="member-email">Their email</label>
      <input id="member-email" name="email" type="email" required />
      <button type="submit">Make a sign-in link</button>
    </form>
  </section>`;
}
