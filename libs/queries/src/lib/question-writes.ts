import type { Logger } from '@nestjs/common';
import type { SqlStatement, Storage } from '@assistant/storage';

/**
 * How long a model may be silent before the question's writes start anyway: longer, and it is thinking, which
 * leaves the event loop free for them.
 */
export const MODEL_THINKING_MS = 5;

export interface Question {
  userId: string;
  queryId: string;
  discussionId: string;
  /** Set when the query starts the discussion: it is created first, with this title. */
  newDiscussionTitle?: string;
  questionId: string;
  text: string;
  /** Written in the question's commit: the query's own record (QueriesRepository.createStatement). */
  storeWith?: readonly SqlStatement[];
}

/**
 * The writes of a query that need not precede its model call: a new discussion and the question. They start once the model's first event has gone out to the client, or once the
 * model has been silent for `MODEL_THINKING_MS` — whichever comes first — so that on SQLite (whose work runs on
 * the event loop) they neither delay the model request nor the first token. The run's end starts them too, so
 * that its answer can follow its question.
 */
export class QuestionWrites {
  /**
   * Settles once the discussion exists (the query's database record refers to it); a new one is stored with the
   * question, so if that fails the query is not stored either (its run still fails, live, for want of its question).
   */
  readonly discussionStored: Promise<unknown>;
  /** Settles once the question is stored (with `storeWith`), rejects if it could not be. */
  readonly questionWritten: Promise<unknown>;
  /** True once the question is stored; false if it could not be (then `onFailure` was told). */
  readonly questionStored: Promise<boolean>;
  private started = false;
  private release!: () => void;
  private readonly fallback: NodeJS.Timeout;

  constructor(
    storage: Storage,
    logger: Pick<Logger, 'error'>,
    question: Question,
    onFailure: () => void,
    thinkingMs = MODEL_THINKING_MS,
  ) {
    const { userId, queryId, discussionId, newDiscussionTitle } = question;
    const mayStart = new Promise<void>((resolve) => (this.release = resolve));
    const message = { id: question.questionId, role: 'user', text: question.text, queryId } as const;
    // A new discussion is stored with its question, in one commit; an existing one exists already.
    const also = question.storeWith ?? [];
    const stored = newDiscussionTitle
      ? mayStart.then(() =>
          storage.discussions.createWithMessage(userId, newDiscussionTitle, discussionId, message, also),
        )
      : undefined;
    this.discussionStored = stored ?? mayStart;
    this.questionWritten =
      stored ?? mayStart.then(() => storage.discussions.appendMessage(userId, discussionId, message, also));
    // Told through questionStored; whoever waits on questionWritten handles its failure too.
    this.questionWritten.catch(() => undefined);
    this.questionStored = this.questionWritten.then(
      () => true,
      (error: unknown) => {
        logger.error({ err: error, query_id: queryId, msg: 'could not store the question' });
        onFailure();
        return false;
      },
    );
    this.fallback = setTimeout(this.start, thinkingMs);
  }

  /** The model sent an event, which is on its way out: the writes start right after. */
  modelAnswered(): void {
    if (!this.started) setImmediate(this.start);
  }

  /** The query did not start after all: nothing is written. */
  abandon(): void {
    this.started = true;
    clearTimeout(this.fallback);
  }

  /** Starts the writes now (once). */
  readonly start = (): void => {
    if (this.started) return;
    this.started = true;
    clearTimeout(this.fallback);
    this.release();
  };
}
