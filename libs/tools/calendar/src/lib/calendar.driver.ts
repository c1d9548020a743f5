/** An event as the calendar tools show it, its times in the user's time zone. */
export interface CalendarEvent {
  /** The event's address on the server: what move and delete take (a recurring event's series). */
  id: string;
  title: string;
  /** ISO with the zone's offset, or `YYYY-MM-DD` for an all-day event. */
  start: string;
  end: string;
  all_day: boolean;
  location?: string;
  recurring: boolean;
}

export interface NewEvent {
  title: string;
  start: Date;
  end: Date;
  location?: string;
  description?: string;
}

/** What the calendar tools do through a connection. */
export interface CalendarDriver {
  /** Events overlapping [start, end), recurring ones expanded, in start order. */
  events(start: Date, end: Date, timeZone: string): Promise<CalendarEvent[]>;
  create(event: NewEvent, timeZone: string): Promise<CalendarEvent>;
  /** Moves an event (not one occurrence of a recurring one) to a new start, keeping or changing its length. */
  move(id: string, start: Date, end: Date | undefined, timeZone: string): Promise<CalendarEvent>;
  delete(id: string): Promise<void>;
}

/** A refusal in plain words (an event that is not there, a change the calendar cannot make). */
export class CalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalendarError';
  }
}

export const CALENDAR_LIMITS = { maxEvents: 200, maxOccurrencesPerEvent: 1_000 };
