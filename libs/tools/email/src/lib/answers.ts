import { joinAnd } from '@assistant/tool-kit';
import type { Message, MessageSummary } from './email.driver';

const SHOWN = 5;
const READ_CHARS = 600;

const day = (iso: string) => (iso ? iso.slice(0, 10) : 'undated');
const sender = (from: string) => from.replace(/\s*<[^>]*>$/, '') || from;

/** What the built-in model says once an email tool has answered. */
export function emailAnswer(tool: string, output: unknown): string {
  switch (tool) {
    case 'email_search':
    case 'email_list': {
      const { criteria, messages } = output as {
        criteria: { from?: string; unread?: boolean; text?: string };
        messages: MessageSummary[];
      };
      const what = `${criteria.unread ? 'new ' : ''}mail${criteria.from ? ` from ${criteria.from}` : ''}${criteria.text ? ` about ${criteria.text}` : ''}`;
      if (messages.length === 0) return `No ${what}.`;
      const listed = messages
        .slice(0, SHOWN)
        .map((m) => `“${m.subject}” from ${sender(m.from)} (${day(m.date)}${m.unread ? ', unread' : ''})`);
      const count = messages.length === 1 ? 'one message' : `${messages.length} messages`;
      return `${tool === 'email_list' ? 'Your latest mail' : `Yes: ${count}`}: ${joinAnd(listed)}.`;
    }
    case 'email_read': {
      const message = output as Message;
      const text = message.text.replace(/\s+/g, ' ').trim();
      const cut = text.length > READ_CHARS || message.truncated;
      const attachments = message.attachments.length ? ` Attached: ${joinAnd(message.attachments)}.` : '';
      return `From ${sender(message.from)}, “${message.subject}”: ${text.slice(0, READ_CHARS)}${cut ? ' …' : ''}${attachments}`;
    }
    case 'email_send':
      return `Sent to ${joinAnd((output as { to: string[] }).to)}.`;
    case 'email_reply':
      return `Replied to ${joinAnd((output as { to: string[] }).to)}.`;
    case 'email_save_draft':
      return `Saved the draft in ${(output as { folder: string }).folder}.`;
    default:
      return `Done (${tool}).`;
  }
}
