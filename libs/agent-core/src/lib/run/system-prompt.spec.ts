import { localNow, systemPrompt } from './system-prompt';
import { historyWithin } from './history-budget';

const base = { recalled: [], instructions: [], timeZone: 'UTC' };

describe('systemPrompt', () => {
  it("says what the families of the run's tools say of them, and names no tool of its own", () => {
    const prompt = systemPrompt({
      ...base,
      instructions: ['Use tide_times when the user asks about the tides.'],
    });
    expect(prompt).toContain('Use tide_times when the user asks about the tides.');
    expect(systemPrompt(base)).not.toMatch(/[a-z]+_[a-z]+/);
  });

  it('lists the recalled memories, most relevant first', () => {
    const prompt = systemPrompt({
      ...base,
      recalled: [
        { content: 'The dog is Biscuit', created_at: '2026-01-02T10:00:00.000Z' },
        { content: 'The cat is Pixel', created_at: '2026-01-01T10:00:00.000Z' },
      ],
    });
    expect(prompt).toMatch(
      /The dog is Biscuit \(saved 2026-01-02\)\n- The cat is Pixel \(saved 2026-01-01\)/,
    );
  });

  it("tells the user's local weekday, date, hour and offset, not the server's", () => {
    // 23:30 UTC on a Thursday is already Friday in Auckland (UTC+13 in summer).
    const now = new Date('2026-11-26T23:30:00Z');
    expect(localNow(now, 'UTC')).toBe('Thursday 2026-11-26, 23:30 (GMT+0)');
    expect(localNow(now, 'Pacific/Auckland')).toBe('Friday 2026-11-27, 12:30 (GMT+13)');
    expect(systemPrompt({ ...base, timeZone: 'Pacific/Auckland', now })).toContain(
      'It is Friday 2026-11-27, 12:30 (GMT+13) for the user (time zone Pacific/Auckland)',
    );
  });

  it('tells the minute of the time asked, however often it is asked', () => {
    const at = (iso: string) => localNow(new Date(iso), 'Europe/Paris');
    expect(at('2026-03-29T00:59:59.999Z')).toBe('Sunday 2026-03-29, 01:59 (GMT+1)');
    // The next minute is summer time: the offset changes with it.
    expect(at('2026-03-29T01:00:00.000Z')).toBe('Sunday 2026-03-29, 03:00 (GMT+2)');
    expect(at('2026-03-29T01:00:59.999Z')).toBe('Sunday 2026-03-29, 03:00 (GMT+2)');
    expect(at('2026-03-29T01:05:00.000Z')).toBe('Sunday 2026-03-29, 03:05 (GMT+2)');
    expect(at('2026-03-29T00:59:00.000Z')).toBe('Sunday 2026-03-29, 01:59 (GMT+1)');
  });
});

describe('historyWithin', () => {
  const message = (i: number) => ({ role: 'user' as const, text: `message ${i} `.padEnd(400, '.') });
  const history = Array.from({ length: 30 }, (_, i) => message(i));

  it('drops the oldest messages first, whole, to fit the context', () => {
    // 4,000 tokens, 3,000 of them for the prompt: 100 for the instructions and question leaves room for 26.
    const kept = historyWithin(history, 4_000, { system: 'x'.repeat(300), question: 'y'.repeat(60) });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(history.length);
    expect(kept).toEqual(history.slice(history.length - kept.length));
  });

  it('keeps everything when it fits, and nothing when the instructions fill the context', () => {
    expect(historyWithin(history, 1_000_000, { system: '', question: '' })).toEqual(history);
    expect(historyWithin(history, 1_000, { system: 'x'.repeat(4_000), question: '?' })).toEqual([]);
  });
});
