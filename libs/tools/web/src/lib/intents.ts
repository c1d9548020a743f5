import type { FamilyIntents } from '@assistant/tool-kit';

/** What the built-in model understands of the web: sentence templates with slots (see the tool kit's `intents.ts`). */
export const webIntents: FamilyIntents = {
  rules: {
    web: '(web|internet|online|net|google|duckduckgo)',
  },
  intents: [
    {
      intent: 'web.fetch',
      templates: [
        'what does {url} say',
        "(what does|what's on|what is on|summarize|summarise|sum up|read|open|fetch|show me|get|check|go to|visit|load|tldr|tl;dr|what's at|what is at) [the] [page|site|website|link|article] {url} [say|says|about]",
        '{url}',
        '(summarize|summarise|read|open) [this|that|the] [page|site|link|article] [at|on] {url}',
      ],
      examples: [
        'what does https://example.com/page say?',
        'summarize https://example.com/news',
        'read https://example.com',
        'open http://example.com/a?b=c',
        'what is on https://example.com/menu',
      ],
      act: (slots) =>
        slots['url'] ? { kind: 'tool', tool: 'web_fetch', input: { url: slots['url'] } } : undefined,
      offers: { tool: 'web_fetch', can: 'read a web page for you ("what does https://… say?")' },
    },
    {
      intent: 'web.search',
      templates: [
        'search the web for {text}',
        '(search|look|check) [up] [on] [the] <web> for {text}',
        '(search [for]|look up|find|check) {text} (on the web|on the internet|online|on google|on the net)',
        '(google|bing|duckduckgo) {text}',
        '[do a] (web|internet|google) search [for|on] {text}',
        '(search|look) online for {text}',
      ],
      examples: [
        'search the web for vegan lasagne recipes',
        'search the internet for the opening hours of the Louvre',
        'look up train strikes in France online',
        'find reviews of the Fairphone 5 on the web',
        'google best hiking trails near Grenoble',
        'web search for Rust async runtimes',
      ],
      act: (slots) =>
        slots['text'] ? { kind: 'tool', tool: 'web_search', input: { query: slots['text'] } } : undefined,
      offers: { tool: 'web_search', can: 'search the web ("search the web for …")' },
    },
  ],
};
