/**
 * The web app's one script (compiled to /app/app.js, an ES module; see docs/decisions/0009-web-app-script.md).
 * It calls /api/v1 with the browser's own HttpOnly cookie, which it never sees, and the page's CSRF token in a
 * header. Everything that comes from the account — answers, tool output, titles, memories — is put into the page
 * as text (`textContent`), never as markup: a mail or a web page can say anything.
 */

const API = '/api/v1';
const CSRF = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
/** Where a query under way is remembered across a reload (its id only: not a credential). */
const RUNNING_KEY = 'assistant.running-query';
/** How often an open app checks that its credential still works (a device revoked on /profile). */
const HEARTBEAT_MS = 10_000;
/** Tries to resume a stream that dropped before its last event, with a growing pause. */
const RESUME_TRIES = 8;

interface QueryEvent {
  sequence_number: number;
  type: string;
  [field: string]: unknown;
}
interface Discussion {
  id: string;
  title: string;
}
interface ToolCallRecord {
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  status: string;
  output?: unknown;
  error?: string;
}
interface Message {
  id: string;
  role: string;
  text: string;
  tool_calls: ToolCallRecord[];
  query_id: string | null;
}
interface Memory {
  id: string;
  content: string;
  tags: string[];
}
interface Running {
  queryId: string;
  discussionId: string;
}

class SignedOut extends Error {}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: { className?: string; text?: string } = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (properties.className) node.className = properties.className;
  if (properties.text !== undefined) node.textContent = properties.text;
  node.append(...children);
  return node;
}

/** A box that may scroll gets keyboard focus, so that it can be scrolled without a mouse. */
function scrollable<T extends HTMLElement>(box: T): T {
  box.tabIndex = 0;
  return box;
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function notice(text: string): void {
  byId('notice').textContent = text;
}

/** Says what just happened, politely, to screen readers and on the screen. */
function announce(text: string): void {
  byId('status').textContent = text;
}

/** A call to the API with the session's CSRF token; a 401 means this browser is signed out (or unpaired). */
async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('x-csrf-token', CSRF);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(`${API}${path}`, { ...init, headers, credentials: 'same-origin' });
  if (response.status === 401) {
    signedOut();
    throw new SignedOut();
  }
  return response;
}

async function apiJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await api(path, init);
  if (!response.ok) throw new Error(await problemOf(response));
  return (response.status === 204 ? undefined : await response.json()) as T;
}

async function problemOf(response: Response): Promise<string> {
  try {
    const problem = (await response.json()) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** The server decides where a browser without a working credential goes: sign-in, or pairing again. */
function signedOut(): void {
  window.location.assign('/app');
}

function report(error: unknown): void {
  if (error instanceof SignedOut) return;
  notice(error instanceof Error ? error.message : String(error));
}

/* ----- Server-sent events over fetch (EventSource can send neither a header nor a POST body) ----- */

async function* readEvents(response: Response): AsyncGenerator<QueryEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield JSON.parse(data) as QueryEvent;
    }
  }
}

const TERMINAL = new Set(['query.completed', 'query.failed', 'query.incomplete']);

/* ----- The conversation ----- */

let currentDiscussion: string | null = null;
let runningQuery: string | null = null;

function rememberRunning(running: Running | null): void {
  if (running) sessionStorage.setItem(RUNNING_KEY, JSON.stringify(running));
  else sessionStorage.removeItem(RUNNING_KEY);
}

function recalledRunning(): Running | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(RUNNING_KEY) ?? 'null') as Running | null;
    return value && typeof value.queryId === 'string' && typeof value.discussionId === 'string'
      ? value
      : null;
  } catch {
    return null;
  }
}

function setBusy(busy: boolean): void {
  byId<HTMLButtonElement>('send').disabled = busy;
  byId<HTMLButtonElement>('stop').hidden = !busy;
}

function scrollToEnd(): void {
  const list = byId('messages');
  list.scrollTop = list.scrollHeight;
}

function userMessage(text: string): HTMLLIElement {
  const item = element('li', { className: 'message user', text });
  byId('messages').append(item);
  scrollToEnd();
  return item;
}

