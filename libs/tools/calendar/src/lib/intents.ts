import type { BuiltinAction, FamilyIntents, IntentContext, Learned } from '@assistant/tool-kit';
import type { CalendarEvent } from './calendar.driver';

/**
 * What the built-in model understands of the calendar: sentence templates with slots (see the tool kit's
 * `intents.ts`). A `{when}` is read by the date parser in the user's time zone ("next thursday", "3 december
 * 2026", "this week", "tomorrow evening"); an event the user names is looked up among the titles the account's
 * calendar has shown.
 */

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

function list(words: string | undefined, context: IntentContext, event?: string): BuiltinAction | undefined {
  const range = context.when(words ?? 'today');
  if (!range) return undefined;
  const focus = event ? (context.known('event', event) ?? event) : undefined;
  return {
    kind: 'tool',
    tool: 'calendar_list_events',
    input: { from: range.start, to: range.end },
    ...(focus ? { focus } : {}),
  };
}

/** "when is my yoga class": the year ahead's events with that title; then the memories and the mail. */
function whenIs(event: string, context: IntentContext): BuiltinAction {
  const focus = context.known('event', event) ?? event;
  const from = context.when('today')!.start;
  const to = new Date(context.now.getTime() + YEAR_MS).toISOString();
  return {
    kind: 'tool',
    tool: 'calendar_list_events',
    input: { from, to },
    focus,
    otherwise: [
      { tool: 'memory_search', input: { query: event, limit: 3 } },
      { tool: 'email_search', input: { text: event, limit: 5 } },
    ],
  };
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const calendarIntents: FamilyIntents = {
  rules: {
    planned: '(on|planned|scheduled|booked|going on|coming up|happening|lined up|in the diary)',
    add: '(add|schedule|put|create|book|set up|make|plan|pencil in|arrange|new event)',
  },
  intents: [
    {
      intent: 'calendar.list',
      templates: [
        '<whats> (on|in) <my> <calendar> [for|like] [{when}]',
        '<whats> <my> <calendar> [for|like|look like] [{when}]',
        '(show|check|open|view|see|list|give me|read|display|pull up) [me] <my> <calendar> [for] [{when}]',
        '<my> <calendar> [for] {when}',
        '(agenda|schedule|calendar) [for] {when}',
        'what do (i|we) have [<planned>] [{when}]',
        'what have (i|we) got [<planned>] [{when}]',
        '[do|did|will] (i|we) have [any|anything|something|a|an|many] [<events>] [<planned>] {when}',
        '(what|which|any|how many) <events> (do|did|will|have) (i|we) [got|have] [<planned>] [{when}]',
        '(anything|something|any <events>) (on|in) <my> <calendar> [for] [{when}]',
        '<whats> my day (look|looking|like) [like] [{when}]',
        'how does my day look [like] [{when}]',
        '(show|list|check|see|get) [me] <my> <events> [for] {when}',
        '(am i|are we) (free|busy|booked|available) {when}',
        'is (there|anything) [anything|something] [<planned>] {when}',
        '<whats> (happening|going on|planned|scheduled|coming up|up|next) [{when}]',
        '<whats> (on|planned|scheduled) [for] {when}',
        'any <events> [<planned>] {when}',
        '<events> {when}',
        '(how|what) does {when} look [like]',
        '<whats> my (next|upcoming) <events>',
        '<whats> next on <my> <calendar>',
        '(show|list) [me] <my> (upcoming|next) <events>',
      ],
      examples: [
        "what's on my calendar tomorrow?",
        "what's on my calendar on 3 December?",
        'what is on my calendar today',
        'do I have any meetings on Friday?',
        'what do I have on December 24th?',
      ],
      act: (slots, context) => list(slots['when'], context),
      offers: {
        tool: 'calendar_list_events',
        can: 'tell you what is on your calendar ("what\'s on my calendar tomorrow?")',
      },
    },
    {
      // "is there a team sync this week": that period's events with that title.
      intent: 'calendar.is',
      templates: [
        '(is|are) there [a|an|any] {event} {when}',
        '(do|will) (i|we) have [a|an|any|my] {event} {when}',
      ],
      examples: ['is there a team sync this week', 'do i have yoga on monday'],
      act: (slots, context) => (slots['event'] ? list(slots['when'], context, slots['event']) : undefined),
    },
    {
      intent: 'calendar.when',
      templates: [
        '(when|what time|what day|which day) (is|are|was|s) [<my>] [next] {event}',
        "(when's|whens) [my|the] [next] {event}",
        '(when|what time) do (i|we) have [my|the|a] [next] {event}',
        '(when|what time) (am i|are we) (seeing|meeting|visiting|at) {event}',
        '(when|what time) do (i|we) (see|meet|visit) {event}',
        '(when|what time) (does|do) <my> {event} (start|begin)',
      ],
      examples: ['when is my yoga class', "when's the team sync", 'what time is my dentist appointment'],
      act: (slots, context) => (slots['event'] ? whenIs(slots['event'], context) : undefined),
      offers: { tool: 'calendar_list_events', can: 'find when an event is ("when is my yoga class?")' },
    },
    {
      intent: 'calendar.create',
      templates: [
        '<add> [a|an] [new] [event|appointment|meeting] [called|named|for] {title} [on|for] {when}',
        '<add> [a|an] [new] [event|appointment|meeting] [called|named|for] {title} (to|in|on|into) <my> <calendar> [on|for] {when}',
        '<add> [a|an] [new] [event|appointment|meeting] [on|for] {when} [called|named|for] {title}',
        '(put|add) {title} (on|in|into) <my> <calendar> [on|for] {when}',
      ],
      examples: [
        'add lunch with Sam on Friday at 1pm',
        'add dentist tomorrow at 9:30am',
        'schedule a call with the bank on 3 December at 14:00',
      ],
      act: (slots, context) => {
        const title = slots['title']?.replace(
          /\s+(?:to|in|on) (?:my|the) (?:calendar|agenda|schedule)$/i,
          '',
        );
        const range = slots['when'] ? context.when(slots['when']) : undefined;
        if (!title || !range) return undefined;
        if (!range.hasTime) {
          return {
            kind: 'text',
            text: `At what time on ${range.startDay}? Say it with the time, e.g. "add ${title} ${slots['when']} at 10am".`,
          };
        }
        return {
          kind: 'tool',
          tool: 'calendar_create_event',
          input: { title: capitalised(title), start: range.start },
        };
      },
      offers: {
        tool: 'calendar_create_event',
        can: 'add events, once you confirm ("add lunch with Sam on Friday at 1pm")',
      },
    },
  ],
  learn: (tool, output) => {
    if (tool !== 'calendar_list_events' && tool !== 'calendar_create_event') return [];
    const events =
      tool === 'calendar_list_events'
        ? ((output as { events?: CalendarEvent[] }).events ?? [])
        : [output as CalendarEvent];
    return events.flatMap((e): Learned[] => (e?.title ? [{ kind: 'event', value: e.title }] : []));
  },
};

/** Whether an event's title is what the user named: every word of the focus in it (plurals aside). */
export function titleMatches(title: string, focus: string): boolean {
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(
        (w) =>
          w.length > 1 && !['my', 'the', 'a', 'an', 'next', 'appointment', 'class', 'meeting'].includes(w),
      )
      .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));
  const own = new Set(words(title));
  const wanted = words(focus);
  return wanted.length > 0
    ? wanted.every((w) => own.has(w))
    : title.toLowerCase().includes(focus.toLowerCase());
}
