import { randomUUID } from 'node:crypto';
import type { DAVCalendar, DAVCalendarObject, DAVClient } from 'tsdav';
import { ConnectionTestError, NeedsReauthError, type AccessTokenSource } from '@assistant/tool-kit';
import { bearerFetch } from './bearer-fetch';
import {
  CALENDAR_LIMITS,
  CalendarError,
  type CalendarDriver,
  type CalendarEvent,
  type NewEvent,
} from './calendar.driver';
import { isoInZone } from '@assistant/tool-kit';

type ICalModule = typeof import('ical.js', { with: { 'resolution-mode': 'import' } }).default;
type ICalComponent = InstanceType<ICalModule['Component']>;
type ICalEvent = InstanceType<ICalModule['Event']>;

async function loadICal(): Promise<ICalModule> {
  const loaded = (await import('ical.js')) as unknown as { default?: ICalModule } & ICalModule;
  return loaded.default ?? loaded;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * One calendar on a CalDAV server (Radicale, Nextcloud, Fastmail, iCloud), through tsdav; events are parsed and
 * recurring ones expanded with ical.js, with the time zones the calendar data carries.
 */
export class CalDavCalendar implements CalendarDriver {
  private constructor(
    private readonly client: DAVClient,
    private readonly calendar: DAVCalendar,
    private readonly ical: ICalModule,
  ) {}

  /**
   * Logs in, discovers the calendars, and picks the one `url` names (or the first with events). With a user name
   * and password: HTTP Basic; with `accessTokens` (a connection made by OAuth, Google's CalDAV): a bearer token
   * on every request, renewed once when the server answers 401.
   */
  static async connect(
    options: {
      url: string;
      /** The connection's own fetch (see `connectionFetch`): on the hosted API, to checked addresses only. */
      fetch?: typeof globalThis.fetch;
    } & ({ username: string; password: string } | { accessTokens: AccessTokenSource }),
  ): Promise<CalDavCalendar> {
    const [{ DAVClient }, ical] = await Promise.all([import('tsdav'), loadICal()]);
    const client =
      'accessTokens' in options
        ? new DAVClient({
            serverUrl: options.url,
            credentials: {},
            // The headers come from the fetch, per request: a token refreshed later is used from then on.
            authMethod: 'Custom',
            authFunction: async () => ({}),
            defaultAccountType: 'caldav',
            fetch: bearerFetch(options.accessTokens, options.fetch),
          })
        : new DAVClient({
            serverUrl: options.url,
            credentials: { username: options.username, password: options.password },
            authMethod: 'Basic',
            defaultAccountType: 'caldav',
            fetch: options.fetch,
          });
    try {
      await client.login();
    } catch (error) {
      if (error instanceof NeedsReauthError) throw error;
      throw new ConnectionTestError(
        `the CalDAV server at ${options.url} refused: ${(error as Error).message}`,
      );
    }
    const calendars = await client.fetchCalendars().catch((error: Error) => {
      if (error instanceof NeedsReauthError) throw error;
      throw new ConnectionTestError(`could not list the calendars at ${options.url}: ${error.message}`);
    });
    const calendar =
      calendars.find((c) => sameUrl(c.url, options.url)) ??
      calendars.find((c) => !c.components || c.components.includes('VEVENT'));
    if (!calendar) throw new ConnectionTestError(`there is no calendar at ${options.url}`);
    return new CalDavCalendar(client, calendar, ical);
  }

  get name(): string {
    return typeof this.calendar.displayName === 'string' ? this.calendar.displayName : this.calendar.url;
  }

  async events(start: Date, end: Date, timeZone: string): Promise<CalendarEvent[]> {
    const objects = await this.client.fetchCalendarObjects({
      calendar: this.calendar,
      timeRange: { start: start.toISOString(), end: end.toISOString() },
    });
    const events: Array<CalendarEvent & { at: number }> = [];
    for (const object of objects) {
      if (typeof object.data !== 'string') continue;
      events.push(...this.occurrences(object, start, end, timeZone));
    }
    return events
      .sort((a, b) => a.at - b.at || a.title.localeCompare(b.title))
      .slice(0, CALENDAR_LIMITS.maxEvents)
      .map(({ at: _at, ...event }) => event);
  }

  async create(event: NewEvent, timeZone: string): Promise<CalendarEvent> {
    const { ical } = this;
    const uid = randomUUID();
    const calendar = new ical.Component(['vcalendar', [], []]);
    calendar.addPropertyWithValue('version', '2.0');
    calendar.addPropertyWithValue('prodid', '-//Assistant//Assistant//EN');
    const vevent = new ical.Component('vevent');
    vevent.addPropertyWithValue('uid', uid);
    vevent.addPropertyWithValue('dtstamp', ical.Time.fromJSDate(new Date(), true));
    vevent.addPropertyWithValue('dtstart', ical.Time.fromJSDate(event.start, true));
    vevent.addPropertyWithValue('dtend', ical.Time.fromJSDate(event.end, true));
    vevent.addPropertyWithValue('summary', event.title);
    if (event.location) vevent.addPropertyWithValue('location', event.location);
    if (event.description) vevent.addPropertyWithValue('description', event.description);
    calendar.addSubcomponent(vevent);
    const url = new URL(
      `${uid}.ics`,
      this.calendar.url.endsWith('/') ? this.calendar.url : `${this.calendar.url}/`,
    ).href;
    const response = await this.client.createCalendarObject({
      calendar: this.calendar,
      filename: `${uid}.ics`,
      iCalString: calendar.toString(),
    });
    if (!response.ok) throw new CalendarError(`the calendar refused the new event (${response.status})`);
    return {
      id: url,
      title: event.title,
      start: isoInZone(event.start, timeZone),
      end: isoInZone(event.end, timeZone),
      all_day: false,
      ...(event.location ? { location: event.location } : {}),
      recurring: false,
    };
  }

  async move(id: string, start: Date, end: Date | undefined, timeZone: string): Promise<CalendarEvent> {
    const object = await this.object(id);
    const root = new this.ical.Component(this.ical.parse(object.data as string));
    const vevent = root.getFirstSubcomponent('vevent');
    if (!vevent) throw new CalendarError('that calendar entry has no event');
    const event = new this.ical.Event(vevent);
    if (event.isRecurring()) {
      throw new CalendarError(
        `“${event.summary}” repeats; moving a whole series is not done by the assistant yet`,
      );
    }
    const length = event.endDate.toJSDate().getTime() - event.startDate.toJSDate().getTime();
    const newEnd = end ?? new Date(start.getTime() + length);
    event.startDate = this.ical.Time.fromJSDate(start, true);
    event.endDate = this.ical.Time.fromJSDate(newEnd, true);
    const response = await this.client.updateCalendarObject({
      calendarObject: { url: object.url, etag: object.etag, data: root.toString() },
    });
    if (!response.ok) throw new CalendarError(`the calendar refused the change (${response.status})`);
    return {
      id: object.url,
      title: event.summary,
      start: isoInZone(start, timeZone),
      end: isoInZone(newEnd, timeZone),
      all_day: false,
      recurring: false,
    };
  }

  async delete(id: string): Promise<void> {
    const object = await this.object(id);
    const response = await this.client.deleteCalendarObject({
      calendarObject: { url: object.url, etag: object.etag },
    });
    if (!response.ok) throw new CalendarError(`the calendar refused to delete it (${response.status})`);
  }

  /** An event of this calendar by its address; another calendar's (or server's) is not found. */
  private async object(id: string): Promise<DAVCalendarObject> {
    if (!id.startsWith(this.calendar.url)) throw new CalendarError('there is no such event in this calendar');
    const [object] = await this.client.fetchCalendarObjects({ calendar: this.calendar, objectUrls: [id] });
    if (!object || typeof object.data !== 'string' || !object.data.includes('BEGIN:VEVENT')) {
      throw new CalendarError('there is no such event in this calendar');
    }
    return object;
  }

  /** The object's occurrences in [start, end): its exceptions applied, its time zones registered first. */
  private occurrences(object: DAVCalendarObject, start: Date, end: Date, timeZone: string) {
    const { ical } = this;
    const root = new ical.Component(ical.parse(object.data as string));
    for (const zone of root.getAllSubcomponents('vtimezone')) {
      const tzid = zone.getFirstPropertyValue('tzid');
      if (typeof tzid === 'string' && !ical.TimezoneService.has(tzid)) ical.TimezoneService.register(zone);
    }
    const vevents = root.getAllSubcomponents('vevent');
    const master = vevents.find((v: ICalComponent) => !v.hasProperty('recurrence-id'));
    if (!master) return [];
    const event: ICalEvent = new ical.Event(master, {
      exceptions: vevents.filter((v: ICalComponent) => v.hasProperty('recurrence-id')),
      strictExceptions: true,
    });
    const shown = (from: Date, to: Date, allDay: boolean, details?: ICalEvent) => {
      const source = details ?? event;
      const location = source.location;
      return {
        id: object.url,
        title: source.summary ?? '(no title)',
        start: allDay ? dateOnly(from) : isoInZone(from, timeZone),
        end: allDay ? dateOnly(to) : isoInZone(to, timeZone),
        all_day: allDay,
        ...(location ? { location } : {}),
        recurring: event.isRecurring(),
        at: from.getTime(),
      };
    };
    const overlaps = (from: Date, to: Date) => from < end && to > start;
    if (!event.isRecurring()) {
      const from = event.startDate.toJSDate();
      const to = event.endDate.toJSDate();
      return overlaps(from, to) ? [shown(from, to, event.startDate.isDate)] : [];
    }
    const found = [];
    const iterator = event.iterator();
    for (
      let n = 0, next = iterator.next();
      next && n < CALENDAR_LIMITS.maxOccurrencesPerEvent;
      n++, next = iterator.next()
    ) {
      const details = event.getOccurrenceDetails(next);
      const from = details.startDate.toJSDate();
      if (from >= end) break;
      const to = details.endDate.toJSDate();
      if (overlaps(from, to)) found.push(shown(from, to, details.startDate.isDate, details.item));
    }
    return found;
  }
}

/** An all-day date as it was written: `YYYY-MM-DD`, whatever the zone. */
function dateOnly(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}
