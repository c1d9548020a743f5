import { READER_LIMITS, readablePage, readsAsArticle } from './readable-page';

/** A page of `bytes` whose one text sits at the bottom of elements nested as deep as that size allows. */
function nestedPage(bytes: number, tag = 'div'): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const depth = Math.floor((bytes - 100) / (open.length + close.length));
  return `<html><head><title>Deep</title></head><body>${open.repeat(depth)}deep text${close.repeat(depth)}</body></html>`;
}

/** An ordinary article of about `bytes`: navigation, a story of many paragraphs, a footer. */
function articlePage(bytes: number): string {
  const head =
    '<html><head><title>Bakery news</title></head><body><nav><a href="/">Home</a> <a href="/login">Log in</a></nav>' +
    '<div class="main"><article><h1>Sourdough is back</h1>';
  const paragraph =
    '<div class="para"><p>After three months of repairs to the old oven, the bakery on <b>Mill Street</b> sells ' +
    'sourdough again, baked every morning before six.</p></div>\n';
  const tail = '</article></div><footer><a href="/privacy">Privacy</a></footer></body></html>';
  return head + paragraph.repeat(Math.ceil((bytes - head.length - tail.length) / paragraph.length)) + tail;
}

/** The longest the event loop went without running a timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    clearInterval(timer);
  }
  return longest;
}

describe('reading a page as Reader View would', () => {
  it('picks the story out of an ordinary page', async () => {
    // (Time enough for a worker that starts cold on a busy machine: the limit is another test's.)
    const page = await readablePage(articlePage(20_000), 'https://example.test/news', { timeoutMs: 60_000 });
    expect(page.title).toBe('Bakery news');
    expect(page.text).toMatch(/^(Sourdough is back\n)?After three months of repairs/);
    expect(page.text).not.toContain('Log in');
  });

  it('never hands a DOM parser a page too deep or too long for it: such a page is read whole, in one pass', async () => {
    // Elements nested thousands deep cost the DOM parser and Readability minutes; a page of many thousands of
    // elements seconds. Neither is built into a DOM.
    for (const html of [nestedPage(1_000_000), nestedPage(1_000_000, 'span'), '<div>'.repeat(200_000)]) {
      expect(readsAsArticle(html)).toBe(false);
    }
    expect(readsAsArticle(nestedPage(20_000))).toBe(false);
    expect(readsAsArticle('x'.repeat(READER_LIMITS.maxChars + 1))).toBe(false);
    expect(readsAsArticle(articlePage(200_000))).toBe(true);

    const started = performance.now();
    const page = await readablePage(nestedPage(1_000_000), 'https://example.test/deep');
    expect(page).toEqual({ title: 'Deep', text: 'deep text' });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('builds the DOM off the event loop: other requests are served while a long page is read', async () => {
    // Most of a megabyte of article took Readability over linkedom seconds on the event loop.
    const html = articlePage(900_000);
    const stall = await longestStall(() => readablePage(html, 'https://example.test/long'));
    expect(stall).toBeLessThan(1_000);
  });

  it('reads a page whole when the DOM takes longer than its time, or the call is cancelled', async () => {
    const page = await readablePage(articlePage(200_000), 'https://example.test/slow', { timeoutMs: 1 });
    expect(page.title).toBe('Bakery news');
    expect(page.text).toMatch(/^Home Log in\nSourdough is back\n/);
    const cancel = new AbortController();
    const reading = readablePage(articlePage(200_000), 'https://example.test/gone', {
      timeoutMs: 60_000,
      signal: cancel.signal,
    });
    cancel.abort();
    expect((await reading).text).toMatch(/^Home Log in\nSourdough is back\n/);
  });
});
