import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { EmailDriver } from '../email.driver';

export const emailSend = defineTool<EmailDriver>()({
  name: 'email_send',
  description: 'Send an email from the user’s address.',
  input: z.object({
    to: z.array(z.email()).min(1).max(20),
    cc: z.array(z.email()).max(20).optional(),
    subject: z.string().trim().min(1).max(300),
    body: z.string().min(1).max(50_000),
  }),
  scope: 'write:emails',
  side_effects: true,
  annotations: { destructiveHint: false, openWorldHint: true },
  handler: async (message, { driver }) => driver.send(message),
});