/** An answer's bubble: its text, then its tool calls, then a status line. */
class AnswerView {
  readonly item = element('li', { className: 'message assistant' });
  private readonly text = element('span', { className: 'text' });
  private readonly tools = element('div');
  private readonly status = element('span', { className: 'status' });
  private readonly calls = new Map<string, HTMLElement>();

  constructor() {
    this.item.append(this.text, this.tools, this.status);
    byId('messages').append(this.item);
  }

  reset(): void {
    this.text.textContent = '';
    this.tools.replaceChildren();
    this.calls.clear();
    this.status.textContent = '';
  }

  append(delta: string): void {
    this.text.textContent += delta;
  }

  finish(text: string): void {
    this.text.textContent = text;
  }

  setStatus(status: string): void {
    this.status.textContent = status;
  }

  call(callId: string, tool: string, args: unknown, state: string): HTMLElement {
    let box = this.calls.get(callId);
    if (!box) {
      // The call's name and state always show; what it was given and what it answered open on demand.
      box = element(
        'div',
        { className: 'tool' },
        element('span', { className: 'name', text: tool }),
        element('span', { className: 'state' }),
        element(
          'details',
          {},
          element('summary', { text: 'Details' }),
          scrollable(element('pre', { className: 'args', text: JSON.stringify(args ?? {}, null, 1) })),
        ),
      );
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', `Tool call ${tool}`);
      this.calls.set(callId, box);
      this.tools.append(box);
    }
    (box.querySelector('.state') as HTMLElement).textContent = ` — ${state}`;
    return box;
  }

  askConfirmation(queryId: string, callId: string, tool: string, args: unknown): void {
    const box = this.call(callId, tool, args, 'waiting for your answer');
    if (box.querySelector('.actions')) return;
    // What is about to be done is shown before the question.
    box.querySelector('details')?.setAttribute('open', '');
    const approve = element('button', { className: 'primary', text: 'Approve' });
    const deny = element('button', { className: 'danger', text: 'Deny' });
    approve.type = deny.type = 'button';
    approve.setAttribute('aria-label', `Approve ${tool}`);
    deny.setAttribute('aria-label', `Deny ${tool}`);
    const actions = element('div', { className: 'actions' }, approve, deny);
    const answer = async (yes: boolean) => {
      approve.disabled = deny.disabled = true;
      try {
        await apiJson(`/queries/${encodeURIComponent(queryId)}/confirmations/${encodeURIComponent(callId)}`, {
          method: 'POST',
          body: JSON.stringify({ approve: yes }),
        });
        actions.remove();
      } catch (error) {
        approve.disabled = deny.disabled = false;
        report(error);
      }
    };
    approve.addEventListener('click', () => void answer(true));
    deny.addEventListener('click', () => void answer(false));
    box.append(actions);
    approve.focus();
  }

  completed(callId: string, tool: string, status: string, output: unknown, error: unknown): void {
    const box = this.call(callId, tool, {}, status === 'ok' ? 'done' : status);
    box.querySelector('.actions')?.remove();
    const shown =
      typeof error === 'string' ? error : output === undefined ? '' : JSON.stringify(output, null, 1);
    if (shown) {
      box
        .querySelector('details')
        ?.append(scrollable(element('pre', { className: 'output', text: shown.slice(0, 4000) })));
    }
  }
}

/** Applies one event of a query's stream to its answer; true once the stream has ended. */
function apply(view: AnswerView, queryId: string, event: QueryEvent): boolean {
  switch (event.type) {
    case 'output_text.delta':
      view.append(String(event['delta'] ?? ''));
      break;
    case 'tool_call.started':
      view.call(String(event['call_id']), String(event['tool']), event['arguments'], 'running');
      break;
    case 'tool_call.awaiting_confirmation':
      view.askConfirmation(queryId, String(event['call_id']), String(event['tool']), event['arguments']);
      break;
    case 'tool_call.completed':
      view.completed(
        String(event['call_id']),
        String(event['tool']),
        String(event['status']),
        event['output'],
        event['error'],
      );
      break;
    case 'memory.saved':
      view.setStatus('Saved to your memories.');
      break;
    case 'query.completed':
      view.finish(String(event['text'] ?? ''));
      break;
    case 'query.failed':
      view.setStatus(
        `Failed: ${String((event['error'] as { message?: string } | undefined)?.message ?? '')}`,
      );
      break;
    case 'query.incomplete':
      view.setStatus(`Stopped (${String(event['reason'] ?? '')}).`);
      break;
  }
  scrollToEnd();
  return TERMINAL.has(event.type);
}

