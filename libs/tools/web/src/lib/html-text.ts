/**
 * A page's readable text: what a person would read, without scripts, styles, navigation markup or tags. A
 * small extractor of our own rather than a DOM: pages are untrusted, and only their text is wanted.
 *
 * One pass over the markup, linear in its length whatever it holds: a pattern per construct, tried again from
 * every `<` of a page full of unclosed tags, comments or scripts, costs the page's length squared (minutes for a
 * megabyte), and the server answers nobody meanwhile.
 */

/** Elements whose content is no text to read (a closed one is skipped whole, without looking into it). */
const DROPPED = new Set(['script', 'style', 'noscript', 'svg', 'template', 'iframe', 'head', 'title']);
/** Elements that start a new line. */
const BLOCK = new Set([
  ...['p', 'div', 'br', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table', 'section'],
  ...['article', 'header', 'footer', 'blockquote', 'pre', 'hr'],
]);
/** Elements without content or end tag. */
const VOID = new Set([
  ...['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source'],
  ...['track', 'wbr'],
]);
/** Elements whose end tag may be left out: the next of their kind ends them, so they do not nest by themselves. */
const OPTIONAL_END = new Set([
  ...['p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot'],
  ...['rb', 'rt', 'rp', 'colgroup'],
]);

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  copy: '©',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** One piece of markup, in the order of the page. */
type Token =
  | { kind: 'text'; text: string }
  /** A start or end tag; `<br/>` is self-closing. */
  | { kind: 'tag'; name: string; closing: boolean; selfClosing: boolean }
  /** A closed element of `DROPPED`, its content as written (markup not read). */
  | { kind: 'dropped'; name: string; content: string }
  /** A comment, a doctype, a processing instruction: nothing to read. */
  | { kind: 'other' };

/** Whether the character after a `<` may start a tag (a letter, or `/`): checked before the name is read. */
function mayStartTag(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x2f;
}

/** The name of a start or end tag, right after its `<`. */
const TAG_NAME = /(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;

/**
 * The first place at or after a position where something occurs, found by `search`: a search starts at most once
 * from each part of the page, since an answer found (or none) holds for every later position up to it.
 */
function nextOccurrence(search: (from: number) => number): (at: number) => number {
  let searchedFrom = -1;
  let found = -1;
  return (at) => {
    if (searchedFrom < 0 || at < searchedFrom || (found !== -1 && found < at)) {
      searchedFrom = at;
      found = search(at);
    }
    return found;
  };
}

/**
 * The tokens of a page, to `visit` one by one (it returns true to stop). Read as a browser would where it matters
 * here: a comment or a tag left open at the end takes the rest of the page; an element of `DROPPED` that is never
 * closed is read on, as the text after it is the page's.
 */
function scan(html: string, visit: (token: Token) => boolean | void): void {
  const gt = nextOccurrence((from) => html.indexOf('>', from));
  const commentEnd = nextOccurrence((from) => html.indexOf('-->', from));
  const endTags = new Map<string, (at: number) => number>();
  /** Where the end tag of a dropped element starts, and its length. */
  const endTag = (name: string, at: number): { start: number; length: number } | undefined => {
    let find = endTags.get(name);
    if (!find) {
      const pattern = new RegExp(`</${name}\\s*>`, 'gi');
      find = nextOccurrence((from) => {
        pattern.lastIndex = from;
        return pattern.exec(html)?.index ?? -1;
      });
      endTags.set(name, find);
    }
    const start = find(at);
    if (start < 0) return undefined;
    const length = html.indexOf('>', start) + 1 - start;
    return { start, length };
  };

  /** Where the text not yet told starts, and where to look for the next "<". */
  let text = 0;
  let at = 0;
  for (let open = html.indexOf('<', at); open >= 0; open = html.indexOf('<', at)) {
    const next = html[open + 1];
    const declaration = next === '!' || next === '?';
    TAG_NAME.lastIndex = open + 1;
    const tag = declaration || !mayStartTag(html.charCodeAt(open + 1)) ? null : TAG_NAME.exec(html);
    const nameEnd = TAG_NAME.lastIndex; // Read now: a visitor may scan another text (a head's title).
    at = open + 1;
    if (!declaration && !tag) continue; // A "<" that starts no markup ("5 < 6") is text: read on.
    if (open > text && visit({ kind: 'text', text: html.slice(text, open) })) return;
    if (!tag) {
      // A comment ends at "-->", a doctype or a processing instruction at ">"; unended, it takes the rest.
      const comment = html.startsWith('<!--', open);
      const end = comment ? commentEnd(open + 4) : gt(open);
      if (end < 0 || visit({ kind: 'other' })) return;
      at = text = end + (comment ? 3 : 1);
      continue;
    }
    const end = gt(nameEnd);
    if (end < 0) return; // A tag never finished takes the rest.
    const name = tag[2].toLowerCase();
    const closing = tag[1] === '/';
    const selfClosing = html[end - 1] === '/';
    at = text = end + 1;
    const close = !closing && !selfClosing && DROPPED.has(name) ? endTag(name, at) : undefined;
    if (close) {
      if (visit({ kind: 'dropped', name, content: html.slice(at, close.start) })) return;
      at = text = close.start + close.length;
    } else if (visit({ kind: 'tag', name, closing, selfClosing })) return;
  }
  if (html.length > text) visit({ kind: 'text', text: html.slice(text) });
}

/** The page's title: its first `<title>` element, in its `<head>` or not, but never in a comment or a script. */
export function htmlTitle(html: string): string | undefined {
  let title: string | undefined;
  scan(html, (token) => {
    if (token.kind === 'dropped') title = titleIn(token);
    return title !== undefined;
  });
  return title;
}

/** The title a dropped element holds: a `<title>`'s text, or the title in a closed `<head>` (one token). */
function titleIn(token: { name: string; content: string }): string | undefined {
  // A head holds no closed head, so this reads the page's head once more at most.
  if (token.name === 'head') return htmlTitle(token.content);
  if (token.name !== 'title') return undefined;
  return decodeEntities(token.content).replace(/\s+/g, ' ').trim() || undefined;
}

export function htmlToText(html: string): string {
  return pageText(html).text;
}

/** The page's title and its text (as `htmlTitle` and `htmlToText`), in one pass. */
export function pageText(html: string): { title?: string; text: string } {
  const parts: string[] = [];
  let title: string | undefined;
  scan(html, (token) => {
    if (token.kind === 'text') return void parts.push(token.text);
    if (token.kind === 'dropped') title ??= titleIn(token);
    parts.push(token.kind === 'tag' && BLOCK.has(token.name) ? '\n' : ' ');
  });
  const text = decodeEntities(parts.join(''))
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  return { title, text };
}

/**
 * Whether the page's elements nest deeper than `limit`, counted as a parser builds them: elements without content
 * or end tag, and those the next of their kind ends (`<p>`, `<li>`), do not deepen it; an element never closed
 * does. Stops reading at the first element past the limit.
 */
export function nestsDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  let deeper = false;
  scan(html, (token) => {
    if (token.kind !== 'tag' || token.selfClosing) return false;
    if (VOID.has(token.name) || OPTIONAL_END.has(token.name)) return false;
    depth = token.closing ? Math.max(0, depth - 1) : depth + 1;
    deeper = depth > limit;
    return deeper;
  });
  return deeper;
}
