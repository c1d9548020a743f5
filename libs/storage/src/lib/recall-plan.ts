/**
 * Which words of a question a recall searches by relevance, and which it only searches among recent memories.
 *
 * Why: recall runs before every model call. Ranking every memory that contains a common word ("family" in a
 * third of a user's 100,000 memories) costs tens of milliseconds, and a common word says little about which
 * memories matter (its inverse document frequency, the weight bm25 gives it, is near zero). So the words that
 * few memories contain (selective words) are searched and ranked over every memory; the common ones only over a
 * bounded set of the newest memories that contain them, and only to fill the places the selective words leave.
 */
export interface RecallBounds {
  /** A word in at most this many memories is selective (searched in every memory). */
  readonly selectiveDocuments: number;
  /** At most this many memories, summed over the selective words, are ranked by relevance. */
  readonly rankedDocuments: number;
  /** The common words are searched among at most this many of the newest memories that contain one of them. */
  readonly recentCandidates: number;
}

/**
 * Measured with tools/bench/src/recall-bench.mjs (100,000 memories of one user on SQLite, 1,000,000 over 1,000
 * users on PostgreSQL): bm25 costs ~0.5 µs per ranked memory on SQLite (1,000 stay under 1 ms); a GIN posting
 * list ~0.15 µs per entry; the newest 50 matches of a common word take ~0.2 ms on SQLite and read ~80 rows of
 * the user on PostgreSQL. A user whose words are each in fewer than 500 memories is ranked exactly as before.
 */
export const RECALL_BOUNDS: RecallBounds = {
  selectiveDocuments: 500,
  rankedDocuments: 1_000,
  recentCandidates: 50,
};

export interface RecallPlan {
  /** Searched and ranked over every memory, rarest first. */
  selective: string[];
  /** Searched among the newest memories that contain them, when the selective words leave places to fill. */
  common: string[];
}

/**
 * Splits `words` by how many memories contain each (`documents`, in the same order; a count above
 * `selectiveDocuments` may be capped): the rarest words are selective while their counts fit the bounds.
 */
export function planRecall(words: string[], documents: number[], bounds: RecallBounds): RecallPlan {
  const byRarity = words.map((word, i) => ({ word, count: documents[i] })).sort((a, b) => a.count - b.count);
  const selective: string[] = [];
  const common: string[] = [];
  let ranked = 0;
  for (const { word, count } of byRarity) {
    if (count <= bounds.selectiveDocuments && ranked + count <= bounds.rankedDocuments) {
      selective.push(word);
      ranked += count;
    } else {
      common.push(word);
    }
  }
  return { selective, common };
}

/** Above this many common words, the pass for memories with two of them is skipped (it lists every pair). */
const MAX_WORDS_FOR_PAIRS = 8;

/**
 * The passes over the newest memories that fill the places the selective words leave: first memories with all
 * the common words, then with two of them, then with any, so that a memory sharing more of the question comes
 * first even when it is not among the newest that share only one word.
 */
export function commonWordPasses(commonWords: number): number[] {
  const passes = [commonWords, commonWords <= MAX_WORDS_FOR_PAIRS ? 2 : 0, 1];
  return [...new Set(passes)].filter((atLeast) => atLeast >= 1 && atLeast <= commonWords);
}

/**
 * A full-text expression that matches texts containing at least `atLeast` of `words` (one of: all of them,
 * two of them, any), given how the engine writes a word, AND and OR.
 */
export function atLeastExpression(
  words: string[],
  atLeast: number,
  syntax: { word: (w: string) => string; and: string; or: string },
): string {
  const terms = words.map(syntax.word);
  if (atLeast <= 1) return terms.join(syntax.or);
  if (atLeast >= words.length) return terms.join(syntax.and);
  const pairs: string[] = [];
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j < terms.length; j++) pairs.push(`(${terms[i]}${syntax.and}${terms[j]})`);
  }
  return pairs.join(syntax.or);
}
