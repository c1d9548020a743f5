import { SCOPE_DESCRIPTIONS, ALL_SCOPES, type Deployment } from '@assistant/contracts';
import type { TokenEntity, UserEntity } from '@assistant/storage';
import {
  html,
  type Html,
  buttonForm,
  csrfField,
  itemTable,
  timeOf,
  PAGE_PATHS,
  pathWithId,
  scopeList,
} from '@assistant/server-kit';
import { TOKEN_EXPIRY_CHOICES, type TokenFormInput } from './token-form';

/** The pieces of /profile, one function each; profile.pages.ts puts them together. */

export function accountSection(user: UserEntity, deployment: Deployment, csrf: string): Html {
  return html`<section aria-labelledby="account">
    <h2 id="account">Account</h2>
    <table>
      <tr>
        <th scope="row">Email</th>
        <td>${user.email}</td>
      </tr>
      <tr>
        <th scope="row">Display name</th>
        <td>${user.displayName}</td>
      </tr>
      <tr>
        <th scope="row">Deployment</th>
        <td>${deployment === 'hosted' ? 'Hosted service' : 'Self-hosted server'}</td>
      </tr>
      <tr>
        <th scope="row">Member since</th>
        <td>${timeOf(user.createdAt)}</td>
      </tr>
    </table>
    ${buttonForm(PAGE_PATHS.signOut, csrf, 'Sign out')}
  </section>`;
}

export function tokensSection(
  tokens: readonly TokenEntity[],
  csrf: string,
  form: TokenFormInput & { problems: string[] },
): Html {
  const rows = tokens.map(
    (t) =>
      html`<tr>
        <td>${t.name}</td>
        <td><code>${t.tokenPrefix}…</code></td>
        <td>${scopeList(t.scopes)}</td>
        <td>${timeOf(t.createdAt)}</td>
        <td>${timeOf(t.expiresAt)}</td>
        <td>${timeOf(t.lastUsedAt)}</td>
        <td>${buttonForm(pathWithId(PAGE_PATHS.revokeToken, t.id), csrf, 'Revoke', `Revoke ${t.name}`)}</td>
      </tr>`,
  );
  return html`<section aria-labelledby="tokens">
    <h2 id="tokens">Personal tokens</h2>
    <p>
      Tokens let scripts, bots and other programs use your assistant as you, with the scopes you give them.
    </p>
    ${itemTable(
      ['Name', 'Token', 'Scopes', 'Created', 'Expires', 'Last used'],
      rows,
      'You have no personal tokens.',
    )}
    <h3 id="new-token">Create a token</h3>
    ${
      form.problems.length > 0 &&
      html`<div class="error" role="alert">
        <p>The token was not created:</p>
        <ul>
          ${form.problems.map((p) => html`<li>${p}</li>`)}
        </ul>
      </div>`
    }
    <form method="post" action="${PAGE_PATHS.createToken}" aria-labelledby="new-token">
      ${csrfField(csrf)}
      <label for="token-name">Name</label>
      <input
        id="token-name"
        name="name"
        type="text"
        maxlength="100"
        required
        value="${form.name}"
        aria-describedby="token-name-hint"
      />
      <p class="hint" id="token-name-hint">
        What the token is for, such as “Kitchen tablet” or “Backup script”.
      </p>
      <fieldset>
        <legend>What it may do</legend>
        ${ALL_SCOPES.map(
          (scope) =>
            html`<label
              ><input
                type="checkbox"
                name="scope"
                value="${scope}"
                ${form.scopes.includes(scope) && ' checked'}
              />
              <span>${SCOPE_DESCRIPTIONS[scope]} <code class="muted">${scope}</code></span></label
            >`,
        )}
      </fieldset>
      <label for="token-expiry">Expires</label>
      <select id="token-expiry" name="expiry">
        ${TOKEN_EXPIRY_CHOICES.map(
          (choice) =>
            html`<option value="${choice.value}" ${choice.value === form.expiry && ' selected'}>
              ${choice.label}
            </option>`,
        )}
      </select>
      <button type="submit">Create token</button>
    </form>
  </section>`;
}

export function devicesSection(devices: readonly TokenEntity[], csrf: string): Html {
  return html`<section aria-labelledby="devices">
    <h2 id="devices">Paired devices</h2>
    ${itemTable(
      ['Device', 'Paired', 'Last used'],
      devices.map(
        (d) =>
          html`<tr>
            <td>${d.name}</td>
            <td>${timeOf(d.createdAt)}</td>
            <td>${timeOf(d.lastUsedAt)}</td>
            <td>
              ${buttonForm(pathWithId(PAGE_PATHS.revokeDevice, d.id), csrf, 'Revoke', `Revoke ${d.name}`)}
            </td>
          </tr>`,
      ),
      html`No phone is paired. Pair one with <code>assistant pair</code>.`,
    )}
  </section>`;
}

export function createdTokenBody(token: { name: string; secret: string; expiresAt: Date | null }): Html {
  return html`<h1>Your new token</h1>
    <p class="notice" role="status">
      Copy <strong>${token.name}</strong> now: it is shown this once and cannot be shown again.
    </p>
    <label for="secret">Token</label>
    <input
      id="secret"
      type="text"
      readonly
      value="${token.secret}"
      class="secret"
      autocomplete="off"
      spellcheck="false"
    />
    <p>Expires: ${timeOf(token.expiresAt)}. Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
    <p><a href="/profile#tokens">Back to your profile</a></p>`;
}
