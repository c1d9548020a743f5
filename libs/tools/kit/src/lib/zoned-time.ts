/**
 * Dates in the user's time zone with nothing but Intl: the offset of a zone at an instant, the instant of a
 * local wall-clock time, and ISO strings with the zone's offset ("2026-12-04T13:00:00+01:00"). The calendar
 * family and the built-in model's reading of dates share them.
 */
export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time in `timeZone` at `instant`. */
export function wallTime(instant: Date, timeZone: string): Wall & { second: number } {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** Minutes the zone is ahead of UTC at `instant`. */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const w = wallTime(instant, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** The instant a wall-clock time in `timeZone` names (the earlier one where a clock change repeats it). */
export function instantOf(wall: Wall, timeZone: string): Date {
  const guess = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  let instant = new Date(guess - offsetMinutes(new Date(guess), timeZone) * 60_000);
  // Once more: the offset at the guess may differ from the offset at the answer across a clock change.
  instant = new Date(guess - offsetMinutes(instant, timeZone) * 60_000);
  return instant;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `instant` as an ISO string in `timeZone`, with its offset. */
export function isoInZone(instant: Date, timeZone: string): string {
  const w = wallTime(instant, timeZone);
  const offset = offsetMinutes(instant, timeZone);
  const sign = offset < 0 ? '-' : '+';
  return (
    `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

/** The day (midnight to midnight) in `timeZone` that `instant` falls on, moved by `days`. */
export function dayRange(instant: Date, timeZone: string, days = 0): { start: Date; end: Date } {
  const w = wallTime(instant, timeZone);
  const date = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
  const next = new Date(Date.UTC(w.year, w.month - 1, w.day + days + 1));
  const wall = (d: Date) => ({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: 0,
    minute: 0,
  });
  return { start: instantOf(wall(date), timeZone), end: instantOf(wall(next), timeZone) };
}
