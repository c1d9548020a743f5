import { Worker } from 'node:worker_threads';

/** What Readability makes of a page: its title and the article's markup. */
export interface Article {
  title?: string;
  content?: string;
}

export interface ArticleWorkerLimits {
  /** The longest one page may take; then its worker is stopped. */
  timeoutMs: number;
  /** A worker's heap (when it starts): a page whose DOM would need more ends its worker, not the server. */
  maxHeapMb: number;
  /** Pages read at once in this process; another is not read as an article while they are. */
  maxWorkers: number;
  /** How long a worker waits for the next page before it ends (warm, it reads a page several times faster). */
  idleMs: number;
}

/**
 * The workers' program. Readability over linkedom costs seconds for a long page (and more for a deeply nested
 * one): on a thread of its own, the server goes on answering meanwhile. It is given as source, not as a file, so
 * that it runs the same from the built package and from the sources under test; the modules it loads are named
 * by the paths this module resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { parseHTML } = require(workerData.linkedom);
const { Readability } = require(workerData.readability);
parentPort.on('message', ({ html, url }) => {
  let article = null;
  try {
    const { document } = parseHTML(html);
    // Readability resolves relative links against the document's address.
    Object.defineProperty(document, 'documentURI', { value: url });
    const read = new Readability(document, { charThreshold: 100 }).parse();
    if (read) article = { title: read.title ?? undefined, content: read.content ?? undefined };
  } catch {
    // Markup Readability cannot make sense of is read whole.
  }
  parentPort.postMessage(article);
});
`;

/** One worker thread, reading one page at a time; it ends when stuck, crashed, cancelled or idle. */
class ArticleWorker {
  private finish: ((article: Article | null) => void) | undefined;
  private idle: NodeJS.Timeout | undefined;
  private ended = false;

  private constructor(
    private readonly worker: Worker,
    private readonly idleMs: number,
  ) {
    worker.on('message', (article: Article | null) => this.done(article));
    worker.on('error', () => this.end());
    worker.on('exit', () => this.end());
    // A waiting worker keeps no process alive (unref'd after the listeners, which would ref it again); a busy one
    // does, as its caller waits for it.
    worker.unref();
  }

  static start(limits: ArticleWorkerLimits): ArticleWorker | undefined {
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          linkedom: require.resolve('linkedom'),
          readability: require.resolve('@mozilla/readability'),
        },
        resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
        // Its own output, unread: the server's stdout carries JSON log lines, which a warning would break.
        stdout: true,
        stderr: true,
      });
      return new ArticleWorker(worker, limits.idleMs);
    } catch {
      return undefined;
    }
  }

  get busy(): boolean {
    return this.finish !== undefined;
  }

  read(html: string, url: string, timeoutMs: number, signal?: AbortSignal): Promise<Article | null> {
    clearTimeout(this.idle);
    this.worker.ref();
    return new Promise((resolve) => {
      // A page that takes too long, or whose call is cancelled, stops its worker: nothing else would.
      const stuck = setTimeout(() => this.end(), timeoutMs);
      const cancelled = () => this.end();
      signal?.addEventListener('abort', cancelled, { once: true });
      this.finish = (article) => {
        clearTimeout(stuck);
        signal?.removeEventListener('abort', cancelled);
        resolve(article);
      };
      this.worker.postMessage({ html, url });
    });
  }

  private done(article: Article | null): void {
    const finish = this.finish;
    this.finish = undefined;
    finish?.(article);
    if (this.ended) return;
    this.worker.unref();
    this.idle = setTimeout(() => this.end(), this.idleMs).unref();
  }

  private end(): void {
    this.ended = true;
    workers.delete(this);
    clearTimeout(this.idle);
    const finish = this.finish;
    this.finish = undefined;
    finish?.(null);
    void this.worker.terminate();
  }
}

/** The process's workers, busy or waiting for a page. */
const workers = new Set<ArticleWorker>();

/**
 * The page's article as Readability reads it, on a worker thread: null when it finds none, cannot read the page,
 * takes longer than its time, runs out of its heap, is cancelled, or when all the workers are busy.
 */
export function readArticleOffThread(
  html: string,
  url: string,
  limits: ArticleWorkerLimits & { signal?: AbortSignal },
): Promise<Article | null> {
  if (limits.signal?.aborted) return Promise.resolve(null);
  let worker = [...workers].find((candidate) => !candidate.busy);
  if (!worker && workers.size < limits.maxWorkers) {
    worker = ArticleWorker.start(limits);
    if (worker) workers.add(worker);
  }
  return worker ? worker.read(html, url, limits.timeoutMs, limits.signal) : Promise.resolve(null);
}