/**
 * Follows a query's stream to its end: the response given, then, should it drop before the last event, the
 * stream again after the last event seen (`Last-Event-ID`), a few times with a growing pause.
 */
async function follow(
  view: AnswerView,
  queryId: string,
  first: Response | null,
  after: number,
): Promise<void> {
  let lastId = after;
  let response = first;
  for (let attempt = 0; attempt <= RESUME_TRIES; attempt++) {
    if (!response) {
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId > 0) headers['last-event-id'] = String(lastId);
      try {
        response = await api(`/queries/${encodeURIComponent(queryId)}/events`, { headers });
      } catch (error) {
        if (error instanceof SignedOut) throw error;
        continue;
      }
      if (!response.ok) throw new Error(await problemOf(response));
    }
    try {
      for await (const event of readEvents(response)) {
        if (event.sequence_number <= lastId) continue;
        lastId = event.sequence_number;
        if (apply(view, queryId, event)) return;
      }
    } catch {
      // The connection dropped: resume below.
    }
    response = null;
    view.setStatus('Reconnecting…');
  }
  view.setStatus('The connection was lost. Reload to see the answer.');
}

async function ask(text: string): Promise<void> {
  notice('');
  userMessage(text);
  const view = new AnswerView();
  setBusy(true);
  try {
    const response = await api('/queries', {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify(currentDiscussion ? { text, discussion_id: currentDiscussion } : { text }),
    });
    if (!response.ok) throw new Error(await problemOf(response));
    // The first event names the query and its discussion: kept, so that a reload picks the stream up again.
    const events = readEvents(response);
    const created = (await events.next()).value as QueryEvent | undefined;
    if (!created || created.type !== 'query.created') throw new Error('the answer did not start');
    runningQuery = String(created['query_id']);
    const discussionId = String(created['discussion_id']);
    rememberRunning({ queryId: runningQuery, discussionId });
    if (currentDiscussion !== discussionId) {
      currentDiscussion = discussionId;
      byId('rename-discussion').hidden = byId('delete-discussion').hidden = false;
      history.replaceState(null, '', `#discussion/${discussionId}`);
      void loadDiscussions();
    }
    await followRest(view, runningQuery, events, created.sequence_number);
  } catch (error) {
    report(error);
  } finally {
    finishRun();
  }
}

/** The rest of a stream whose first event was read, then `follow` should it drop. */
async function followRest(
  view: AnswerView,
  queryId: string,
  events: AsyncGenerator<QueryEvent>,
  after: number,
): Promise<void> {
  let lastId = after;
  try {
    for await (const event of events) {
      lastId = event.sequence_number;
      if (apply(view, queryId, event)) return;
    }
  } catch {
    // Dropped: resume.
  }
  await follow(view, queryId, null, lastId);
}

function finishRun(): void {
  runningQuery = null;
  rememberRunning(null);
  setBusy(false);
  void loadDiscussions();
}

/** After a reload: the answer under way is streamed again from its first event into a fresh bubble. */
async function resume(running: Running): Promise<void> {
  runningQuery = running.queryId;
  setBusy(true);
  const view = new AnswerView();
  view.setStatus('Resuming…');
  try {
    await follow(view, running.queryId, null, 0);
  } catch (error) {
    report(error);
  } finally {
    finishRun();
  }
}

/* ----- Discussions ----- */

