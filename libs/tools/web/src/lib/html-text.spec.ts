import { htmlTitle, htmlToText, nestsDeeperThan } from './html-text';

/** A page's worth of one construct that a pattern tried from each position reads to the end of, every time. */
const HOSTILE: Record<string, string> = {
  'unclosed tags': '<'.repeat(1_000_000),
  'tags without an end': '< a'.repeat(333_000),
  'unclosed comments': '<!--'.repeat(250_000),
  'unclosed scripts': '<script>'.repeat(125_000),
  'unclosed titles': '<title>'.repeat(140_000),
  'open paragraphs': '<p '.repeat(330_000),
  'unfinished entities': `&${'a'.repeat(50)}`.repeat(19_000),
};

describe('reading text out of markup', () => {
  it('keeps the text a person reads: blocks are lines, tags, comments, scripts and styles go', () => {
    expect(
      htmlToText('<title>T</title><ul><li>a &lt; b</li><li>&#x263A; &#9731;</li></ul><!-- hidden -->'),
    ).toBe('a < b\n☺ ☃');
    expect(
      htmlToText(
        '<!DOCTYPE html><html><head><style>p{}</style></head><body><h1>Title</h1><p>One <b>bold</b> word' +
          '<script type="x">if (a < b && c > d) {}</script><SCRIPT>x()</SCRIPT  ></p><p>Two<br/>lines</p>' +
          '<svg><text>no</text></svg>5 < 6 &amp; 7 > 3<!-- a <p>comment</p> --></body></html>',
      ),
    ).toBe('Title\nOne bold word\nTwo\nlines\n5 < 6 & 7 > 3');
    // An element that is never closed is read on, as the text after it is the page's.
    expect(htmlToText('<p>before<script>after')).toBe('before after');
    expect(htmlToText('<p>a <!-- never closed <p>b')).toBe('a');
    expect(htmlToText('text <unfinished tag')).toBe('text');
  });

  it('finds the title, not one in a comment or a script', () => {
    expect(htmlTitle('<!-- <title>old</title> --><head><title> The &amp; page\n</title></head>')).toBe(
      'The & page',
    );
    expect(htmlTitle('<script>"<title>x</title>"</script><p>none')).toBeUndefined();
    expect(htmlTitle('<title>never closed')).toBeUndefined();
  });

  it.each(Object.entries(HOSTILE))('reads a megabyte of %s in one pass', (_name, html) => {
    // Each is a fraction of a second in one pass, and minutes (or hours) when read again from every position.
    const started = performance.now();
    htmlToText(html);
    htmlTitle(html);
    nestsDeeperThan(html, 100);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('tells how deeply a page nests its elements, as a parser would build them', () => {
    expect(nestsDeeperThan('<div><div><p>a<p>b<ul><li>c<li>d</ul></div></div>', 3)).toBe(false);
    expect(nestsDeeperThan('<div><div><div><div>x</div></div></div></div>', 3)).toBe(true);
    // Elements that close themselves, or that the next of their kind closes, do not deepen it.
    expect(nestsDeeperThan(`${'<br><img src=x><p>a<li>b<input/>'.repeat(1000)}`, 3)).toBe(false);
    // Elements never closed do.
    expect(nestsDeeperThan('<span>'.repeat(200_000), 100)).toBe(true);
    expect(nestsDeeperThan(`${'<div>'.repeat(50)}${'</div>'.repeat(50)}`.repeat(1000), 100)).toBe(false);
  });
});
