import { systemPrompt } from './system-prompt';

describe('systemPrompt', () => {
  it("says what the families of the run's tools say of them, and names no tool of its own", () => {
    const prompt = systemPrompt([], ['Use tide_times when the user asks about the tides.']);
    expect(prompt).toContain('Use tide_times when the user asks about the tides.');
    expect(prompt).not.toMatch(/memory_save|memory_search/);
  });

  it('lists the recalled memories, most relevant first', () => {
    const prompt = systemPrompt(
      [
        { content: 'The dog is Biscuit', created_at: '2026-01-02T10:00:00.000Z' },
        { content: 'The cat is Pixel', created_at: '2026-01-01T10:00:00.000Z' },
      ],
      [],
    );
    expect(prompt).toMatch(
      /The dog is Biscuit \(saved 2026-01-02\)\n- The cat is Pixel \(saved 2026-01-01\)/,
    );
  });
});
