import { availableParallelism } from 'node:os';
import { readArticleOffThread, type ArticleWorkerLimits } from './article-worker';
import { htmlTitle, htmlToText, nestsDeeperThan, pageText } from './html-text';

export interface ReaderLimits extends ArticleWorkerLimits {
  /** Pages longer than this are read without Readability: a DOM of them would cost more than it gives. */
  maxChars: number;
  /**
   * Pages whose elements nest deeper than this are read without Readability: the DOM parser's and Readability's
   * work grows much faster than the depth (a megabyte of nested elements: minutes). Real pages nest a few dozen.
   */
  maxDepth: number;
}

export const READER_LIMITS: ReaderLimits = {
  maxChars: 1_000_000,
  maxDepth: 128,
  timeoutMs: 5_000,
  maxHeapMb: 256,
  // A core left to the event loop and the database.
  maxWorkers: Math.min(4, Math.max(1, availableParallelism() - 1)),
  idleMs: 30_000,
};

/** Whether a page is within what the DOM parser and Readability are given (`maxChars`, `maxDepth`). */
export function readsAsArticle(html: string, limits: ReaderLimits = READER_LIMITS): boolean {
  return html.length <= limits.maxChars && !nestsDeeperThan(html, limits.maxDepth);
}

/**
 * A page's title and the text a person would read: Firefox's Reader View (Readability, over linkedom's DOM, which
 * runs no script) picks the article out of the navigation, menus and footers, and our extractor turns its markup
 * into lines. A page that is not an article (a list, a form, a tiny page) is read whole, and so is one beyond the
 * reader's limits: too long or too deep for a DOM, longer than its time, or while other pages take the workers.
 * The DOM is built on a worker thread; what runs here is one pass over the markup.
 */
export async function readablePage(
  html: string,
  url: string,
  limits: Partial<ReaderLimits> & { signal?: AbortSignal } = {},
): Promise<{ title?: string; text: string }> {
  const reader = { ...READER_LIMITS, ...limits };
  const article = readsAsArticle(html, reader) ? await readArticleOffThread(html, url, reader) : null;
  const text = article?.content ? htmlToText(article.content) : '';
  if (!text) return pageText(html);
  return { title: article?.title?.trim() || htmlTitle(html), text };
}
