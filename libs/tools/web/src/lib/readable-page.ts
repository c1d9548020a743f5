import { htmlTitle, htmlToText } from './html-text';

/** Pages this long are read without Readability: parsing them into a DOM would cost more than it gives. */
const MAX_READABILITY_CHARS = 1_000_000;

/**
 * A page's title and the text a person would read: Firefox's Reader View (Readability, over linkedom's DOM, which
 * runs no script) picks the article out of the navigation, menus and footers, and our extractor turns its markup
 * into lines. A page that is not an article (a list, a form, a tiny page) is read whole.
 */
export async function readablePage(html: string, url: string): Promise<{ title?: string; text: string }> {
  const article = html.length <= MAX_READABILITY_CHARS ? await readArticle(html, url) : null;
  const text = article?.content ? htmlToText(article.content) : '';
  if (!text) return { title: htmlTitle(html), text: htmlToText(html) };
  return { title: article?.title?.trim() || htmlTitle(html), text };
}

async function readArticle(html: string, url: string) {
  const [{ parseHTML }, { Readability }] = await Promise.all([
    import('linkedom'),
    import('@mozilla/readability'),
  ]);
  try {
    const { document } = parseHTML(html);
    // Readability resolves relative links against the document's address.
    Object.defineProperty(document, 'documentURI', { value: url });
    return new Readability(document as never, { charThreshold: 100 }).parse();
  } catch {
    // Markup Readability cannot make sense of is read whole.
    return null;
  }
}
