import { isIdOf, newId } from './ids';

describe('newId', () => {
  afterEach(() => jest.restoreAllMocks());

  it('makes well-formed ids that sort in creation order, with fresh randomness every millisecond', () => {
    let now = Date.UTC(2026, 10, 24);
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const ids: string[] = [];
    // More milliseconds than one draw of random bytes serves, two ids in each.
    for (let ms = 0; ms < 600; ms++) {
      now += 1;
      ids.push(newId('query'), newId('query'));
    }
    expect(ids.every((id) => isIdOf('query', id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    const randomParts = new Set(ids.filter((_, i) => i % 2 === 0).map((id) => id.slice(-16)));
    expect(randomParts.size).toBe(600);
  });
});
