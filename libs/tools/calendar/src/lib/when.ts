import { dayRange, instantOf, wallTime } from '@assistant/tool-kit';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The words for a day that the phrasings understand. */
export const DAY_WORDS =
  '(today|tomorrow|(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on \\d{1,2}(?:st|nd|rd|th)? [a-z]+|on [a-z]+ \\d{1,2}(?:st|nd|rd|th)?)';

/**
 * The day a person means, in their time zone: today, tomorrow, a weekday (the next one, today included), or a
 * date ("on 3 December", "on December 3": this year, or next year once it has passed).
 */
export function dayOf(words: string, now: Date, timeZone: string): { start: Date; end: Date } | undefined {
  const text = words
    .toLowerCase()
    .trim()
    .replace(/^on\s+/, '');
  if (text === 'today') return dayRange(now, timeZone);
  if (text === 'tomorrow') return dayRange(now, timeZone, 1);
  const weekday = WEEKDAYS.indexOf(text);
  if (weekday >= 0) {
    const today = wallTime(now, timeZone);
    const todayWeekday = new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay();
    return dayRange(now, timeZone, (weekday - todayWeekday + 7) % 7);
  }
  const dayFirst = /^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)$/.exec(text);
  const monthFirst = /^([a-z]+) (\d{1,2})(?:st|nd|rd|th)?$/.exec(text);
  const [dayText, monthText] = dayFirst
    ? [dayFirst[1], dayFirst[2]]
    : monthFirst
      ? [monthFirst[2], monthFirst[1]]
      : [];
  if (!dayText || !monthText) return undefined;
  const month = MONTHS.indexOf(monthText.slice(0, 3)) + 1;
  const day = Number(dayText);
  if (month === 0 || day < 1 || day > 31) return undefined;
  const today = wallTime(now, timeZone);
  const passed = month < today.month || (month === today.month && day < today.day);
  const year = today.year + (passed ? 1 : 0);
  const start = instantOf({ year, month, day, hour: 0, minute: 0 }, timeZone);
  return { start, end: dayRange(start, timeZone, 1).start };
}

/** "1pm", "13:30", "9:15 am" → hours and minutes; undefined when it is not a time. */
export function timeOf(words: string): { hour: number; minute: number } | undefined {
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/i.exec(words.trim());
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const meridiem = match[3]?.toLowerCase();
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59 || (!meridiem && !match[2] && hour < 7)) {
    // "at 3" without am/pm: an afternoon, as people mean it; "at 25" is no time.
    if (hour > 23 || minute > 59) return undefined;
    hour += 12;
  }
  return { hour, minute };
}

/** A time on a day, in the zone. */
export function at(day: { start: Date }, time: { hour: number; minute: number }, timeZone: string): Date {
  const w = wallTime(day.start, timeZone);
  return instantOf(
    { year: w.year, month: w.month, day: w.day, hour: time.hour, minute: time.minute },
    timeZone,
  );
}
