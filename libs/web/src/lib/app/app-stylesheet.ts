/**
 * The web app's stylesheet (served from this server: `style-src 'self'`). Phone first: one column, the
 * discussions behind a toggle; from 48rem on, discussions beside the conversation.
 */
export const APP_STYLESHEET = `
:root { color-scheme: light dark; --accent: #1f4e79; --accent-text: #fff; --danger: #b3261e; --muted: #5f6368;
  --line: #8886; --bubble: #8881; --focus: #2457c5; }
@media (prefers-color-scheme: dark) { :root { --muted: #b0b4ba; --accent: #2f6ea8; --focus: #8ab4f8; } }
* { box-sizing: border-box; }
/* A hidden view stays hidden whatever display its class gives it. */
[hidden] { display: none !important; }
html, body { height: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; display: flex;
  flex-direction: column; }
a { color: inherit; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 0.5rem; top: 0.5rem; background: Canvas; padding: 0.5rem; z-index: 2; }
.bar { display: flex; gap: 0.5rem; align-items: center; padding: 0.5rem 1rem; background: var(--accent);
  color: var(--accent-text); flex-wrap: wrap; }
.bar .brand { font-weight: 700; margin-right: auto; text-decoration: none; color: var(--accent-text); }
.bar a, .bar button { color: var(--accent-text); background: transparent; border: 1px solid #fff8;
  border-radius: 0.4rem; padding: 0.3rem 0.7rem; font: inherit; text-decoration: none; cursor: pointer; }
.bar a[aria-current="page"] { background: #fff3; }
.bar form { margin: 0; }
.layout { flex: 1; display: flex; min-height: 0; position: relative; }
#discussions { width: 100%; max-width: 18rem; border-right: 1px solid var(--line); overflow-y: auto; padding: 0.75rem; }
#discussions h2, .panel h2 { font-size: 1rem; margin: 0.25rem 0 0.5rem; }
#discussion-list { list-style: none; margin: 0; padding: 0; }
#discussion-list button { width: 100%; text-align: left; background: none; border: 0; padding: 0.5rem;
  border-radius: 0.4rem; font: inherit; color: inherit; cursor: pointer; overflow-wrap: anywhere; }
#discussion-list button[aria-current="true"] { background: var(--bubble); font-weight: 600; }
.conversation { flex: 1; display: flex; flex-direction: column; min-width: 0; }
.heading { display: flex; gap: 0.5rem; align-items: center; padding: 0.5rem 1rem; border-bottom: 1px solid var(--line);
  flex-wrap: wrap; }
.heading h1 { font-size: 1.1rem; margin: 0; margin-right: auto; overflow-wrap: anywhere; }
#messages { flex: 1; overflow-y: auto; list-style: none; margin: 0; padding: 1rem; display: flex; flex-direction: column;
  gap: 0.75rem; }
.message { max-width: 46rem; padding: 0.6rem 0.9rem; border-radius: 0.8rem; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.message.user { align-self: flex-end; background: var(--accent); color: var(--accent-text); }
.message.assistant { align-self: flex-start; background: var(--bubble); }
.message .status { display: block; font-size: 0.85rem; color: var(--muted); }
.tool { margin-top: 0.5rem; padding: 0.5rem; border: 1px solid var(--line); border-radius: 0.5rem; white-space: normal; }
.tool .name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; }
.tool pre { white-space: pre-wrap; margin: 0.25rem 0 0; max-height: 12rem; overflow: auto; font-size: 0.85rem; }
.tool .actions { display: flex; gap: 0.5rem; margin-top: 0.5rem; }
.composer { display: flex; gap: 0.5rem; padding: 0.75rem 1rem; border-top: 1px solid var(--line); align-items: flex-end; }
.composer textarea { flex: 1; min-height: 2.75rem; max-height: 10rem; resize: vertical; font: inherit; padding: 0.5rem; }
button { font: inherit; padding: 0.45rem 1rem; cursor: pointer; border-radius: 0.4rem; border: 1px solid var(--line);
  background: ButtonFace; color: ButtonText; }
button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button.danger { color: var(--danger); }
button[hidden] { display: none; }
button:disabled { opacity: 0.55; cursor: default; }
.tool details { margin-top: 0.25rem; }
.tool summary { cursor: pointer; color: var(--muted); font-size: 0.9rem; }
input[type="text"], input[type="search"], textarea { font: inherit; padding: 0.45rem; border: 1px solid var(--line);
  border-radius: 0.4rem; background: Field; color: FieldText; }
label { font-weight: 600; }
.panel { flex: 1; overflow-y: auto; padding: 1rem; max-width: 48rem; margin: 0 auto; width: 100%; }
.panel form.search { display: flex; gap: 0.5rem; margin-bottom: 1rem; flex-wrap: wrap; align-items: center; }
.panel form.search input { flex: 1; min-width: 10rem; }
#memory-list { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: 0.75rem; }
#memory-list li { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem; }
#memory-list textarea { width: 100%; min-height: 4rem; }
#memory-list .actions { display: flex; gap: 0.5rem; margin-top: 0.5rem; }
.muted { color: var(--muted); }
.notice { margin: 0.5rem 1rem; padding: 0.5rem 1rem; border-left: 4px solid var(--danger); }
.notice:empty, .status-line:empty { display: none; }
.status-line { margin: 0.25rem 1rem; color: var(--muted); }
.pair { max-width: 26rem; margin: 2rem auto; padding: 0 1rem; }
.pair label { display: block; margin-top: 1rem; }
.pair input { display: block; width: 100%; margin-top: 0.25rem; }
.pair button { margin-top: 1rem; }
.error { color: var(--danger); font-weight: 600; }
#toggle-discussions { display: none; }
@media (max-width: 47.99rem) {
  #toggle-discussions { display: inline-block; }
  #discussions { position: absolute; inset: 0; max-width: none; background: Canvas; z-index: 1; border: 0; }
  .bar { padding: 0.4rem 0.5rem; gap: 0.35rem; }
  .bar a, .bar button { padding: 0.25rem 0.5rem; }
  #discussions[data-open="false"] { display: none; }
  .message { max-width: 92%; }
}
`;
