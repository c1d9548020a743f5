import type { LightMyRequestResponse } from 'fastify';
import { issueSignInLink } from '@assistant/web';
import type { InProcessApp } from './in-process-app';

/**
 * A browser for the pages of an in-process app, as far as the tests need one: it keeps the cookies the server
 * sets, sends forms as a browser does (`application/x-www-form-urlencoded`, a checkbox's name once per value)
 * and remembers the CSRF token of the last page it was shown, which its next POST carries unless told otherwise.
 *
 * ```ts
 * const browser = new PageClient(api);
 * await browser.signInAs(api.userId);
 * const page = await browser.get('/profile');
 * await browser.post('/profile/tokens', { name: 'cli', scope: ['read:account'], expiry: '' });
 * ```
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page shown, if it had a form. */
  csrf: string | undefined;

  constructor(
    private readonly api: InProcessApp,
    /** Headers sent with every request, e.g. `x-forwarded-proto: https`. */
    private readonly headers: Record<string, string> = {},
  ) {}

  get(url: string): Promise<LightMyRequestResponse> {
    return this.send('GET', url);
  }

  /** POSTs `fields` as a form, with the remembered CSRF token unless `csrf` is given (null sends none). */
  post(
    url: string,
    fields: Record<string, string | string[]> = {},
    csrf: string | null | undefined = this.csrf,
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
    if (csrf !== null && csrf !== undefined) form.append('csrf', csrf);
    return this.send('POST', url, form.toString());
  }

  /** Signs this browser in as `userId` through a one-time sign-in link, as the self-hosted owner does. */
  async signInAs(userId: string): Promise<void> {
    const link = new URL(await issueSignInLink(this.api.storage, userId, 'http://localhost'));
    const res = await this.get(`${link.pathname}${link.search}`);
    if (res.statusCode !== 303) throw new Error(`sign-in link answered ${res.statusCode}: ${res.body}`);
  }

  /** The Set-Cookie headers of a response. */
  static setCookies(res: LightMyRequestResponse): string[] {
    const header = res.headers['set-cookie'];
    return header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  }

  private async send(method: 'GET' | 'POST', url: string, form?: string): Promise<LightMyRequestResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await this.api.inject({
      method,
      url,
      token: null,
      headers: {
        ...this.headers,
        ...(cookie ? { cookie } : {}),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { payload: form }),
    });
    for (const setCookie of PageClient.setCookies(res)) {
      const [pair, ...attributes] = setCookie.split(';').map((part) => part.trim());
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (attributes.some((a) => /^max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }
}
