import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { EmailDriver } from '../email.driver';

export const emailList = defineTool<EmailDriver>()({
  name: 'email_list',
  description: 'The latest messages of a folder (INBOX by default), newest first.',
  input: z.object({
    folder: z.string().trim().min(1).max(200).default('INBOX'),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  scope: 'read:emails',
  handler: async ({ folder, limit }, { driver, signal }) => ({
    criteria: { folder },
    messages: await driver.search({ folder, limit }, signal),
  }),
});
