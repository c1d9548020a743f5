import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import { FILE_LIMITS, type FilesDriver } from '../files.driver';

export const filesWrite = defineTool<FilesDriver>()({
  name: 'files_write',
  description: 'Write a text file of the user; an existing file is replaced only when overwrite is true.',
  input: z.object({
    path: z.string().trim().min(1).max(1_000).describe('The file, relative to the files root'),
    text: z.string().max(FILE_LIMITS.maxWriteChars),
    overwrite: z.boolean().default(false),
  }),
  scope: 'write:files',
  side_effects: true,
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ path, text, overwrite }, { driver }) => driver.write(path, text, overwrite),
});
