import { IntentMatcher, misreadExamples, type IntentContext, type WhenRange } from '@assistant/tool-kit';
import { randomBytes } from 'node:crypto';
import { calendarFamily } from './calendar.family';
import { caldavProvider } from './caldav.provider';
import type { CalendarDriver } from './calendar.driver';
import { calendarListEvents } from './tools/calendar-list-events.tool';
import { calendarCreateEvent } from './tools/calendar-create-event.tool';
import { calendarMoveEvent } from './tools/calendar-move-event.tool';
import { calendarDeleteEvent } from './tools/calendar-delete-event.tool';
import { dayOf, timeOf } from './when';
import { isoInZone } from '@assistant/tool-kit';

/** Radicale on loopback (`tools/workspace/services/calendar.sh`): user alice, password secret. */
const SERVER = process.env.ASSISTANT_TEST_CALDAV_URL ?? 'http://127.0.0.1:5232';
const AUTH = `Basic ${Buffer.from('alice:secret').toString('base64')}`;
const BERLIN = 'Europe/Berlin';
const env = {
  deployment: 'self-hosted' as const,
  allowPrivateHosts: [],
  localFolders: [],
  signal: new AbortController().signal,
};

/** A fresh calendar collection for this run, seeded over CalDAV itself (MKCALENDAR, PUT). */
async function seededCalendar(): Promise<string> {
  const url = `${SERVER}/alice/test-${randomBytes(4).toString('hex')}/`;
  const made = await fetch(url, {
    method: 'MKCALENDAR',
    headers: { authorization: AUTH, 'content-type': 'application/xml' },
    body: `<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>Test</D:displayname></D:prop></D:set></C:mkcalendar>`,
  }).catch((error: Error) => {
    throw new Error(
      `no CalDAV server at ${SERVER} (${error.message}); start one with tools/workspace/services/calendar.sh`,
    );
  });
  if (made.status !== 201) throw new Error(`MKCALENDAR answered ${made.status}`);
  const put = (name: string, body: string) =>
    fetch(`${url}${name}.ics`, {
      method: 'PUT',
      headers: { authorization: AUTH, 'content-type': 'text/calendar' },
      body,
    });
  // A weekly standup on Mondays 09:00 Berlin time, with one Monday skipped and one moved.
  await put(
    'standup',
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VTIMEZONE',
      'TZID:Europe/Berlin',
      'BEGIN:STANDARD',
      'DTSTART:19701025T030000',
      'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'BEGIN:DAYLIGHT',
      'DTSTART:19700329T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
      'TZOFFSETFROM:+0100',
      'TZOFFSETTO:+0200',
      'END:DAYLIGHT',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:standup-1',
      'DTSTAMP:20261101T000000Z',
      'SUMMARY:Standup',
      'DTSTART;TZID=Europe/Berlin:20261102T090000',
      'DTEND;TZID=Europe/Berlin:20261102T093000',
      'RRULE:FREQ=WEEKLY;BYDAY=MO',
      'EXDATE;TZID=Europe/Berlin:20261116T090000',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:standup-1',
      'DTSTAMP:20261101T000000Z',
      'SUMMARY:Standup (late)',
      'RECURRENCE-ID;TZID=Europe/Berlin:20261123T090000',
      'DTSTART;TZID=Europe/Berlin:20261123T110000',
      'DTEND;TZID=Europe/Berlin:20261123T113000',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n'),
  );
  // A call set in New York time: 10:00 there is 16:00 in Berlin.
  await put(
    'ny-call',
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VTIMEZONE',
      'TZID:America/New_York',
      'BEGIN:STANDARD',
      'DTSTART:19701101T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
      'TZOFFSETFROM:-0400',
      'TZOFFSETTO:-0500',
      'END:STANDARD',
      'BEGIN:DAYLIGHT',
      'DTSTART:19700308T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
      'TZOFFSETFROM:-0500',
      'TZOFFSETTO:-0400',
      'END:DAYLIGHT',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:ny-1',
      'DTSTAMP:20261101T000000Z',
      'SUMMARY:Call with New York',
      'LOCATION:Zoom',
      'DTSTART;TZID=America/New_York:20261130T100000',
      'DTEND;TZID=America/New_York:20261130T110000',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n'),
  );
  return url;
}

