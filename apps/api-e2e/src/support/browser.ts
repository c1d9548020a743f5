/**
 * What a browser does between an application and the authorization server, without a browser: keeps cookies,
 * follows redirects one by one, and submits the consent page's form. (The pages' own browser tests drive
 * Chromium; here the OAuth protocol is under test.)
 */
export class CookieBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  /** One request, redirects not followed; cookies sent and kept. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url, this.origin);
    const headers = new Headers(init.headers);
    if (target.origin === this.origin && this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value.join('=').trim());
    }
    return response;
  }

  /** The CSRF token of the (first) form on the page at `path`; showing a form starts a session if there is none. */
  async csrfOf(path: string): Promise<string> {
    const body = await (await this.request(path)).text();
    const token = /name="csrf"\s+value="([^"]+)"/.exec(body)?.[1];
    if (!token) throw new Error(`no form with a CSRF token on ${path}`);
    return token.replace(/&amp;/g, '&');
  }

  /** Posts a form to `path` as the page at `formPage` would, with its CSRF token. */
  async submit(path: string, fields: Record<string, string>, formPage = path): Promise<Response> {
    const csrf = await this.csrfOf(formPage);
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, csrf }).toString(),
    });
  }

  /**
   * Follows redirects from `url` until one leaves this server (the application's redirect URI) or a page
   * answers; on a consent page, presses `decision`. Returns where it ended: the callback URL, or the last page,
   * and whether a consent page was answered on the way.
   */
  async authorize(
    url: string,
    decision: 'allow' | 'deny' = 'allow',
  ): Promise<{ callback?: URL; page?: { status: number; body: string }; consented: boolean }> {
    let next: string | undefined = url;
    let init: RequestInit = {};
    let consented = false;
    for (let hops = 0; next && hops < 20; hops++) {
      const response = await this.request(next, init);
      init = {};
      const location = response.headers.get('location');
      if (location) {
        const target: URL = new URL(location, next.startsWith('http') ? next : this.origin);
        if (target.origin !== this.origin) return { callback: target, consented };
        next = target.href;
        continue;
      }
      const body = await response.text();
      const form = new RegExp(
        `<form method="post" action="([^"]+/${decision})">[\\s\\S]*?name="csrf"\\s+value="([^"]+)"`,
      ).exec(body);
      if (!form) return { page: { status: response.status, body }, consented };
      consented = true;
      next = new URL(form[1].replace(/&amp;/g, '&'), this.origin).href;
      init = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: form[2].replace(/&amp;/g, '&') }).toString(),
      };
    }
    throw new Error(`too many redirects from ${url}`);
  }
}
