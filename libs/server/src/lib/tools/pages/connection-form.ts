import type { FieldError } from '@assistant/contracts';
import type { ConnectionField, FormValues } from '@assistant/tool-kit';
import { html, type Html, csrfField } from '@assistant/server-kit';

/**
 * A connection's form, drawn from its provider's fields (`connectionFields`: its settings and secrets schemas):
 * a label, the schema's help, the default filled in, `required` where the schema requires, and the secrets as
 * password fields that are never filled in — not with what was typed, not with what is stored. Two buttons: Test
 * tries the connection and saves nothing, Save tries it and saves it. Works without a script.
 */

/** The form field of a provider's setting or secret: prefixed, so that no setting can take the name of `name`. */
export const fieldInputName = (field: Pick<ConnectionField, 'name' | 'secret'>) =>
  `${field.secret ? 'secret' : 'setting'}_${field.name}`;

/** The form's values under the provider's own names (`readConnectionForm` reads them). */
export function valuesByField(fields: readonly ConnectionField[], posted: FormValues): FormValues {
  return Object.fromEntries(fields.map((field) => [field.name, posted[fieldInputName(field)]]));
}

/** How the last press of a button went, shown above the form. */
export type FormOutcome =
  | { kind: 'none' }
  | { kind: 'tested' }
  | { kind: 'refused'; reason: string }
  | { kind: 'invalid'; errors: readonly FieldError[]; detail?: string };

export interface ConnectionFormView {
  action: string;
  csrf: string;
  family: string;
  provider: { name: string; description: string };
  fields: readonly ConnectionField[];
  /** What the fields show: the stored settings or what was posted (never a secret). */
  values: Record<string, unknown>;
  name: string;
  /** An existing connection's form: its secrets may stay as stored. */
  editing: boolean;
  outcome: FormOutcome;
}

/** A schema's description as a sentence: `the password` → `The password.` */
function asSentence(text: string): string {
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** The message of a field's error, if the service gave one for it (`settings.imap_host`, `secrets.password`). */
function errorOf(outcome: FormOutcome, key: string): string | undefined {
  return outcome.kind === 'invalid' ? outcome.errors.find((e) => e.field === key)?.message : undefined;
}

function outcomeNotice(outcome: FormOutcome): Html | null {
  switch (outcome.kind) {
    case 'tested':
      return html`<p class="notice" role="status">
        The connection works. Type its secrets again to save it: they are never sent back to the page.
      </p>`;
    case 'refused':
      return html`<div class="error" role="alert">
        <p>The connection was tried and refused: ${outcome.reason}</p>
      </div>`;
    case 'invalid':
      return html`<div class="error" role="alert">
        <p>${outcome.detail ?? 'Some fields need another look:'}</p>
        <ul>
          ${outcome.errors.map((e) => html`<li>${e.field}: ${e.message}</li>`)}
        </ul>
      </div>`;
    default:
      return null;
  }
}

/** The text a field shows: its value, else its default (lists one entry per line). */
function shown(field: ConnectionField, value: unknown): string {
  const v = value === undefined ? field.default : value;
  if (v === undefined || v === null) return '';
  return Array.isArray(v) ? v.map(String).join('\n') : String(v);
}

function fieldInput(field: ConnectionField, view: ConnectionFormView): Html {
  const id = `field-${fieldInputName(field)}`;
  const key = `${field.secret ? 'secrets' : 'settings'}.${field.name}`;
  const problem = errorOf(view.outcome, key);
  const hintId = `${id}-hint`;
  const secretHint = field.secret
    ? view.editing
      ? 'Leave it empty to keep the stored one; it is needed again when you change where or as whom the connection logs in.'
      : 'Stored encrypted; never shown again.'
    : '';
  const help = [field.help, secretHint]
    .filter((part): part is string => Boolean(part))
    .map(asSentence)
    .join(' ');
  const describedBy = [help && hintId, problem && `${id}-error`].filter(Boolean).join(' ');
  const required = field.required && !(field.secret && view.editing);
  const common = html`id="${id}" name="${fieldInputName(field)}" ${required && 'required'}
  ${describedBy && html`aria-describedby="${describedBy}"`} ${problem && 'aria-invalid="true"'}`;
  const value = view.values[field.name];
  let control: Html;
  if (field.kind === 'checkbox') {
    const checked = (value === undefined ? field.default : value) === true;
    return html`<label
        ><input
          type="checkbox"
          id="${id}"
          name="${fieldInputName(field)}"
          value="on"
          ${checked && 'checked'}
          ${describedBy && html`aria-describedby="${describedBy}"`}
        />
        ${field.label}</label
      >
      ${help && html`<p class="hint" id="${hintId}">${help}</p>`}
      ${problem && html`<p class="error" id="${id}-error">${problem}</p>`}`;
  }
  if (field.kind === 'password') {
    // Never a value: not the stored secret, not the one just typed.
    control = html`<input type="password" autocomplete="new-password" ${common} />`;
  } else if (field.kind === 'list') {
    control = html`<textarea rows="3" ${common}>${shown(field, value)}</textarea>`;
  } else {
    const type = field.kind === 'number' ? 'number' : field.kind;
    control = html`<input type="${type}" value="${shown(field, value)}" ${common} />`;
  }
  return html`<label for="${id}"
      >${field.label}${!field.required && field.default === undefined && html` <span class="muted">(optional)</span>`}</label
    >
    ${control} ${help && html`<p class="hint" id="${hintId}">${help}</p>`}
    ${problem && html`<p class="error" id="${id}-error">${problem}</p>`}`;
}

export function connectionForm(view: ConnectionFormView): Html {
  const nameProblem = errorOf(view.outcome, 'name');
  return html`${outcomeNotice(view.outcome)}
    <form method="post" action="${view.action}" aria-label="${view.provider.description}">
      ${csrfField(view.csrf)}
      <label for="connection-name">Name</label>
      <input
        id="connection-name"
        name="name"
        type="text"
        maxlength="100"
        value="${view.name}"
        placeholder="${view.provider.name}"
        aria-describedby="connection-name-hint"
      />
      <p class="hint" id="connection-name-hint">
        How you tell this ${view.family} connection from your others, such as “Work” or “Personal”: ask “…in
        my work ${view.family}”. Left empty, it is named after its provider.
      </p>
      ${nameProblem && html`<p class="error">${nameProblem}</p>`}
      ${view.fields.map((field) => fieldInput(field, view))}
      <button type="submit" name="intent" value="test">Test</button>
      <button type="submit" name="intent" value="save">Save</button>
    </form>`;
}