let url: string;
let driver: CalendarDriver;
const context = () => ({ driver, timeZone: BERLIN, signal: new AbortController().signal }) as never;

beforeAll(async () => {
  url = await seededCalendar();
  driver = await caldavProvider.open(
    { settings: { url, username: 'alice' }, secrets: { password: 'secret' } },
    env,
  );
});

/** A request's context with a day the test names: the kit leaves the reading of days to the model. */
const contextWith = (day?: Partial<WhenRange>): IntentContext => ({
  now: new Date('2026-12-03T10:00:00Z'),
  timeZone: 'UTC',
  when: () => day && { start: '', end: '', hasTime: false, startDay: '', endDay: '', ...day },
  known: () => undefined,
  last: () => undefined,
});

describe('a CalDAV calendar (Radicale)', () => {
  it('expands a recurring event over a range, honouring a skipped and a moved occurrence', async () => {
    const { events } = await calendarListEvents.handler(
      { from: '2026-11-09T00:00:00+01:00', to: '2026-11-28T00:00:00+01:00' },
      context(),
    );
    expect(events.filter((e) => e.title.startsWith('Standup')).map((e) => [e.title, e.start])).toEqual([
      ['Standup', '2026-11-09T09:00:00+01:00'],
      // 16 November is skipped (EXDATE); 23 November moved to 11:00.
      ['Standup (late)', '2026-11-23T11:00:00+01:00'],
    ]);
  });

  it("shows an event set in another time zone in the user's", async () => {
    const { events } = await calendarListEvents.handler({ from: '2026-11-30T00:00:00+01:00' }, context());
    expect(events).toEqual([
      expect.objectContaining({ title: 'Standup', start: '2026-11-30T09:00:00+01:00', recurring: true }),
      expect.objectContaining({
        title: 'Call with New York',
        start: '2026-11-30T16:00:00+01:00',
        end: '2026-11-30T17:00:00+01:00',
        location: 'Zoom',
      }),
    ]);
    expect(calendarFamily.answer('calendar_list_events', { from: '2026-11-30T00:00:00+01:00', events })).toBe(
      'On Monday 30 November you have: 09:00–09:30 Standup and 16:00–17:00 Call with New York (Zoom).',
    );
  });

  it('adds, moves and deletes an event, each read back from the server', async () => {
    const created = await calendarCreateEvent.handler(
      { title: 'Lunch with Sam', start: '2026-12-04T13:00:00+01:00' },
      context(),
    );
    expect(created).toMatchObject({
      title: 'Lunch with Sam',
      start: '2026-12-04T13:00:00+01:00',
      end: '2026-12-04T14:00:00+01:00',
    });
    const day = { from: '2026-12-04T00:00:00+01:00' };
    expect((await calendarListEvents.handler(day, context())).events.map((e) => e.title)).toEqual([
      'Lunch with Sam',
    ]);

    await calendarMoveEvent.handler({ id: created.id, start: '2026-12-04T14:30:00+01:00' }, context());
    const [moved] = (await calendarListEvents.handler(day, context())).events;
    expect(moved).toMatchObject({ start: '2026-12-04T14:30:00+01:00', end: '2026-12-04T15:30:00+01:00' });

    await calendarDeleteEvent.handler({ id: created.id }, context());
    expect((await calendarListEvents.handler(day, context())).events).toEqual([]);
    await expect(calendarDeleteEvent.handler({ id: `${SERVER}/bob/other/x.ics` }, context())).rejects.toThrow(
      'there is no such event in this calendar',
    );
  });

  it('refuses a wrong password with the server’s answer, and never shows the password', async () => {
    const refused = caldavProvider.open(
      { settings: { url, username: 'alice' }, secrets: { password: 'wrong-pw-83' } },
      env,
    );
    await expect(refused).rejects.toThrow(/refused|401|Unauthorized|credentials/i);
    await expect(refused).rejects.not.toThrow(/wrong-pw-83/);
  });
});

