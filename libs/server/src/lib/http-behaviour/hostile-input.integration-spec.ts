/**
 * Hostile text in bodies, path ids and query strings (SECURITY.md B7): U+0000, which PostgreSQL's text cannot
 * hold, control characters where a name or title is expected, and query strings that are not valid UTF-8. Each
 * is a 422 naming the field before anything is written or used up, never a 500, on SQLite and PostgreSQL alike.
 */
import type { CreatedPairingCode, Problem } from '@assistant/contracts';
import type { Dialect } from '@assistant/storage';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

describe.each<Dialect>(['sqlite', 'postgres'])('hostile input on %s', (dialect) => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp({ dialect });
  });
  afterAll(() => api?.close());

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    api.inject({ method, url: `/api/v1${url}`, ...(payload === undefined ? {} : { payload }) });

  /** A 422 validation_failed whose errors name `field`. */
  function expectRefused(res: Awaited<ReturnType<typeof send>>, field: string): void {
    expect({ status: res.statusCode, body: res.body }).toMatchObject({ status: 422 });
    const problem = res.json<Problem>();
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors?.map((e) => e.field)).toContain(field);
  }

  describe('U+0000 in a body', () => {
    it.each([
      ['memory content', 'POST', '/memories', { content: 'a\u0000b' }, 'content'],
      ['memory tag', 'POST', '/memories', { content: 'ok', tags: ['a\u0000'] }, 'tags.0'],
      ['discussion title', 'POST', '/discussions', { title: 'a\u0000b' }, 'title'],
      ['token name', 'POST', '/tokens', { name: 'a\u0000b', scopes: ['read:account'] }, 'name'],
      ['query text', 'POST', '/queries', { text: 'hello\u0000' }, 'text'],
      [
        'query discussion_id',
        'POST',
        '/queries',
        { text: 'hi', discussion_id: 'dsc_\u0000' },
        'discussion_id',
      ],
    ] as const)('%s: 422 naming the field, nothing stored', async (_name, method, url, payload, field) => {
      expectRefused(await send(method, url, payload), field);
    });

    it('stores nothing for the refused memory', async () => {
      await send('POST', '/memories', { content: 'stored?\u0000' });
      const list = await send('GET', '/memories?q=stored');
      expect(list.json()).toMatchObject({ data: [] });
    });
  });

  describe('control characters in a name or title', () => {
    it.each([
      ['a line break in a discussion title', '/discussions', { title: 'two\nlines' }, 'title'],
      ['an escape in a token name', '/tokens', { name: 'x\u001b[2J', scopes: ['read:account'] }, 'name'],
      ['a tab in a memory tag', '/memories', { content: 'ok', tags: ['a\tb'] }, 'tags.0'],
    ] as const)('%s: 422', async (_name, url, payload, field) => {
      expectRefused(await send('POST', url, payload), field);
    });

    it('memory content keeps its line breaks and tabs', async () => {
      const res = await send('POST', '/memories', { content: 'first\n\tsecond' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ content: 'first\n\tsecond' });
    });
  });

  describe('a path id with a control character', () => {
    it.each([
      ['GET', '/memories/mem_%00'],
      ['PATCH', '/memories/mem_%00'],
      ['DELETE', '/memories/mem_%00'],
      ['GET', '/discussions/dsc_%0a'],
      ['DELETE', '/tokens/tok_%00'],
      ['DELETE', '/devices/dev_%00'],
      ['GET', '/pairing/pair_%1b'],
      ['GET', '/queries/qry_%00'],
      ['POST', '/queries/qry_x/confirmations/call%00'],
    ] as const)('%s %s: 422 naming the parameter', async (method, url) => {
      const validBody = { PATCH: { content: 'x' }, POST: { approve: true } } as Record<string, object>;
      const res = await send(method, url, validBody[method]);
      expect({ status: res.statusCode, body: res.body }).toMatchObject({ status: 422 });
      expect(res.json<Problem>()).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: url.includes('call') ? 'call_id' : 'id' }],
      });
    });
  });

  describe("a page's path id with a control character", () => {
    it.each([
      '/profile/tokens/tok_%00/revoke',
      '/profile/devices/dev_%00/revoke',
      '/profile/connections/con_%00/remove',
      '/profile/integrations/%00/revoke',
    ])('POST %s names nothing: a 404 page, not a 500 one', async (url) => {
      const browser = new PageClient(api);
      await browser.signInAs(api.userId);
      await browser.get('/profile');

      expect((await browser.post(url)).statusCode).toBe(404);
    });
  });

  describe('the query string', () => {
    it.each([
      ['?q= that is not UTF-8', '/memories?q=%ff', 'q'],
      ['?q= with a truncated UTF-8 sequence', '/memories?q=caf%c3', 'q'],
      ['?q= with U+0000', '/memories?q=a%00b', 'q'],
      ['?cursor= that is not UTF-8', '/discussions?cursor=%c3%28', 'cursor'],
    ])('%s: 422 naming the parameter', async (_name, url, field) => {
      expectRefused(await send('GET', url), field);
    });

    it('still takes valid UTF-8, spaces as + and escaped characters', async () => {
      await send('POST', '/memories', { content: 'café on the corner' });
      const res = await send('GET', `/memories?q=caf%C3%A9+corner`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ data: [{ content: 'café on the corner' }] });
    });
  });

  describe('POST /pairing/claim', () => {
    it.each([
      ['U+0000', 'phone\u0000'],
      ['a line break', 'phone\nMallory'],
      ['an escape', '\u001b[31mphone'],
    ])('a device_name with %s is refused before the code is used up', async (_name, deviceName) => {
      const created = await send('POST', '/pairing');
      const { code } = created.json<CreatedPairingCode>();
      const claim = (device_name: string) =>
        api.inject({
          method: 'POST',
          url: '/api/v1/pairing/claim',
          token: null,
          payload: { code, device_name },
        });

      expectRefused(await claim(deviceName), 'device_name');
      expect((await claim('Ada’s phone')).statusCode).toBe(201);
    });
  });
});
