import type { Sql } from '../sql';
import { MEMORY_COLUMNS } from '../rows';
import { atLeastExpression, commonWordPasses, type RecallBounds, type RecallPlan } from '../recall-plan';

export type Row = Record<string, unknown>;

/** The memory columns, qualified by the alias `m` that the search queries give the memories table. */
export const COLUMNS_OF_M = MEMORY_COLUMNS.split(', ')
  .map((c) => `m.${c}`)
  .join(', ');

/** The queries of a bounded recall (MemoriesRepository.recall), in one dialect. */
export interface MemoryRecall {
  /** How many memories contain each word (all users' memories: that is what a search reads), or an estimate. */
  documentCounts(words: string[], bounds: RecallBounds): Promise<number[]>;
  /** Whether a count of 0 means that no memory has the word (and not an estimate that missed it). */
  readonly countsAreExact: boolean;
  /**
   * Up to `limit` of the user's memories for `plan`: those with a selective word, best first; then, in the
   * places they leave, the newest with the common words: those with all of them first, then with two, then any.
   */
  recall(userId: string, plan: RecallPlan, limit: number, bounds: RecallBounds): Promise<Row[]>;
}

/** Words are letters and digits only, so quoting each one makes a safe FTS5 phrase. */
const ftsQuery = (words: string[], atLeast: number) =>
  atLeastExpression(words, atLeast, { word: (w) => `"${w}"`, and: ' AND ', or: ' OR ' });
/** The same, as a tsquery (to_tsquery stems each word as to_tsvector did). */
const tsQuery = (words: string[], atLeast: number) =>
  atLeastExpression(words, atLeast, { word: (w) => w, and: ' & ', or: ' | ' });

/**
 * SQLite FTS5. Counting a word's memories stops at the first count above the selective bound, so it reads at
 * most that many entries of the index. bm25 is not used for the common words: it counts every memory that
 * contains each word of its query (for the word's weight) before ranking any, which is the cost being avoided.
 */
export class SqliteRecall implements MemoryRecall {
  readonly countsAreExact = true;

  constructor(private readonly sql: Sql) {}

  async documentCounts(words: string[], bounds: RecallBounds): Promise<number[]> {
    const counts = words.map(
      (_, i) =>
        `(SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)) AS c${i}`,
    );
    const cap = bounds.selectiveDocuments + 1;
    const row = await this.sql.one<Row>(
      `SELECT ${counts.join(', ')}`,
      words.flatMap((w) => [`"${w}"`, cap]),
    );
    return words.map((_, i) => Number(row?.[`c${i}`] ?? 0));
  }

  async recall(userId: string, plan: RecallPlan, limit: number, bounds: RecallBounds): Promise<Row[]> {
    const found = plan.selective.length > 0 ? await this.ranked(userId, plan, limit) : [];
    if (found.length < limit && plan.common.length > 0) {
      // Every memory with a selective word is in `found` already, since it has places left.
      const seen = new Set(found.map((row) => row.id as string));
      found.push(...(await this.recent(userId, plan.common, limit - found.length, seen, bounds)));
    }
    return found;
  }

  private ranked(userId: string, plan: RecallPlan, limit: number): Promise<Row[]> {
    return this.sql.query<Row>(
      `SELECT ${COLUMNS_OF_M} FROM memories_fts JOIN memories m ON m.search_rowid = memories_fts.rowid
       WHERE memories_fts MATCH ? AND m.user_id = ? ORDER BY bm25(memories_fts), m.id DESC LIMIT ?`,
      [ftsQuery(plan.selective, 1), userId, limit],
    );
  }

  /**
   * One pass per "at least" (all, two, any), each over the newest `recentCandidates` memories it matches: FTS5
   * intersects and merges its lists cheaply, so a memory with all the common words is found even when it is
   * older than the newest with one of them.
   */
  private async recent(
    userId: string,
    common: string[],
    places: number,
    exclude: Set<string>,
    bounds: RecallBounds,
  ): Promise<Row[]> {
    const found: Row[] = [];
    const seen = new Set(exclude);
    for (const atLeast of commonWordPasses(common.length)) {
      if (found.length >= places) break;
      const rows = await this.newestWith(userId, ftsQuery(common, atLeast), places + seen.size, bounds);
      for (const row of rows) {
        if (found.length < places && !seen.has(row.id as string)) {
          seen.add(row.id as string);
          found.push(row);
        }
      }
    }
    return found;
  }