async function loadDiscussions(): Promise<void> {
  try {
    const page = await apiJson<{ data: Discussion[] }>('/discussions?limit=50');
    const list = byId('discussion-list');
    list.replaceChildren(
      ...page.data.map((discussion) => {
        const button = element('button', { text: discussion.title || 'Untitled' });
        button.type = 'button';
        if (discussion.id === currentDiscussion) {
          button.setAttribute('aria-current', 'true');
          byId('discussion-title').textContent = discussion.title || 'Untitled';
        }
        button.addEventListener('click', () => {
          history.pushState(null, '', `#discussion/${discussion.id}`);
          void route();
          toggleDiscussions(false);
        });
        return element('li', {}, button);
      }),
    );
  } catch (error) {
    report(error);
  }
}

async function openDiscussion(id: string | null): Promise<void> {
  currentDiscussion = id;
  byId('messages').replaceChildren();
  byId('rename-discussion').hidden = byId('delete-discussion').hidden = !id;
  byId('discussion-title').textContent = id ? '…' : 'New discussion';
  if (!id) return void loadDiscussions();
  try {
    const [discussion, messages] = await Promise.all([
      apiJson<Discussion>(`/discussions/${encodeURIComponent(id)}`),
      apiJson<{ data: Message[] }>(`/discussions/${encodeURIComponent(id)}/messages?limit=100`),
    ]);
    byId('discussion-title').textContent = discussion.title || 'Untitled';
    // The answer under way is streamed again by `resume`, not shown twice.
    const running = recalledRunning()?.queryId;
    for (const message of messages.data) {
      if (message.role !== 'user' && running && message.query_id === running) continue;
      if (message.role === 'user') {
        userMessage(message.text);
        continue;
      }
      const view = new AnswerView();
      view.finish(message.text);
      for (const call of message.tool_calls) {
        view.call(call.call_id, call.tool, call.arguments, call.status === 'ok' ? 'done' : call.status);
        view.completed(call.call_id, call.tool, call.status, call.output, call.error);
      }
    }
    scrollToEnd();
  } catch (error) {
    report(error);
  }
  void loadDiscussions();
}

async function renameDiscussion(): Promise<void> {
  if (!currentDiscussion) return;
  const title = window.prompt('New title', byId('discussion-title').textContent ?? '');
  if (!title?.trim()) return;
  try {
    await apiJson(`/discussions/${encodeURIComponent(currentDiscussion)}`, {
      method: 'PATCH',
      body: JSON.stringify({ title: title.trim() }),
    });
    byId('discussion-title').textContent = title.trim();
    await loadDiscussions();
  } catch (error) {
    report(error);
  }
}

async function deleteDiscussion(): Promise<void> {
  if (!currentDiscussion || !window.confirm('Delete this discussion and its messages?')) return;
  try {
    await apiJson(`/discussions/${encodeURIComponent(currentDiscussion)}`, { method: 'DELETE' });
    history.pushState(null, '', '#');
    await route();
  } catch (error) {
    report(error);
  }
}

function toggleDiscussions(open?: boolean): void {
  const nav = byId('discussions');
  const next = open ?? nav.dataset['open'] !== 'true';
  nav.dataset['open'] = String(next);
  byId('toggle-discussions').setAttribute('aria-expanded', String(next));
}

/* ----- Memories ----- */

async function loadMemories(query = ''): Promise<void> {
  try {
    const path = query ? `/memories?limit=100&q=${encodeURIComponent(query)}` : '/memories?limit=100';
    const page = await apiJson<{ data: Memory[] }>(path);
    const list = byId('memory-list');
    if (page.data.length === 0) {
      list.replaceChildren(
        element('li', { className: 'muted', text: query ? 'No memory matches.' : 'No memories yet.' }),
      );
      return;
    }
    list.replaceChildren(...page.data.map(memoryItem));
  } catch (error) {
    report(error);
  }
}

