import type { DriverEnvironment } from '@assistant/tool-kit';
import { startSearchEngines, type SearchEnginesFixture } from '../testing/search-engines.fixture';
import { braveProvider, searxngProvider } from './search-engines';
import type { WebSearcher } from './web.driver';
import { webFamily } from './web.family';

let engines: SearchEnginesFixture;
beforeAll(async () => {
  engines = await startSearchEngines();
});
afterAll(() => engines.close());

const env = (overrides: Partial<DriverEnvironment> = {}): DriverEnvironment => ({
  deployment: 'self-hosted',
  allowPrivateHosts: [],
  localFolders: [],
  signal: new AbortController().signal,
  ...overrides,
});
const signal = () => new AbortController().signal;

const searxng = (e = env()) =>
  searxngProvider.open({ settings: searxngProvider.settings.parse({ url: engines.url }), secrets: {} }, e);
const brave = (apiKey: string, e = env()) =>
  braveProvider.open(
    { settings: braveProvider.settings.parse({ url: engines.url }), secrets: { api_key: apiKey } },
    e,
  );
const searchTool = webFamily.tools.find((t) => t.name === 'web_search')!;
const search = (driver: WebSearcher, input: object) =>
  searchTool.handler(searchTool.input.parse(input), { driver, signal: signal() } as never);

describe('web_search through SearXNG', () => {
  it('asks for JSON and returns titles, addresses and plain excerpts, web pages only', async () => {
    const results = await search(await searxng(), { query: 'lasagne' });
    expect(engines.requests.at(-1)).toMatchObject({
      path: '/search',
      params: { q: 'lasagne', format: 'json' },
    });
    expect(results).toEqual({
      query: 'lasagne',
      engine: 'SearXNG',
      results: [
        {
          title: 'Vegan lasagne & other bakes',
          url: 'https://example.org/lasagne',
          snippet: 'A vegan lasagne with lentils, spinach and a cashew béchamel. Serves six.',
        },
        {
          title: 'Ten tips for a better lasagne',
          url: 'https://example.net/lasagne-tips',
          snippet: 'Rest the lasagne for fifteen minutes before cutting it.',
        },
        expect.objectContaining({ url: 'https://example.com/newsletter' }),
      ],
    });
  });

  it('reads an excerpt of unclosed `<` once, not once per `<`', async () => {
    const started = performance.now();
    const { results } = (await search(await searxng(), { query: 'brackets' })) as {
      results: Array<{ excerpt: string }>;
    };
    expect(results).toHaveLength(1);
    // 40,000 `<`: tried from each one, a tag pattern that may run past the next `<` took seconds.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('keeps to the count asked for', async () => {
    const { results } = (await search(await searxng(), { query: 'lasagne', count: 1 })) as {
      results: unknown[];
    };
    expect(results).toHaveLength(1);
  });

  it('is refused when the instance does not allow JSON, with the setting to change, when it is tried', async () => {
    engines.searxngJson = false;
    try {
      const driver = await searxng();
      await expect(searxngProvider.test(driver, signal())).rejects.toThrow(
        'SearXNG refused the JSON format (403): add json to search.formats in its settings.yml',
      );
    } finally {
      engines.searxngJson = true;
    }
  });
});

describe('web_search through Brave Search', () => {
  it('sends the API key as its header and the count, and strips the highlighting', async () => {
    const results = await search(await brave(engines.braveKey), { query: 'vegan', count: 2 });
    expect(engines.requests.at(-1)).toMatchObject({
      path: '/res/v1/web/search',
      params: { q: 'vegan', count: '2' },
      token: engines.braveKey,
    });
    expect(results).toEqual({
      query: 'vegan',
      engine: 'Brave Search',
      results: [
        {
          title: 'Vegan lasagne & other bakes',
          url: 'https://example.org/lasagne',
          snippet: 'A vegan lasagne with lentils, spinach and a cashew béchamel. Serves six.',
        },
      ],
    });
  });

  it('answers "nothing found" when Brave has no web section', async () => {
    const results = await search(await brave(engines.braveKey), { query: 'zzzz' });
    expect(webFamily.answer('web_search', results)).toBe('Brave Search found nothing for “zzzz”.');
  });

  it("refuses a wrong key when the connection is tried, in Brave's words", async () => {
    const driver = await brave('wrong-key');
    await expect(braveProvider.test(driver, signal())).rejects.toThrow(
      'Brave Search refused the API key (401): The provided subscription token is invalid.',
    );
  });
});

describe('search engine addresses', () => {
  it('refuses an engine on a private address on the hosted API, unless the operator allows it', async () => {
    await expect(searxng(env({ deployment: 'hosted' }))).rejects.toThrow(
      /127\.0\.0\.1 is a private or local address \(127\.0\.0\.1\); the operator can allow it with ASSISTANT_ALLOW_PRIVATE_HOSTS/,
    );
    const allowed = await searxng(env({ deployment: 'hosted', allowPrivateHosts: ['127.0.0.1/32'] }));
    await expect(searxngProvider.test(allowed, signal())).resolves.toBeUndefined();
  });
});

describe('the web family and search', () => {
  it('connects web_search only to search engines, and web_fetch only to the fetcher', () => {
    const served = Object.fromEntries(webFamily.tools.map((t) => [t.name, t.providers]));
    expect(served).toEqual({ web_fetch: ['fetch'], web_search: ['searxng', 'brave'] });
  });

  it('answers with the results, one line each', () => {
    expect(
      webFamily.answer('web_search', {
        query: 'lasagne',
        engine: 'SearXNG',
        results: [
          { title: 'Vegan lasagne', url: 'https://example.org/lasagne', snippet: 'Serves six.' },
          { title: 'Tips', url: 'https://example.net/tips', snippet: '' },
        ],
      }),
    ).toBe(
      'SearXNG found 2 results for “lasagne”:\n1. Vegan lasagne (https://example.org/lasagne): Serves six.\n2. Tips (https://example.net/tips)',
    );
  });
});
