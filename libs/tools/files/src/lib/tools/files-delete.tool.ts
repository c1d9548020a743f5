import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { FilesDriver } from '../files.driver';

export const filesDelete = defineTool<FilesDriver>()({
  name: 'files_delete',
  description: "Delete a file (or an empty folder) of the user's.",
  input: z.object({ path: z.string().trim().min(1).max(1_000) }),
  scope: 'write:files',
  side_effects: true,
  annotations: { destructiveHint: true, openWorldHint: false },
  handler: async ({ path }, { driver }) => {
    await driver.delete(path);
    return { deleted: path };
  },
});