  /**
   * The newest candidates come from the index in rowid order (the order memories were written). highlight()
   * marks each occurrence of a query word with one added character, so its length minus the column's is how
   * many times the memory contains the common words.
   */
  private newestWith(
    userId: string,
    expression: string,
    limit: number,
    bounds: RecallBounds,
  ): Promise<Row[]> {
    return this.sql.query<Row>(
      `SELECT ${COLUMNS_OF_M} FROM (
         SELECT memories_fts.rowid AS candidate,
                length(highlight(memories_fts, 0, char(1), '')) - length(m.content)
                  + length(highlight(memories_fts, 1, char(1), '')) - length(m.tags) AS occurrences
         FROM memories_fts JOIN memories m ON m.search_rowid = memories_fts.rowid
         WHERE memories_fts MATCH ? AND m.user_id = ? ORDER BY memories_fts.rowid DESC LIMIT ?) c
       JOIN memories m ON m.search_rowid = c.candidate ORDER BY c.occurrences DESC, m.id DESC LIMIT ?`,
      [expression, userId, bounds.recentCandidates, limit],
    );
  }
}

/** How long PostgreSQL's word statistics are reused before they are read again. */
const STATISTICS_TTL_MS = 60_000;
/** How many words' lexemes are remembered (a word's lexeme does not change: the English stemmer is fixed). */
const LEXEMES_KEPT = 10_000;

/**
 * The search column with the memory's owner as one more lexeme, written exactly as idx_memories_owner_search
 * indexes it (migration 1795910000000): the planner uses an expression index only for the same expression.
 */
export const OWNER_SEARCH = '(array_to_tsvector(ARRAY[m.user_id::text]) || m.search_vector)';

/** One part of a recall statement: a SELECT of memory columns with their `position` (1 = best), and its values. */
interface RecallPart {
  text: string;
  params: unknown[];
}

/**
 * PostgreSQL tsvector + GIN. How many memories contain a word is estimated from the planner's statistics of the
 * search column (its most common lexemes and their frequencies, kept up to date by autovacuum's ANALYZE): a word
 * that is not among them is rare enough. A table without statistics yet (new or small) has no common word.
 * ts_rank needs no corpus statistics, so the selective candidates are ranked by the whole question.
 *
 * Once its words' lexemes are known (remembered after their first recall), a recall is one statement: the
 * server runs each of its parts in well under a millisecond, and each round trip more costs about as much again
 * in the two processes (measured: ~0.1 ms of client CPU, and a wake-up of each side) and, on a busy machine,
 * another chance to wait for a CPU.
 */
export class PostgresRecall implements MemoryRecall {
  /** The planner's statistics sample the memories: a word they do not name may still be in some. */
  readonly countsAreExact = false;
  private statistics: { documents: Map<string, number>; readAt: number } | null = null;
  /** Word → its lexeme (null for a word the English configuration drops), oldest first. */
  private readonly lexemes = new Map<string, string | null>();

  constructor(private readonly sql: Sql) {}

  async documentCounts(words: string[]): Promise<number[]> {
    const documents = await this.lexemeDocuments();
    if (documents.size === 0) return words.map(() => 0);
    const lexemes = await this.lexemesOf(words);
    return lexemes.map((lexeme) => (lexeme === null ? 0 : (documents.get(lexeme) ?? 0)));
  }

  /**
   * With both selective and common words, one statement: the common words' part is evaluated only when the
   * ranked part leaves places (an InitPlan's count gates it), and gives up to `limit` rows, so that enough
   * remain once those already ranked are left out.
   */
  async recall(userId: string, plan: RecallPlan, limit: number, bounds: RecallBounds): Promise<Row[]> {
    const ranked = plan.selective.length > 0 ? this.ranked(userId, plan, limit) : null;
    const recent = plan.common.length > 0 ? this.recent(userId, plan.common, limit, bounds) : null;
    if (ranked === null || recent === null) {
      const only = ranked ?? recent;
      return only ? this.sql.query<Row>(only.text, only.params, { planEachTime: true }) : [];
    }
    const rows = await this.sql.query<Row>(
      `WITH ranked AS MATERIALIZED (${ranked.text})
       SELECT *, 1 AS part FROM ranked
       UNION ALL
       SELECT *, 2 AS part FROM (${recent.text}) r WHERE (SELECT count(*) FROM ranked) < ?
       ORDER BY part, position`,
      [...ranked.params, ...recent.params, limit],
      { planEachTime: true },
    );
    const found = rows.filter((row) => Number(row.part) === 1);
    const seen = new Set(found.map((row) => row.id as string));
    for (const row of rows) {
      if (found.length < limit && !seen.has(row.id as string)) found.push(row);
    }
    return found;
  }

