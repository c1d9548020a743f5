import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { FilesDriver } from '../files.driver';

export const filesMove = defineTool<FilesDriver>()({
  name: 'files_move',
  description: "Move or rename a file or folder of the user's; the target must not exist.",
  input: z.object({
    from: z.string().trim().min(1).max(1_000),
    to: z.string().trim().min(1).max(1_000),
  }),
  scope: 'write:files',
  side_effects: true,
  annotations: { destructiveHint: false, openWorldHint: false },
  handler: async ({ from, to }, { driver }) => driver.move(from, to),
});
