import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { EmailDriver } from '../email.driver';

export const emailSearch = defineTool<EmailDriver>()({
  name: 'email_search',
  description: "Search the user's mail by sender, subject, text, dates and unread; newest first.",
  input: z.object({
    from: z.string().trim().max(200).optional(),
    subject: z.string().trim().max(200).optional(),
    text: z.string().trim().max(200).optional(),
    since: z.iso.date().optional().describe('YYYY-MM-DD'),
    before: z.iso.date().optional().describe('YYYY-MM-DD'),
    unread: z.boolean().optional(),
    folder: z.string().trim().min(1).max(200).default('INBOX'),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  scope: 'read:emails',
  handler: async ({ since, before, ...criteria }, { driver, signal }) => ({
    criteria: { ...criteria, since, before },
    messages: await driver.search(
      {
        ...criteria,
        since: since ? new Date(since) : undefined,
        before: before ? new Date(before) : undefined,
      },
      signal,
    ),
  }),
});
