import {
  CALENDAR_LIMITS,
  CalendarError,
  type CalendarDriver,
  type CalendarEvent,
  type NewEvent,
} from './calendar.driver';
import { isoInZone } from '@assistant/tool-kit';

/** An event as Microsoft Graph v1.0 returns it (the fields this driver reads). */
interface GraphEvent {
  id: string;
  subject?: string | null;
  start: { dateTime: string; timeZone: string };
  end: { dateTime: string; timeZone: string };
  isAllDay?: boolean;
  location?: { displayName?: string | null } | null;
  type?: 'singleInstance' | 'occurrence' | 'exception' | 'seriesMaster';
  seriesMasterId?: string | null;
}

interface GraphPage {
  value: GraphEvent[];
  '@odata.nextLink'?: string;
}

const SELECT = 'id,subject,start,end,isAllDay,location,type,seriesMasterId';

/** Graph's UTC `dateTime` ("2026-11-27T09:00:00.0000000") as a Date. */
const fromGraph = (value: { dateTime: string }) => new Date(`${value.dateTime.slice(0, 23)}Z`);
/** A Date as Graph's dateTimeTimeZone in UTC. */
const toGraph = (date: Date) => ({ dateTime: date.toISOString().slice(0, 23), timeZone: 'UTC' });

/**
 * The signed-in user's default calendar through Microsoft Graph v1.0 (Outlook.com, Microsoft 365): the calendar
 * view expands recurring events into occurrences, times are asked for in UTC (`Prefer: outlook.timezone`) and
 * shown in the user's zone. `fetch` carries the bearer token (see `bearerFetch`).
 */
export class GraphCalendar implements CalendarDriver {
  constructor(
    private readonly baseUrl: string,
    private readonly fetch: typeof globalThis.fetch,
  ) {}

  /** Asks for the calendar view of the next minute: the token is good and has the calendar's scope. */
  async check(): Promise<void> {
    const now = new Date();
    await this.request<GraphPage>(this.viewUrl(now, new Date(now.getTime() + 60_000), 1));
  }

  async events(start: Date, end: Date, timeZone: string): Promise<CalendarEvent[]> {
    const found: CalendarEvent[] = [];
    let next: string | undefined = this.viewUrl(start, end, 100);
    while (next && found.length < CALENDAR_LIMITS.maxEvents) {
      const page: GraphPage = await this.request<GraphPage>(next);
      found.push(...page.value.map((event) => this.shown(event, timeZone)));
      next = page['@odata.nextLink'];
    }
    return found.slice(0, CALENDAR_LIMITS.maxEvents);
  }

  async create(event: NewEvent, timeZone: string): Promise<CalendarEvent> {
    const created = await this.request<GraphEvent>(`${this.baseUrl}/me/events`, {
      method: 'POST',
      body: JSON.stringify({
        subject: event.title,
        start: toGraph(event.start),
        end: toGraph(event.end),
        ...(event.location ? { location: { displayName: event.location } } : {}),
        ...(event.description ? { body: { contentType: 'text', content: event.description } } : {}),
      }),
    });
    return this.shown(created, timeZone);
  }

  async move(id: string, start: Date, end: Date | undefined, timeZone: string): Promise<CalendarEvent> {
    const event = await this.request<GraphEvent>(this.eventUrl(id));
    if (event.type === 'seriesMaster') {
      throw new CalendarError(
        `“${event.subject ?? '(no title)'}” repeats; moving a whole series is not done by the assistant yet`,
      );
    }
    const length = fromGraph(event.end).getTime() - fromGraph(event.start).getTime();
    const newEnd = end ?? new Date(start.getTime() + length);
    const moved = await this.request<GraphEvent>(this.eventUrl(id), {
      method: 'PATCH',
      body: JSON.stringify({ start: toGraph(start), end: toGraph(newEnd) }),
    });
    return this.shown(moved, timeZone);
  }

  async delete(id: string): Promise<void> {
    await this.request<void>(this.eventUrl(id), { method: 'DELETE' });
  }

  private viewUrl(start: Date, end: Date, top: number): string {
    const url = new URL(`${this.baseUrl}/me/calendarView`);
    url.searchParams.set('startDateTime', start.toISOString());
    url.searchParams.set('endDateTime', end.toISOString());
    url.searchParams.set('$top', String(top));
    url.searchParams.set('$select', SELECT);
    url.searchParams.set('$orderby', 'start/dateTime');
    return url.href;
  }

  private eventUrl(id: string): string {
    if (!/^[\w=+/-]+$/.test(id)) throw new CalendarError('there is no such event in this calendar');
    return `${this.baseUrl}/me/events/${encodeURIComponent(id)}`;
  }

  /** An occurrence is moved and deleted through its series, as with CalDAV: its id is the series'. */
  private shown(event: GraphEvent, timeZone: string): CalendarEvent {
    const allDay = event.isAllDay === true;
    const location = event.location?.displayName;
    return {
      id:
        event.type === 'occurrence' || event.type === 'exception'
          ? (event.seriesMasterId ?? event.id)
          : event.id,
      title: event.subject || '(no title)',
      start: allDay ? event.start.dateTime.slice(0, 10) : isoInZone(fromGraph(event.start), timeZone),
      end: allDay ? event.end.dateTime.slice(0, 10) : isoInZone(fromGraph(event.end), timeZone),
      all_day: allDay,
      ...(location ? { location } : {}),
      recurring: event.type !== undefined && event.type !== 'singleInstance',
    };
  }

  /** One Graph request in UTC; Graph's own error message when it refuses. */
  private async request<T>(url: string, init: RequestInit = {}): Promise<T> {
    if (!url.startsWith(`${this.baseUrl}/`))
      throw new CalendarError('Graph pointed elsewhere than its own API');
    const response = await this.fetch(url, {
      ...init,
      headers: {
        accept: 'application/json',
        prefer: 'outlook.timezone="UTC"',
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
      signal: AbortSignal.timeout(20_000),
    });
    if (response.status === 204) return undefined as T;
    const body = (await response.json().catch(() => ({}))) as T & {
      error?: { code?: string; message?: string };
    };
    if (!response.ok) {
      if (response.status === 404) throw new CalendarError('there is no such event in this calendar');
      const reason = body.error?.message ?? `HTTP ${response.status}`;
      throw new CalendarError(`Microsoft Graph refused: ${reason}`);
    }
    return body;
  }
}