function memoryItem(memory: Memory): HTMLLIElement {
  const field = element('textarea');
  field.id = `memory-${memory.id}`;
  field.value = memory.content;
  const label = element('label', { text: 'Memory' });
  label.htmlFor = field.id;
  const save = element('button', { className: 'primary', text: 'Save' });
  const remove = element('button', { className: 'danger', text: 'Delete' });
  save.type = remove.type = 'button';
  const summary = memory.content.slice(0, 40);
  save.setAttribute('aria-label', `Save memory: ${summary}`);
  remove.setAttribute('aria-label', `Delete memory: ${summary}`);
  const item = element('li', {}, label, field, element('div', { className: 'actions' }, save, remove));
  save.addEventListener('click', async () => {
    try {
      await apiJson(`/memories/${encodeURIComponent(memory.id)}`, {
        method: 'PATCH',
        body: JSON.stringify({ content: field.value }),
      });
      notice('');
      announce('Memory saved.');
    } catch (error) {
      report(error);
    }
  });
  remove.addEventListener('click', async () => {
    if (!window.confirm('Delete this memory?')) return;
    try {
      await apiJson(`/memories/${encodeURIComponent(memory.id)}`, { method: 'DELETE' });
      item.remove();
      announce('Memory deleted.');
    } catch (error) {
      report(error);
    }
  });
  return item;
}

/* ----- Views ----- */

async function route(): Promise<void> {
  const hash = window.location.hash.slice(1);
  const memories = hash === 'memories';
  byId('chat-view').hidden = memories;
  byId('discussions').hidden = memories;
  byId('memories-view').hidden = !memories;
  byId('toggle-discussions').hidden = memories;
  byId('nav-chat').toggleAttribute('aria-current', !memories);
  byId('nav-memories').toggleAttribute('aria-current', memories);
  if (memories) {
    byId('nav-memories').setAttribute('aria-current', 'page');
    return loadMemories(byId<HTMLInputElement>('memory-query').value.trim());
  }
  byId('nav-chat').setAttribute('aria-current', 'page');
  const match = /^discussion\/(.+)$/.exec(hash);
  const id = match ? decodeURIComponent(match[1]) : null;
  if (id !== currentDiscussion || byId('messages').childElementCount === 0) await openDiscussion(id);
}

function heartbeat(): void {
  const check = () => {
    if (document.visibilityState === 'visible') void api('/me').catch(() => undefined);
  };
  setInterval(check, HEARTBEAT_MS);
  document.addEventListener('visibilitychange', check);
}

async function startChat(): Promise<void> {
  const text = byId<HTMLTextAreaElement>('composer-text');
  byId('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    const question = text.value.trim();
    if (!question || runningQuery) return;
    text.value = '';
    void ask(question);
  });
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      byId<HTMLFormElement>('composer').requestSubmit();
    }
  });
  byId('stop').addEventListener('click', () => {
    if (runningQuery)
      void api(`/queries/${encodeURIComponent(runningQuery)}/cancel`, { method: 'POST' }).catch(report);
  });
  byId('new-discussion').addEventListener('click', () => {
    history.pushState(null, '', '#');
    void openDiscussion(null);
    toggleDiscussions(false);
    text.focus();
  });
  byId('rename-discussion').addEventListener('click', () => void renameDiscussion());
  byId('delete-discussion').addEventListener('click', () => void deleteDiscussion());
  byId('toggle-discussions').addEventListener('click', () => toggleDiscussions());
  byId('memory-search').addEventListener('submit', (event) => {
    event.preventDefault();
    void loadMemories(byId<HTMLInputElement>('memory-query').value.trim());
  });
  window.addEventListener('hashchange', () => void route());
  heartbeat();

  const running = recalledRunning();
  if (running) {
    history.replaceState(null, '', `#discussion/${running.discussionId}`);
    await route();
    await resume(running);
  } else {
    await route();
  }
}

/** The pairing page: a code in the URL after `#` (the QR code of `assistant pair`) fills the form. */
function startPair(): void {
  const code = /^#?(?:code=)?([A-Za-z0-9-]{4,20})$/.exec(window.location.hash)?.[1];
  const field = document.getElementById('code') as HTMLInputElement | null;
  if (code && field && !field.value) field.value = code.toUpperCase();
  // The code is a credential until claimed: keep it out of the history entry.
  if (window.location.hash) history.replaceState(null, '', window.location.pathname + window.location.search);
  document.getElementById(code ? 'device_name' : 'code')?.focus();
}

if (document.body.dataset['view'] === 'pair') startPair();
else if (document.body.dataset['view'] === 'chat') void startChat();
