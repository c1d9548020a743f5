import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { FilesDriver } from '../files.driver';

export const filesSearch = defineTool<FilesDriver>()({
  name: 'files_search',
  description: "Find the user's files whose name or text contains every word of the query.",
  input: z.object({
    query: z.string().trim().min(1).max(200).describe('Words to look for'),
    path: z.string().trim().max(1_000).default('.').describe('Where to look, relative to the files root'),
  }),
  scope: 'read:files',
  handler: async ({ query, path }, { driver, signal }) => ({
    query,
    files: await driver.search(query, path, signal),
  }),
});
