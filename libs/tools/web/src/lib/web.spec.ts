import { IntentMatcher, misreadExamples, type IntentContext } from '@assistant/tool-kit';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressPolicy, unmapped, type Resolver } from '@assistant/tool-kit';
import { WebFetchError } from './checked-get';
import { fetchPage } from './fetch-page';
import { htmlToText } from './html-text';
import { webFamily } from './web.family';

/** A small local site: pages, a redirect chain, a slow page, a big one, an image. */
let site: Server;
let port: number;
let lastHost: string | undefined;
beforeAll(async () => {
  site = createServer((req, res) => {
    lastHost = req.headers.host;
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/page':
        res.setHeader('content-type', 'text/html; charset=utf-8');
        return res.end(
          '<html><head><title>Opening hours &amp; prices</title><style>p{}</style></head><body>' +
            '<script>alert(1)</script><p>We open at 9.</p><p>We close at 17 &mdash; ask Sam.</p></body></html>',
        );
      case '/article':
        res.setHeader('content-type', 'text/html; charset=utf-8');
        return res.end(
          '<html><head><title>Bakery news | Example Town</title></head><body>' +
            '<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/login">Log in</a></nav></header>' +
            '<aside><h3>Popular</h3><ul><li><a href="/a">Ten cakes</a></li><li><a href="/b">Our team</a></li></ul></aside>' +
            '<article><h1>Sourdough is back</h1>' +
            '<p>After three months of repairs to the old oven, the bakery on Mill Street sells sourdough again from Monday, baked every morning before six.</p>' +
            '<p>The first loaves go to the school kitchen, which ordered forty a week; the rest are sold in the shop until they run out, usually by noon.</p>' +
            '</article><footer>© Example Town · <a href="/privacy">Privacy</a> · <a href="/cookies">Cookies</a></footer></body></html>',
        );
      case '/redirect':
        res.writeHead(302, { location: String(url.searchParams.get('to')) });
        return res.end();
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        return res.end();
      case '/slow':
        res.setHeader('content-type', 'text/plain');
        res.write('first words ');
        return; // never ends
      case '/big':
        res.setHeader('content-type', 'text/plain');
        return res.end('a'.repeat(50_000));
      case '/image':
        res.setHeader('content-type', 'image/png');
        return res.end(Buffer.alloc(10));
      default:
        res.statusCode = 404;
        return res.end('nothing');
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});
afterAll(() => {
  site.closeAllConnections();
  site.close();
});

const allowLoopback = addressPolicy(['127.0.0.1/32']);
const publicOnly = addressPolicy();
/** A name that resolves to the address the test chooses, as a hostile DNS server would answer. */
const resolveTo =
  (address: string): Resolver =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];

describe('fetchPage', () => {
  it('returns the readable text and title of a page, without scripts and styles', async () => {
    const page = await fetchPage(`http://127.0.0.1:${port}/page`, { policy: allowLoopback });
    expect(page).toMatchObject({
      status: 200,
      title: 'Opening hours & prices',
      text: 'We open at 9.\nWe close at 17 — ask Sam.',
      truncated: false,
      content_type: 'text/html',
    });
  });

  it("reads an article as Reader View would: the story, not the page's navigation, links and footer", async () => {
    const page = await fetchPage(`http://127.0.0.1:${port}/article`, { policy: allowLoopback });
    expect(page.text).toMatch(/^(Sourdough is back\n)?After three months of repairs/);
    expect(page.text).toContain('usually by noon.');
    for (const chrome of ['Log in', 'Ten cakes', 'Privacy', 'Cookies'])
      expect(page.text).not.toContain(chrome);
  });

  it('refuses loopback and private addresses unless the operator allows them', async () => {
    await expect(fetchPage(`http://127.0.0.1:${port}/page`, { policy: publicOnly })).rejects.toThrow(
      /127\.0\.0\.1 is a private or local address/,
    );
    await expect(fetchPage(`http://[::ffff:127.0.0.1]:${port}/page`, { policy: publicOnly })).rejects.toThrow(
      /private or local address \(127\.0\.0\.1\)/,
    );
    await expect(
      fetchPage('http://169.254.169.254/latest/meta-data', { policy: publicOnly }),
    ).rejects.toThrow(WebFetchError);
  });

  it('refuses a name that resolves to loopback, and connects only to the address it checked', async () => {
    await expect(fetchPage(`http://localhost:${port}/page`, { policy: publicOnly })).rejects.toThrow(
      /localhost is a private or local address/,
    );
    await expect(
      fetchPage(`http://innocent.example:${port}/page`, {
        policy: publicOnly,
        resolve: resolveTo('10.1.2.3'),
      }),
    ).rejects.toThrow(/innocent\.example is a private or local address \(10\.1\.2\.3\)/);
    // Allowed by name, the page is fetched from the address the check saw.
    const page = await fetchPage(`http://intranet.lan:${port}/page`, {
      policy: addressPolicy(['intranet.lan']),
      resolve: resolveTo('127.0.0.1'),
    });
    expect(page.title).toBe('Opening hours & prices');
    expect(lastHost).toBe(`intranet.lan:${port}`);
  });

  it('checks every redirect again: an allowed host cannot send the fetch to a private address', async () => {
    const viaName = addressPolicy(['localhost']);
    const target = `http://127.0.0.1:${port}/page`;
    await expect(
      fetchPage(`http://localhost:${port}/redirect?to=${encodeURIComponent(target)}`, { policy: viaName }),
    ).rejects.toThrow(/127\.0\.0\.1 is a private or local address/);
    // The same redirect within what is allowed is followed.
    const followed = await fetchPage(`http://127.0.0.1:${port}/redirect?to=/page`, { policy: allowLoopback });
    expect(followed.url).toBe(`http://127.0.0.1:${port}/page`);
  });

  it('stops after five redirects, at the deadline, and at the size limit', async () => {
    await expect(fetchPage(`http://127.0.0.1:${port}/loop`, { policy: allowLoopback })).rejects.toThrow(
      'more than 5 redirects',
    );
    await expect(
      fetchPage(`http://127.0.0.1:${port}/slow`, { policy: allowLoopback, limits: { timeoutMs: 300 } }),
    ).rejects.toThrow(/did not (answer|finish sending) within 0.3 s/);
    const big = await fetchPage(`http://127.0.0.1:${port}/big`, {
      policy: allowLoopback,
      limits: { maxBytes: 10_000, maxTextChars: 1_000 },
    });
    expect(big).toMatchObject({ truncated: true });
    expect(big.text).toHaveLength(1_000);
  });

  it('refuses what is not http(s) or not text, and says what a page answered', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'gopher://x']) {
      await expect(fetchPage(url, { policy: allowLoopback })).rejects.toThrow(/only http and https/);
    }
    await expect(fetchPage(`http://127.0.0.1:${port}/image`, { policy: allowLoopback })).rejects.toThrow(
      /is not a text page \(image\/png\)/,
    );
    await expect(fetchPage(`http://127.0.0.1:${port}/missing`, { policy: allowLoopback })).rejects.toThrow(
      /answered 404/,
    );
  });
});

