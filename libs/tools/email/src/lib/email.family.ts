import { defineFamily } from '@assistant/tool-kit';
import type { EmailDriver } from './email.driver';
import { imapProvider } from './imap.provider';
import { emailSearch } from './tools/email-search.tool';
import { emailList } from './tools/email-list.tool';
import { emailRead } from './tools/email-read.tool';
import { emailSend } from './tools/email-send.tool';
import { emailReply } from './tools/email-reply.tool';
import { emailSaveDraft } from './tools/email-save-draft.tool';
import { emailIntents } from './intents';
import { emailAnswer } from './answers';

/** The user's mail over IMAP and SMTP. Sending, replying and saving drafts needs the user's yes. */
export const emailFamily = defineFamily<EmailDriver>({
  name: 'email',
  description: 'Mail over IMAP and SMTP: search, list and read; send, reply and save drafts once confirmed.',
  topic: { about: 'your mail', keywords: ['email', 'e-mail', 'mail', 'inbox', 'mailbox'] },
  providers: [imapProvider],
  tools: [emailSearch, emailList, emailRead, emailSend, emailReply, emailSaveDraft],
  intents: emailIntents,
  answer: emailAnswer,
});
