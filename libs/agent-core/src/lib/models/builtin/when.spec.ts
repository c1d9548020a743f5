import { whenIn } from './when';

const BERLIN = 'Europe/Berlin';

describe('whenIn', () => {
  // Friday 27 November 2026, 12:40 in Berlin: chrono read "friday" as today until noon, then as a week later.
  const friday = new Date('2026-11-27T11:40:00Z');
  const startDay = (words: string, now = friday) => whenIn(words, now, BERLIN)?.startDay;

  it('reads a weekday alone as the next one, today included, as the day an event was added on', () => {
    expect(startDay('friday')).toBe('2026-11-27');
    expect(startDay('on friday')).toBe('2026-11-27');
    expect(startDay('this friday')).toBe('2026-11-27');
    expect(whenIn('friday at 1pm', friday, BERLIN)).toMatchObject({
      start: '2026-11-27T13:00:00+01:00',
      hasTime: true,
    });
    expect(startDay('saturday')).toBe('2026-11-28');
    expect(startDay('thursday')).toBe('2026-12-03');
    expect(whenIn('friday', friday, BERLIN)).toMatchObject({ endDay: '2026-11-27', hasTime: false });
    // "next friday" stays chrono's.
    expect(startDay('next friday')).toBe('2026-12-04');
  });

  it('reads "last" weekday as the one before today', () => {
    expect(startDay('last friday')).toBe('2026-11-20');
    expect(startDay('last saturday')).toBe('2026-11-21');
    expect(startDay('last thursday')).toBe('2026-11-26');
    expect(startDay('on last monday')).toBe('2026-11-23');
  });

  it('keeps the rest of what a weekday is said with', () => {
    expect(whenIn('friday evening', friday, BERLIN)).toMatchObject({
      start: '2026-11-27T17:00:00+01:00',
      end: '2026-11-28T00:00:00+01:00',
    });
    expect(whenIn('saturday at 9:30am', friday, BERLIN)).toMatchObject({
      start: '2026-11-28T09:30:00+01:00',
    });
    expect(whenIn('1pm on friday', friday, BERLIN)).toMatchObject({ start: '2026-11-27T13:00:00+01:00' });
    // Words that are not the date's: no day.
    expect(whenIn('friday about the fee', friday, BERLIN)).toBeUndefined();
  });

  it("takes the weekday in the user's time zone, not the server's", () => {
    // 23:30 UTC on Thursday 26 November is already Friday in Auckland.
    const late = new Date('2026-11-26T23:30:00Z');
    expect(whenIn('friday', late, 'Pacific/Auckland')?.startDay).toBe('2026-11-27');
    expect(whenIn('friday', late, 'UTC')?.startDay).toBe('2026-11-27');
    expect(whenIn('thursday', late, 'UTC')?.startDay).toBe('2026-11-26');
    expect(whenIn('thursday', late, 'Pacific/Auckland')?.startDay).toBe('2026-12-03');
  });
});