describe('address checks', () => {
  it.each([
    ['127.0.0.1'],
    ['10.0.0.1'],
    ['172.16.5.4'],
    ['192.168.1.1'],
    ['100.64.0.1'],
    ['169.254.169.254'],
    ['0.0.0.0'],
    ['::1'],
    ['fd00::1'],
    ['fe80::1'],
    ['::ffff:7f00:1'],
  ])('refuses %s by default', (address) => {
    expect(publicOnly.refusal('h', address)).toMatch(/private or local address/);
  });

  it('lets public addresses through and reads mapped ones as IPv4', () => {
    expect(publicOnly.refusal('h', '93.184.216.34')).toBeNull();
    expect(publicOnly.refusal('h', '2606:2800:220:1::1')).toBeNull();
    expect(unmapped('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(unmapped('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });
});

describe('the web family', () => {
  it('fetches through its default connection and answers in sentences', async () => {
    const provider = webFamily.providers[0];
    const driver = await provider.open(
      { settings: provider.settings.parse({ allow_hosts: ['127.0.0.1/32'] }), secrets: {} },
      {
        deployment: 'self-hosted',
        allowPrivateHosts: [],
        localFolders: [],
        signal: new AbortController().signal,
      },
    );
    const [fetchTool] = webFamily.tools;
    const page = await fetchTool.handler({ url: `http://127.0.0.1:${port}/page` }, {
      driver,
      signal: new AbortController().signal,
    } as never);
    expect(webFamily.answer('web_fetch', page)).toBe(
      '“Opening hours & prices” says: We open at 9. We close at 17 — ask Sam.',
    );
    expect(webFamily.defaults?.[0]).toMatchObject({
      provider: 'fetch',
      deployments: ['self-hosted', 'hosted'],
    });
  });

  it('understands every example of its intents, taking the URL or the search as said', () => {
    expect(misreadExamples(webFamily.intents!)).toEqual([]);
    const matcher = new IntentMatcher([webFamily.intents!]);
    const context: IntentContext = {
      now: new Date(),
      timeZone: 'UTC',
      when: () => undefined,
      known: () => undefined,
      last: () => undefined,
    };
    const understood = (example: string) => matcher.match(example, context)?.action;
    const [fetchIntent, searchIntent] = webFamily.intents!.intents;
    for (const example of fetchIntent.examples) {
      expect({ example, action: understood(example) }).toEqual({
        example,
        action: {
          kind: 'tool',
          tool: 'web_fetch',
          input: { url: expect.stringMatching(/^https?:\/\/\S+[^?]$/) },
        },
      });
    }
    expect(understood('what does https://example.com/page say?')).toEqual({
      kind: 'tool',
      tool: 'web_fetch',
      input: { url: 'https://example.com/page' },
    });
    expect(searchIntent.examples.map((example) => understood(example))).toEqual(
      [
        'vegan lasagne recipes',
        'the opening hours of the Louvre',
        'train strikes in France',
        'reviews of the Fairphone 5',
        'best hiking trails near Grenoble',
        'Rust async runtimes',
      ].map((query) => ({ kind: 'tool', tool: 'web_search', input: { query } })),
    );
  });

  it('reads text out of markup, entities decoded', () => {
    expect(
      htmlToText('<title>T</title><ul><li>a &lt; b</li><li>&#x263A; &#9731;</li></ul><!-- hidden -->'),
    ).toBe('a < b\n☺ ☃');
  });
});
