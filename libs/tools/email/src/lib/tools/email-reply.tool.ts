import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { EmailDriver } from '../email.driver';

export const emailReply = defineTool<EmailDriver>()({
  name: 'email_reply',
  description: 'Reply to a message (by its id) from the user’s address, in its thread.',
  input: z.object({ id: z.string().min(1).max(300), body: z.string().min(1).max(50_000) }),
  scope: 'write:emails',
  side_effects: true,
  annotations: { destructiveHint: false, openWorldHint: true },
  handler: async ({ id, body }, { driver }) => driver.reply(id, body),
});
