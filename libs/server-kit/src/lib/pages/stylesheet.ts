/**
 * The pages' one stylesheet, served by the server itself (`style-src 'self'`: no inline styles, nothing from
 * elsewhere). Kept in code rather than in a .css file so that the compiled library needs no asset copying.
 */
export const STYLESHEET_PATH = '/assets/pages.css';

export const STYLESHEET = `
:root { color-scheme: light dark; --accent: #2457c5; --danger: #b3261e; --muted: #666; --line: #8884; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { padding: 0.75rem 1.5rem; border-bottom: 1px solid var(--line); display: flex; gap: 1rem; align-items: baseline; }
.app-link { margin-left: auto; color: var(--accent); }
.brand { font-weight: 600; text-decoration: none; color: inherit; }
main { max-width: 46rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin-top: 0; }
h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
a { color: var(--accent); }
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type="email"], input[type="password"], input[type="text"], input[type="url"], input[type="number"],
textarea, select {
  display: block; width: 100%; max-width: 24rem; padding: 0.5rem; font: inherit; margin-top: 0.25rem;
}
fieldset { border: 1px solid var(--line); margin-top: 1rem; padding: 0.5rem 1rem; }
fieldset label { display: flex; gap: 0.5rem; align-items: baseline; font-weight: normal; margin-top: 0.25rem; }
button { font: inherit; padding: 0.45rem 1rem; margin-top: 1rem; cursor: pointer; }
button.danger { color: var(--danger); }
form.inline { display: inline; }
form.inline button { margin-top: 0; padding: 0.2rem 0.6rem; }
table { border-collapse: collapse; width: 100%; margin-top: 0.5rem; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.muted, .hint { color: var(--muted); }
.hint { font-size: 0.9rem; margin: 0.25rem 0 0; }
.error { color: var(--danger); font-weight: 600; }
.notice { border-left: 4px solid var(--accent); padding: 0.5rem 1rem; }
.secret { display: block; padding: 0.75rem; border: 1px dashed var(--line); overflow-wrap: anywhere; font-size: 1.05rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
`;
