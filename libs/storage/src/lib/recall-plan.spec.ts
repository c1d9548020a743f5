import { atLeastExpression, commonWordPasses, planRecall, RECALL_BOUNDS } from './recall-plan';

describe('planRecall', () => {
  const bounds = { selectiveDocuments: 10, rankedDocuments: 15, recentCandidates: 5 };

  it('ranks the rarest words while their memories fit the bounds; the rest are common', () => {
    expect(planRecall(['family', 'orchid', 'dinner', 'tulip'], [500, 3, 11, 9], bounds)).toEqual({
      selective: ['orchid', 'tulip'],
      common: ['dinner', 'family'],
    });
  });

  it('stops adding selective words when their memories together pass the ranked bound', () => {
    expect(planRecall(['a', 'b', 'c'], [6, 7, 8], bounds)).toEqual({ selective: ['a', 'b'], common: ['c'] });
  });

  it('keeps every word selective on a small memory (nothing is common with the default bounds)', () => {
    expect(planRecall(['anna', 'birthday'], [3, 40], RECALL_BOUNDS)).toEqual({
      selective: ['anna', 'birthday'],
      common: [],
    });
  });
});

describe('commonWordPasses', () => {
  it('asks for all the common words, then two, then any', () => {
    expect(commonWordPasses(1)).toEqual([1]);
    expect(commonWordPasses(2)).toEqual([2, 1]);
    expect(commonWordPasses(4)).toEqual([4, 2, 1]);
    expect(commonWordPasses(9)).toEqual([9, 1]);
    expect(commonWordPasses(0)).toEqual([]);
  });
});

describe('atLeastExpression', () => {
  const fts = { word: (w: string) => `"${w}"`, and: ' AND ', or: ' OR ' };

  it('writes all, two or any of the words in the engine syntax', () => {
    expect(atLeastExpression(['a', 'b', 'c'], 3, fts)).toBe('"a" AND "b" AND "c"');
    expect(atLeastExpression(['a', 'b', 'c'], 2, fts)).toBe(
      '("a" AND "b") OR ("a" AND "c") OR ("b" AND "c")',
    );
    expect(atLeastExpression(['a', 'b', 'c'], 1, fts)).toBe('"a" OR "b" OR "c"');
  });
});
