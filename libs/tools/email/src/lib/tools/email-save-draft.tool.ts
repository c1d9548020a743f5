import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { EmailDriver } from '../email.driver';

export const emailSaveDraft = defineTool<EmailDriver>()({
  name: 'email_save_draft',
  description: 'Save an email as a draft in the user’s Drafts folder, without sending it.',
  input: z.object({
    to: z.array(z.email()).max(20).default([]),
    subject: z.string().trim().max(300).default(''),
    body: z.string().max(50_000),
  }),
  scope: 'write:emails',
  side_effects: true,
  annotations: { destructiveHint: false, openWorldHint: false },
  handler: async ({ to, subject, body }, { driver }) => ({
    ...(await driver.saveDraft({ to, subject, body })),
    to,
    subject,
  }),
});
