import { html, type Html, csrfField, PAGE_PATHS } from '@assistant/server-kit';

/**
 * The markup of the app's screens. Everything here is fixed text; what the account holds (discussions, answers,
 * tool output, memories) is put in by the script, always as text (`textContent`), never as markup.
 */
export function chatBody({ csrf, isDevice }: { csrf: string; isDevice: boolean }): Html {
  return html`<a class="skip" href="#composer-text">Skip to the question</a>
    <header class="bar">
      <a class="brand" href="${PAGE_PATHS.app}">Assistant</a>
      <button type="button" id="toggle-discussions" aria-controls="discussions" aria-expanded="false">
        Discussions
      </button>
      <a href="#" id="nav-chat" aria-current="page">Chat</a>
      <a href="#memories" id="nav-memories">Memories</a>
      ${!isDevice && html`<a href="${PAGE_PATHS.profile}">Profile</a>`}
      <form method="post" action="${PAGE_PATHS.appSignOut}">
        ${csrfField(csrf)}<button type="submit">${isDevice ? 'Unpair' : 'Sign out'}</button>
      </form>
    </header>
    <div id="notice" class="notice" role="alert"></div>
    <div id="status" class="status-line" role="status"></div>
    <main id="main" class="layout">
      <nav id="discussions" aria-label="Discussions" data-open="false">
        <button type="button" id="new-discussion" class="primary">New discussion</button>
        <h2>Discussions</h2>
        <ul id="discussion-list"></ul>
      </nav>
      <section class="conversation" id="chat-view" aria-labelledby="discussion-title">
        <div class="heading">
          <h1 id="discussion-title">New discussion</h1>
          <button type="button" id="rename-discussion" hidden>Rename</button>
          <button type="button" id="delete-discussion" class="danger" hidden>Delete</button>
        </div>
        <ol id="messages" aria-live="polite" aria-label="Messages" tabindex="0"></ol>
        <form id="composer" class="composer">
          <label for="composer-text" class="skip">Your question</label>
          <textarea id="composer-text" name="text" rows="2" required placeholder="Ask anything…"></textarea>
          <button type="submit" class="primary" id="send">Send</button>
          <button type="button" id="stop" hidden>Stop</button>
        </form>
      </section>
      <section class="panel" id="memories-view" aria-labelledby="memories-title" hidden>
        <h1 id="memories-title">Memories</h1>
        <form class="search" id="memory-search" role="search">
          <label for="memory-query">Search memories</label>
          <input type="search" id="memory-query" name="q" />
          <button type="submit">Search</button>
        </form>
        <ul id="memory-list" aria-label="Memories"></ul>
      </section>
    </main>`;
}

export function pairBody(form: { csrf: Html; code: string; name: string; notice?: Html }): Html {
  return html`<header class="bar"><span class="brand">Assistant</span></header>
    <main class="pair">
      <h1>Pair this device</h1>
      <p>
        Enter the code that <code>assistant pair</code> shows (or scan its QR code, which opens this page with
        the code filled in). The code works once, for ten minutes.
      </p>
      ${form.notice && html`<p class="error" role="alert">${form.notice}</p>`}
      <form method="post" action="${PAGE_PATHS.appPair}">
        ${form.csrf}
        <label for="code">Pairing code</label>
        <input
          type="text"
          id="code"
          name="code"
          value="${form.code}"
          autocomplete="one-time-code"
          autocapitalize="characters"
          placeholder="ABCD-EFGH"
          required
        />
        <label for="device_name">Name of this device</label>
        <input type="text" id="device_name" name="device_name" value="${form.name}" maxlength="100" />
        <button type="submit" class="primary">Pair</button>
      </form>
      <p class="muted">
        Have an account here? <a href="${PAGE_PATHS.signIn}?return_to=${PAGE_PATHS.app}">Sign in</a> instead.
      </p>
    </main>`;
}
