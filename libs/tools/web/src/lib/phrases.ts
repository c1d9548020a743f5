import type { PhraseRule } from '@assistant/tool-kit';

const URL_IN_TEXT = '(https?:\\/\\/\\S+?)';

export const webPhrases: PhraseRule[] = [
  {
    intent: 'web.fetch',
    examples: [
      'what does https://example.com/page say?',
      'summarize https://example.com/news',
      'read https://example.com',
      'open http://example.com/a?b=c',
      'what is on https://example.com/menu',
    ],
    patterns: [
      new RegExp(
        `^(?:what does|what's on|what is on|summari[sz]e|read|open|fetch|show me)\\s+(?:the page\\s+)?${URL_IN_TEXT}(?:\\s+say)?\\??$`,
        'i',
      ),
    ],
    act: (m) => ({ kind: 'tool', tool: 'web_fetch', input: { url: m[1] } }),
    offers: { tool: 'web_fetch', can: 'read a web page for you ("what does https://… say?")' },
  },
];