describe('the calendar family', () => {
  // Thursday 3 December 2026, 10:00 in Berlin.
  const now = new Date('2026-12-03T09:00:00Z');

  it('reads days and times as a person says them, in their time zone', () => {
    const day = (words: string) => {
      const range = dayOf(words, now, BERLIN);
      return range && [isoInZone(range.start, BERLIN), isoInZone(range.end, BERLIN)];
    };
    expect(day('today')).toEqual(['2026-12-03T00:00:00+01:00', '2026-12-04T00:00:00+01:00']);
    expect(day('tomorrow')?.[0]).toBe('2026-12-04T00:00:00+01:00');
    expect(day('on friday')?.[0]).toBe('2026-12-04T00:00:00+01:00');
    expect(day('thursday')?.[0]).toBe('2026-12-03T00:00:00+01:00');
    expect(day('on 3 december')?.[0]).toBe('2026-12-03T00:00:00+01:00');
    expect(day('on march 29')).toEqual(['2027-03-29T00:00:00+02:00', '2027-03-30T00:00:00+02:00']);
    expect(day('on 1 january')?.[0]).toBe('2027-01-01T00:00:00+01:00');
    expect(timeOf('1pm')).toEqual({ hour: 13, minute: 0 });
    expect(timeOf('9:30am')).toEqual({ hour: 9, minute: 30 });
    expect(timeOf('13:30')).toEqual({ hour: 13, minute: 30 });
    expect(timeOf('12am')).toEqual({ hour: 0, minute: 0 });
    expect(timeOf('25')).toBeUndefined();
  });

  it('understands every example of its intents, and takes the day the model read', () => {
    expect(misreadExamples(calendarFamily.intents!)).toEqual([]);
    const matcher = new IntentMatcher([calendarFamily.intents!]);
    const tomorrow = { start: '2026-12-04T00:00:00+01:00', end: '2026-12-05T00:00:00+01:00' };
    expect(matcher.match("what's on my calendar tomorrow?", contextWith(tomorrow))?.action).toEqual({
      kind: 'tool',
      tool: 'calendar_list_events',
      input: { from: '2026-12-04T00:00:00+01:00', to: '2026-12-05T00:00:00+01:00' },
    });
    const friday = { start: '2026-12-04T13:00:00+01:00', end: '2026-12-04T14:00:00+01:00', hasTime: true };
    expect(matcher.match('add lunch with Sam on Friday at 1pm', contextWith(friday))?.action).toEqual({
      kind: 'tool',
      tool: 'calendar_create_event',
      input: { title: 'Lunch with Sam', start: '2026-12-04T13:00:00+01:00' },
    });
    // A day without a time is no moment to add an event at: the model asks.
    expect(
      matcher.match('add yoga on monday', contextWith({ startDay: '2026-12-07' }))?.action,
    ).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^At what time on 2026-12-07\?/),
    });
  });

  it('asks before changing the calendar', () => {
    expect(calendarFamily.tools.filter((t) => t.side_effects).map((t) => t.name)).toEqual([
      'calendar_create_event',
      'calendar_move_event',
      'calendar_delete_event',
    ]);
  });
});

describe('on the hosted API', () => {
  it("refuses a calendar on the service's own network unless the operator allows it", async () => {
    const hosted = { ...env, deployment: 'hosted' as const };
    const open = (allowPrivateHosts: string[]) =>
      caldavProvider.open(
        { settings: { url, username: 'alice' }, secrets: { password: 'secret' } },
        { ...hosted, allowPrivateHosts },
      );
    await expect(open([])).rejects.toThrow(/127\.0\.0\.1 is a private or local address/);
    await expect(open(['127.0.0.1/32'])).resolves.toBeDefined();
  });
});
