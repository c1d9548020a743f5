import * as chrono from 'chrono-node';
import {
  instantOf,
  isoInZone,
  offsetMinutes,
  wallTime,
  type Wall,
  type WhenRange,
} from '@assistant/tool-kit';

/**
 * The day, period or moment that words name, in the user's time zone: chrono-node reads dates and times ("3
 * December 2026", "next Thursday", "in two weeks", "friday at 1pm"); the periods people say of a calendar ("this
 * week", "next month", "the weekend", "tomorrow evening", "on the 24th") are read here, as chrono gives them a
 * single moment.
 */

/** Adds days to a wall date (months and years roll over). */
function addDays(wall: Wall, days: number): Wall {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return { ...wall, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const midnight = (wall: Wall): Wall => ({ ...wall, hour: 0, minute: 0 });
const weekday = (wall: Wall) => new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();

function range(start: Wall, end: Wall, timeZone: string, hasTime: boolean): WhenRange {
  const from = instantOf(start, timeZone);
  const to = instantOf(end, timeZone);
  const iso = (w: Wall) => `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
  // The last day a period covers: the day before an end at midnight.
  const lastDay = end.hour === 0 && end.minute === 0 ? addDays(end, -1) : end;
  return {
    start: isoInZone(from, timeZone),
    end: isoInZone(to, timeZone),
    hasTime,
    startDay: iso(start),
    endDay: iso(lastDay),
  };
}

/** Parts of a day, as people say them of a calendar. */
const PARTS: Record<string, [number, number]> = {
  morning: [6, 12],
  afternoon: [12, 17],
  evening: [17, 24],
  tonight: [17, 24],
  night: [18, 24],
  lunchtime: [11, 14],
};

/** Words around a date that say nothing of it. */
const FILLER = new Set(['on', 'at', 'for', 'in', 'the', 'of', 'during', 'from', 'by', 'about']);

function onlyFiller(words: string): boolean {
  return words
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => FILLER.has(word));
}

const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

/** A period chrono gives a single moment for: weeks, weekends, months, the rest of a week. */
function period(text: string, today: Wall, timeZone: string): WhenRange | undefined {
  const day = midnight(today);
  const mondayOffset = (weekday(day) + 6) % 7;
  const weekStart = addDays(day, -mondayOffset);
  let match: RegExpExecArray | null;
  if ((match = /^(?:(this|next|last|the) )?week(?:end)?s?$/.exec(text))) {
    const which = match[1] ?? 'this';
    const shift = which === 'next' ? 7 : which === 'last' ? -7 : 0;
    if (text.includes('weekend')) {
      const saturday = addDays(weekStart, 5 + shift);
      return range(saturday, addDays(saturday, 2), timeZone, false);
    }
    const start = shift === 0 ? day : addDays(weekStart, shift);
    return range(start, addDays(weekStart, 7 + shift), timeZone, false);
  }
  if ((match = /^(?:(this|next|last) )?month$/.exec(text))) {
    const which = match[1] ?? 'this';
    const shift = which === 'next' ? 1 : which === 'last' ? -1 : 0;
    const first = new Date(Date.UTC(day.year, day.month - 1 + shift, 1));
    const start: Wall = {
      year: first.getUTCFullYear(),
      month: first.getUTCMonth() + 1,
      day: 1,
      hour: 0,
      minute: 0,
    };
    const after = new Date(Date.UTC(start.year, start.month, 1));
    const end: Wall = { ...start, year: after.getUTCFullYear(), month: after.getUTCMonth() + 1 };
    return range(shift === 0 ? day : start, end, timeZone, false);
  }
  if ((match = /^(?:the )?(?:next|coming) (\w+) (day|week)s$/.exec(text))) {
    const count = NUMBERS[match[1]] ?? Number(match[1]);
    if (!Number.isFinite(count) || count <= 0) return undefined;
    return range(day, addDays(day, count * (match[2] === 'week' ? 7 : 1)), timeZone, false);
  }
  if ((match = /^(?:the )?(\d{1,2})(?:st|nd|rd|th)$/.exec(text))) {
    const date = Number(match[1]);
    if (date < 1 || date > 31) return undefined;
    const thisMonth = { ...day, day: date };
    const start = date >= day.day ? thisMonth : { ...thisMonth, ...nextMonth(day), day: date };
    return range(start, addDays(start, 1), timeZone, false);
  }
  if (/^(?:lately|recently)$/.test(text)) return range(addDays(day, -30), addDays(day, 1), timeZone, false);
  if (/^(?:upcoming|soon|coming up|later|next)$/.test(text)) {
    return range(day, addDays(day, 30), timeZone, false);
  }
  return undefined;
}

function nextMonth(wall: Wall): { year: number; month: number } {
  return wall.month === 12 ? { year: wall.year + 1, month: 1 } : { year: wall.year, month: wall.month + 1 };
}

const MONTH_NAMES =
  'january february march april may june july august september october november december'.split(' ');

/** "the 10th at 6pm" → "10 december 2026 at 6pm": a day of the month alone is this month's, or next month's once past. */
function withMonth(text: string, today: Wall): string {
  return text.replace(/\bthe (\d{1,2})(?:st|nd|rd|th)\b(?! of\b)(?!\s+[a-z]{3})/, (all, digits: string) => {
    const date = Number(digits);
    if (date < 1 || date > 31) return all;
    const { year, month } = date >= today.day ? today : nextMonth(today);
    return `${date} ${MONTH_NAMES[month - 1]} ${year}`;
  });
}

const WEEKDAY_NAMES = 'sunday monday tuesday wednesday thursday friday saturday'.split(' ');

/**
 * "friday at 1pm" → "27 november 2026 at 1pm": a weekday (or "this" weekday) is the next one, today included, as
 * the calendar's own days are (its `dayOf`); "last" weekday is the one before today. chrono reads a weekday that is
 * today as today until noon and as a week later after it, with or without a time, so that an event added "on
 * Friday" on a Friday afternoon was not where a listing "on Friday" looked; and with `forwardDate` it moves "last
 * saturday" to the coming one. "next" weekday stays chrono's.
 */
function withWeekdayDate(text: string, today: Wall): string {
  return text.replace(
    /(?<!\bnext )\b(?:(this|last) )?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/,
    (_, which: string | undefined, name: string) => {
      const ahead = (WEEKDAY_NAMES.indexOf(name) - weekday(today) + 7) % 7;
      const date = addDays(today, which === 'last' ? ahead - 7 || -7 : ahead);
      return `${date.day} ${MONTH_NAMES[date.month - 1]} ${date.year}`;
    },
  );
}

/**
 * The range words name, or undefined when they name no day (all their words must be the date's, apart from
 * "on", "at" and the like: "tomorrow about the fee" is no day).
 */
export function whenIn(words: string, now: Date, timeZone: string): WhenRange | undefined {
  const text = words
    .toLowerCase()
    .replace(/^(?:on|for|in|at|during) /, '')
    .trim();
  if (!text) return undefined;
  // chrono reads "evening on the 10th" as this evening: a part of the day comes after its day, not before.
  if (/^(?:morning|afternoon|evening|night)\s+\S/.test(text)) return undefined;
  const today = wallTime(now, timeZone);
  const asPeriod = period(text, today, timeZone);
  if (asPeriod) return asPeriod;
  // The words as chrono reads them: a day of the month and a weekday given as dates.
  const dated = withWeekdayDate(withMonth(text, today), today);
  const [found] = chrono.parse(
    dated,
    { instant: now, timezone: offsetMinutes(now, timeZone) },
    { forwardDate: true },
  );
  if (!found) return undefined;
  const rest = dated.slice(0, found.index) + ' ' + dated.slice(found.index + found.text.length);
  if (!onlyFiller(rest)) return undefined;
  const start = wallTime(found.start.date(), timeZone);
  const day = midnight(start);
  const part = Object.keys(PARTS).find((name) => found.text.includes(name));
  if (found.start.isCertain('hour')) {
    const end = found.end ? wallTime(found.end.date(), timeZone) : addMinutes(start, 60);
    return range(start, end, timeZone, true);
  }
  if (part) {
    const [from, to] = PARTS[part];
    const end = to === 24 ? addDays(day, 1) : { ...day, hour: to };
    return range({ ...day, hour: from }, end, timeZone, false);
  }
  const last = found.end ? midnight(wallTime(found.end.date(), timeZone)) : day;
  return range(day, addDays(last, 1), timeZone, false);
}

function addMinutes(wall: Wall, minutes: number): Wall {
  const date = new Date(
    Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) + minutes * 60_000,
  );
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
  };
}
