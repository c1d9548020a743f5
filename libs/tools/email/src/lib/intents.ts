import type { FamilyIntents, IntentContext, Learned, Slots } from '@assistant/tool-kit';
import type { Message, MessageSummary } from './email.driver';

/**
 * What the built-in model understands of mail: sentence templates with slots (see the tool kit's `intents.ts`).
 * A sender is looked up among the senders the account's mail has shown (so "the garage" finds the garage's
 * address), a topic loses its stop words ("a fee" searches "fee"), and a day becomes the search's dates.
 */

/** A sender as the search takes it: the known address that the words name, else the words themselves. */
function senderOf(words: string | undefined, context: IntentContext): string | undefined {
  return words ? (context.known('sender', words) ?? words) : undefined;
}

/** The connection a request names ("my work mail"), as its name: a tool taking `connection` uses it. */
function connectionOf(slots: Slots, context: IntentContext): { connection?: string } {
  const named = slots['connection'];
  return named ? { connection: context.known('connection', named) ?? named } : {};
}

/** "yesterday", "this week": the search's dates (the end day excluded, as IMAP's BEFORE is). */
function datesOf(words: string | undefined, context: IntentContext): { since?: string; before?: string } {
  const range = words ? context.when(words) : undefined;
  return range ? { since: range.start.slice(0, 10), before: range.end.slice(0, 10) } : {};
}

/** "did i get an email": "i get an" is no sender. */
const NOT_A_SENDER =
  /^(?:i|we|you|me|us|it|anyone|anybody|someone|somebody|last|this|next|today|yesterday|tomorrow|earlier)\b/i;

function search(slots: Slots, context: IntentContext, unread: boolean) {
  if (slots['sender'] && NOT_A_SENDER.test(slots['sender'])) return undefined;
  const from = senderOf(slots['sender'], context);
  return {
    kind: 'tool' as const,
    tool: 'email_search',
    input: {
      ...(from ? { from } : {}),
      ...(slots['topic'] ? { text: slots['topic'] } : {}),
      ...datesOf(slots['when'], context),
      ...(unread ? { unread: true } : {}),
      ...connectionOf(slots, context),
      limit: 5,
    },
  };
}

const FROM = '[any|some|anything|something] [<mail>] from {sender}';
const ON = '[(in|on|from) <my> {connection} (account|mail|inbox|address)]';

