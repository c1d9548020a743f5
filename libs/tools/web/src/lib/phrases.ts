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
  {
    intent: 'web.search',
    examples: [
      'search the web for vegan lasagne recipes',
      'search the internet for the opening hours of the Louvre',
      'look up train strikes in France online',
      'find reviews of the Fairphone 5 on the web',
      'google best hiking trails near Grenoble',
      'web search for Rust async runtimes',
    ],
    patterns: [
      /^(?:search|look)(?: up)?\s+(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+for\s+(.+)$/i,
      /^(?:search(?: for)?|look up|find)\s+(.+?)\s+(?:on the web|on the internet|online)$/i,
      /^google\s+(.+)$/i,
      /^(?:do a\s+)?web search\s+(?:for\s+)?(.+)$/i,
    ],
    act: (m) => ({ kind: 'tool', tool: 'web_search', input: { query: m[1] } }),
    offers: { tool: 'web_search', can: 'search the web ("search the web for …")' },
  },
];
