import type { PhraseRule } from '@assistant/tool-kit';
import { at, DAY_WORDS, dayOf, timeOf } from './when';
import { isoInZone } from './zoned-time';

export const calendarPhrases: PhraseRule[] = [
  {
    intent: 'calendar.list',
    examples: [
      "what's on my calendar tomorrow?",
      "what's on my calendar on 3 December?",
      'what is on my calendar today',
      'do I have any meetings on Friday?',
      'what do I have on December 24th?',
    ],
    patterns: [
      new RegExp(`^(?:what'?s|what is) on my (?:calendar|agenda|schedule) ${DAY_WORDS}\\??$`, 'i'),
      new RegExp(`^do i have (?:any )?(?:meetings|events|appointments|plans) ${DAY_WORDS}\\??$`, 'i'),
      new RegExp(`^what do i have ${DAY_WORDS}\\??$`, 'i'),
    ],
    act: (m, _text, { now, timeZone }) => {
      const day = dayOf(m[1], now, timeZone);
      if (!day) return { kind: 'text', text: `I did not understand the day "${m[1]}".` };
      return {
        kind: 'tool',
        tool: 'calendar_list_events',
        input: { from: isoInZone(day.start, timeZone), to: isoInZone(day.end, timeZone) },
      };
    },
    offers: {
      tool: 'calendar_list_events',
      can: 'tell you what is on your calendar ("what\'s on my calendar tomorrow?")',
    },
  },
  {
    intent: 'calendar.create',
    examples: [
      'add lunch with Sam on Friday at 1pm',
      'add dentist tomorrow at 9:30am',
      'schedule a call with the bank on 3 December at 14:00',
    ],
    patterns: [
      new RegExp(`^(?:add|schedule|put)\\s+(.+?)\\s+${DAY_WORDS}\\s+at\\s+([\\d:]+\\s*(?:am|pm)?)$`, 'i'),
    ],
    act: (m, _text, { now, timeZone }) => {
      const day = dayOf(m[2], now, timeZone);
      const time = timeOf(m[3]);
      if (!day || !time) return { kind: 'text', text: `I did not understand when: "${m[2]} at ${m[3]}".` };
      const title = m[1].replace(/^(?:a|an)\s+/i, '');
      const start = at(day, time, timeZone);
      return {
        kind: 'tool',
        tool: 'calendar_create_event',
        input: { title: title.charAt(0).toUpperCase() + title.slice(1), start: isoInZone(start, timeZone) },
      };
    },
    offers: {
      tool: 'calendar_create_event',
      can: 'add events, once you confirm ("add lunch with Sam on Friday at 1pm")',
    },
  },
];