  /**
   * The user's memories with a selective word, ranked by the whole question: found in the owner's search index
   * (the owner's lexeme AND any selective word), `user_id = ?` still being what keeps others' memories out.
   * The numnode test is needed: when no selective word has a lexeme ("²"), their tsquery is empty, and
   * `owner && empty` is `owner`, which every memory of the user matches.
   */
  private ranked(userId: string, plan: RecallPlan, limit: number): RecallPart {
    return {
      text: `SELECT ${COLUMNS_OF_M}, row_number() OVER (
               ORDER BY ts_rank(m.search_vector, to_tsquery('english', ?)) DESC, m.id DESC) AS position
             FROM memories m WHERE m.user_id = ?
               AND ${OWNER_SEARCH} @@ (quote_literal(?)::tsquery && to_tsquery('english', ?))
               AND numnode(to_tsquery('english', ?)) > 0
             ORDER BY position LIMIT ?`,
      params: [
        tsQuery([...plan.selective, ...plan.common], 1),
        userId,
        userId,
        tsQuery(plan.selective, 1),
        tsQuery(plan.selective, 1),
        limit,
      ],
    };
  }

  /**
   * The newest `recentCandidates` memories with any common word, ordered by whether they have all, then two of
   * the words (SQLite's passes, over this one window). Only the window is read: a GIN index intersects whole
   * posting lists, so an AND of words in most memories of all users (as SQLite's "all" pass) reads most of the
   * table; with an OR and `ORDER BY id DESC LIMIT`, the planner reads the user's newest memories from the
   * (user_id, id) index when the words are common for them, or the GIN lists when not.
   */
  private recent(userId: string, common: string[], limit: number, bounds: RecallBounds): RecallPart {
    const before = commonWordPasses(common.length).slice(0, -1);
    return {
      text: `SELECT ${COLUMNS_OF_M}, row_number() OVER (ORDER BY ${before
        .map(() => `m.search_vector @@ to_tsquery('english', ?) DESC, `)
        .join('')}ts_rank(m.search_vector, to_tsquery('english', ?)) DESC, m.id DESC) AS position
             FROM (SELECT * FROM memories WHERE user_id = ? AND search_vector @@ to_tsquery('english', ?)
                   ORDER BY id DESC LIMIT ?) m
             ORDER BY position LIMIT ?`,
      params: [
        ...before.map((atLeast) => tsQuery(common, atLeast)),
        tsQuery(common, 1),
        userId,
        tsQuery(common, 1),
        bounds.recentCandidates,
        limit,
      ],
    };
  }

  /** Each word's lexeme, as to_tsvector('english') makes it; only words not seen before go to the server. */
  private async lexemesOf(words: string[]): Promise<(string | null)[]> {
    const stemmed = new Map<string, string | null>();
    const unknown: string[] = [];
    for (const word of words) {
      const lexeme = this.lexemes.get(word);
      if (lexeme === undefined) unknown.push(word);
      else stemmed.set(word, lexeme);
    }
    if (unknown.length > 0) {
      const rows = await this.sql.query<Row>(
        `SELECT (tsvector_to_array(to_tsvector('english', w)))[1] AS lexeme FROM unnest(?::text[]) WITH ORDINALITY AS t(w, i) ORDER BY i`,
        [unknown],
      );
      unknown.forEach((word, i) => {
        const lexeme = rows[i]?.lexeme == null ? null : String(rows[i].lexeme);
        stemmed.set(word, lexeme);
        if (this.lexemes.size >= LEXEMES_KEPT)
          this.lexemes.delete(this.lexemes.keys().next().value as string);
        this.lexemes.set(word, lexeme);
      });
    }
    return words.map((word) => stemmed.get(word) ?? null);
  }

  /** Lexeme → estimated number of memories containing it, for the lexemes the statistics list. */
  private async lexemeDocuments(): Promise<Map<string, number>> {
    if (this.statistics && Date.now() - this.statistics.readAt < STATISTICS_TTL_MS) {
      return this.statistics.documents;
    }
    const rows = await this.sql.query<Row>(
      `SELECT e.lexeme, e.frequency * greatest(c.reltuples, 0) AS documents
       FROM pg_class c JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'memories'
         AND s.attname = 'search_vector'
       CROSS JOIN unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, frequency)
       WHERE c.oid = 'memories'::regclass AND e.lexeme IS NOT NULL`,
      [],
    );
    const documents = new Map(rows.map((row) => [String(row.lexeme), Number(row.documents)]));
    this.statistics = { documents, readAt: Date.now() };
    return documents;
  }
}
