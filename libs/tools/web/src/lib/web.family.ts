import { defineFamily } from '@assistant/tool-kit';
import { fetchProvider, type WebDriver } from './web.driver';
import { braveProvider, searxngProvider } from './search-engines';
import { webFetch } from './tools/web-fetch.tool';
import { webSearch } from './tools/web-search.tool';
import { webIntents } from './intents';
import { webAnswer } from './answers';

/**
 * The web: pages fetched as text, with every address checked (no requests into the server's own network), and
 * searched through a search engine the account connects (SearXNG, Brave).
 */
export const webFamily = defineFamily<WebDriver>({
  name: 'web',
  description: 'Web pages, fetched and read as text, and web search.',
  topic: {
    about: 'the web (pages, weather, news, search)',
    keywords: [
      'web',
      'website',
      'internet',
      'online',
      'google',
      'webpage',
      'url',
      'link',
      'weather',
      'forecast',
      'news',
    ],
  },
  providers: [fetchProvider(), searxngProvider, braveProvider],
  // Fetching needs no account: every account has it, on both deployments, with an empty allow-list.
  defaults: [
    {
      provider: 'fetch',
      name: 'Web',
      deployments: ['self-hosted', 'hosted'],
      settings: () => ({ allow_hosts: [] }),
    },
  ],
  tools: [webFetch, webSearch],
  intents: webIntents,
  answer: webAnswer,
});