export const emailIntents: FamilyIntents = {
  rules: {
    asked:
      '(i have|any|got any|have i got|have i gotten|do i have|did i get|did i receive|did i receive any|is there|are there|were there|did anything come|anything)',
    find: '(find|search [for]|look for|look up|show [me]|get [me]|pull up|check [for]|list)',
    read: '(read|open|show|show me|read me|read out|what does|display)',
    about: '(about|regarding|re|concerning|on|mentioning|with subject|with the subject)',
  },
  intents: [
    {
      intent: 'email.list',
      templates: [
        '(check|open|read|show|list|see|view|go through|get|fetch|pull up|display) [me] <my> [latest|newest|recent|last] (inbox|mail|mails|email|emails|messages|mailbox) ' +
          ON,
        '<whats> (in|new in) <my> (inbox|mailbox|mail|email) ' + ON,
        '<my> (inbox|mail|emails|mailbox)',
        '(inbox|mail|emails|email) [please]',
        '(anything|something) (new|else) in <my> (inbox|mail|email)',
        // "check my work mail": a connection by its name (the server matches it to the account's connections).
        '(check|open|read|show|list|see|get) [me] <my> {connection} (inbox|mail|mails|email|emails|mailbox)',
        '<whats> in <my> {connection} (inbox|mail|mailbox)',
      ],
      examples: ['show my latest emails', "what's in my inbox?", 'check my mail'],
      act: (slots, context) => ({
        kind: 'tool',
        tool: 'email_list',
        input: { folder: 'INBOX', limit: 5, ...connectionOf(slots, context) },
      }),
      offers: { tool: 'email_list', can: 'show your latest mail' },
    },
    {
      intent: 'email.unread',
      templates: [
        '<asked> [any] (new|unread) <mail> [{when}] ' + ON,
        '<find> [me] <my> (new|unread) <mail> ' + ON,
        'how many (new|unread) <mail> [do i have] ' + ON,
        '<asked> [new] (mail|email|emails) {when}',
        '[<asked>|<find>] [any|some] (new|unread) <mail> from {sender} [{when}] ' + ON,
      ],
      examples: [
        'any new mail?',
        'do I have unread emails',
        'did i get any new mail today',
        'any new mail from my landlord?',
        'any new emails from Sam',
      ],
      act: (slots, context) => search(slots, context, true),
      offers: { tool: 'email_search', can: 'search your mail ("any new mail from …?")' },
    },
    {
      intent: 'email.search',
      templates: [
        // The first template of each intent is what "help" says: the plainest request.
        'any mail from {sender}',
        `[<asked>|<find>] ${FROM} [{when}] ${ON}`,
        `[<asked>|<find>] ${FROM} <about> {topic}`,
        `[<asked>|<find>] ${FROM} <about> {topic} {when}`,
        `[<asked>|<find>] ${FROM} {when} <about> {topic}`,
        '(did|has|have) {sender} (email|emailed|mail|mailed|write|wrote|written|message|messaged|send|sent|reply|replied|answer|answered|get back to|gotten back to|got back to) [back] [to] [me|us] [anything|something] [back] [yet] [{when}]',
        '(did|has|have) {sender} (email|emailed|mail|mailed|write|wrote|written|message|messaged|send|sent|reply|replied) [to] [me|us] [anything|something|a mail|an email] <about> {topic}',
        '<whats> (new|the latest) from {sender}',
        '(did|has|have) {sender} (send|sent) [me|us] [the|a|an|any|my] {topic}',
        '(is there|was there) [anything|something|any mail] from {sender} [{when}]',
        '<mail> (from|by) {sender}',
      ],
      examples: [
        'any mail from my landlord?',
        'did I get mail from the bank?',
        'did the bank email me about the loan?',
        'did Sam write to me about the party',
      ],
      act: (slots, context) => search(slots, context, false),
    },
    {
      intent: 'email.about',
      templates: [
        '[<asked>|<find>] [any|some|the|a|an] [new] <mail> <about> {topic} [{when}]',
        '<asked> [anything|something|any news] <about> {topic} in <my> (mail|inbox|email)',
        '(search|check) <my> (mail|inbox|email|emails) for {topic}',
        '[<asked>|<find>] [any|some|the] <mail> (from|since|during|in|of) {when}',
        '(has|did|have) (anyone|anybody|someone|somebody) (email|emailed|mailed|written|written to|messaged|sent) [me|us] [anything] [{when}]',
        "(find|where is|where's) the (email|mail|message) <about> {topic}",
      ],
      examples: [
        'any emails about the invoice',
        'search my mail for the fee',
        'did i get an email about the parcel',
      ],
      act: (slots, context) => search(slots, context, false),
    },
    {
      intent: 'email.read',
      templates: [
        '<read> [me] <my> [latest|last|newest|most recent|new] (email|mail|message|emails|mails) (from|by) {sender}',
        "<read> [me] {sender}'s [latest|last|newest] (email|mail|message)",
        'what did {sender} (send|write|email|say|want) [me]',
        'what does {sender} (say|want|write)',
        '<read> [me] what {sender} (sent|wrote|said)',
      ],
      examples: [
        'read the email from Sam',
        'read the latest mail from my landlord',
        'open the message from the bank',
        'read me the mail from sam',
      ],
      act: (slots, context) => {
        const from = senderOf(slots['sender'], context);
        return from ? { kind: 'tool', tool: 'email_read', input: { from } } : undefined;
      },
      offers: { tool: 'email_read', can: 'read a message to you ("read the email from …")' },
    },
    {
      // "read it" after a list or search: the message it showed first.
      intent: 'email.read.it',
      after: ['email.list', 'email.unread', 'email.search', 'email.about', 'email.read'],
      templates: [
        '<read> [me] (it|that|this|that one|this one|them|the first [one]|the latest [one]|the last one|the newest [one]|the top one) [(email|mail|message)]',
        '<read> [me] the (email|mail|message)',
        'what does it say',
      ],
      examples: ['read it', 'open that one'],
      act: (slots, context) => {
        const id = context.last('message');
        if (id) return { kind: 'tool', tool: 'email_read', input: { id } };
        const sender = context.previous?.slots['sender'];
        return sender
          ? { kind: 'tool', tool: 'email_read', input: { from: senderOf(sender, context) } }
          : undefined;
      },
    },
    {
      intent: 'email.reply',
      templates: [
        '(reply|respond|answer|write back) [to] [it|that|this|them|him|her|that one|the (email|mail|message)] [with|saying|and say|that|:] {text}',
      ],
      examples: ['reply yes', 'reply saying thanks, see you then'],
      act: (slots, context) => {
        const id = context.last('message');
        const body = slots['text'];
        if (!body) return undefined;
        if (!id)
          return {
            kind: 'text',
            text: 'Which message? Ask me for it first ("read the email from …"), then say "reply …".',
          };
        return { kind: 'tool', tool: 'email_reply', input: { id, body: capitalised(body) } };
      },
      offers: {
        tool: 'email_reply',
        can: 'reply to a message you just read, once you confirm ("reply yes")',
      },
    },
    {
      intent: 'email.send',
      templates: [
        '(email|mail|message|send [an|a] (email|mail|message) to|write [an|a] (email|mail) to|write to|send) {address} (saying|to say|that|with|:|and say|and tell them) {text}',
        '(email|mail|message|send [an|a] (email|mail|message) to|write [an|a] (email|mail) to|write to|tell) {person} (saying|to say|that|:|and say) {text}',
      ],
      examples: [
        "email sam@example.com saying I'll be late",
        'send an email to bob@example.test saying the keys are under the mat',
      ],
      act: (slots, context) => {
        const body = slots['text'];
        const to =
          slots['address'] ?? (slots['person'] ? context.known('sender', slots['person']) : undefined);
        if (!body) return undefined;
        if (!to || !to.includes('@')) {
          return {
            kind: 'text',
            text: `What is ${slots['person'] ?? 'their'} address? Say "email name@example.com saying …".`,
          };
        }
        const address = /<([^>]+)>/.exec(to)?.[1] ?? to;
        return {
          kind: 'tool',
          tool: 'email_send',
          input: { to: [address], subject: body.length > 60 ? `${body.slice(0, 57)}…` : body, body },
        };
      },
      offers: { tool: 'email_send', can: 'send mail, once you confirm ("email … saying …")' },
    },
  ],
  learn: (tool, output) => {
    const learned: Learned[] = [];
    const sender = (from: string) => {
      const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
      learned.push({ kind: 'sender', value: address, label: from });
    };
    if (tool === 'email_search' || tool === 'email_list') {
      const messages = (output as { messages?: MessageSummary[] }).messages ?? [];
      for (const m of messages) learned.push({ kind: 'message', value: m.id, label: m.subject });
      for (const m of messages) sender(m.from);
    } else if (tool === 'email_read') {
      const message = output as Message;
      learned.push({ kind: 'message', value: message.id, label: message.subject });
      sender(message.from);
    }
    return learned;
  },
};

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
