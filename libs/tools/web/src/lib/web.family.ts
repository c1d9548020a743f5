import { defineFamily } from '@assistant/tool-kit';
import { fetchProvider, type WebDriver } from './web.driver';
import { webFetch } from './tools/web-fetch.tool';
import { webPhrases } from './phrases';
import { webAnswer } from './answers';

/** The web: pages fetched as text, with every address checked (no requests into the server's own network). */
export const webFamily = defineFamily<WebDriver>({
  name: 'web',
  description: 'Web pages, fetched and read as text.',
  topic: {
    about: 'the web (pages, weather, news, search)',
    keywords: ['web', 'website', 'internet', 'webpage', 'url', 'link', 'weather', 'forecast', 'news'],
  },
  providers: [fetchProvider()],
  // Fetching needs no account: every account has it, on both deployments, with an empty allow-list.
  defaults: [
    {
      provider: 'fetch',
      name: 'Web',
      deployments: ['self-hosted', 'hosted'],
      settings: () => ({ allow_hosts: [] }),
    },
  ],
  tools: [webFetch],
  phrases: webPhrases,
  answer: webAnswer,
});
