import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { FilesDriver } from '../files.driver';

export const filesList = defineTool<FilesDriver>()({
  name: 'files_list',
  description: "List a folder of the user's files (names, types, sizes), at most 200 entries.",
  input: z.object({
    path: z.string().trim().max(1_000).default('.').describe('A folder, relative to the files root'),
  }),
  scope: 'read:files',
  handler: async ({ path }, { driver }) => ({ path, entries: await driver.list(path) }),
});
