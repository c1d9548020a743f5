import type { PhraseRule } from '@assistant/tool-kit';

/** "my landlord", "the bank", "Sam": who a person means, without the article. */
const clean = (who: string) => who.replace(/^(?:my|the)\s+/i, '').trim();

export const emailPhrases: PhraseRule[] = [
  {
    intent: 'email.search',
    examples: ['any new mail from my landlord?', 'any new emails from Sam', 'did I get mail from the bank?'],
    patterns: [
      /^any (new |unread )?(?:mail|e-?mails?|messages?) from (.+?)\??$/i,
      /^did i get (?:any )?(new )?(?:mail|e-?mails?|messages?) from (.+?)\??$/i,
    ],
    act: (m) => ({
      kind: 'tool',
      tool: 'email_search',
      input: { from: clean(m[2]), ...(m[1] ? { unread: true } : {}), limit: 5 },
    }),
    offers: { tool: 'email_search', can: 'search your mail ("any new mail from …?")' },
  },
  {
    intent: 'email.search.about',
    examples: ['did the bank email me about the loan?', 'did Sam write to me about the party'],
    patterns: [/^did (.+?) (?:e-?mail|write to|mail) me about (.+?)\??$/i],
    act: (m) => ({
      kind: 'tool',
      tool: 'email_search',
      input: { from: clean(m[1]), text: clean(m[2]), limit: 5 },
    }),
  },
  {
    intent: 'email.list',
    examples: ['show my latest emails', "what's in my inbox?", 'check my mail'],
    patterns: [
      /^(?:show|list)(?: me)? my (?:latest |newest |recent )?(?:e-?mails?|mail|messages)$/i,
      /^what'?s in my inbox\??$/i,
      /^check my (?:e-?)?mail$/i,
    ],
    act: () => ({ kind: 'tool', tool: 'email_list', input: { folder: 'INBOX', limit: 5 } }),
    offers: { tool: 'email_list', can: 'show your latest mail' },
  },
  {
    intent: 'email.read',
    examples: [
      'read the email from Sam',
      'read the latest mail from my landlord',
      'open the message from the bank',
    ],
    patterns: [/^(?:read|open|show me) the (?:latest |last |newest )?(?:e-?mail|mail|message) from (.+?)$/i],
    act: (m) => ({ kind: 'tool', tool: 'email_read', input: { from: clean(m[1]) } }),
    offers: { tool: 'email_read', can: 'read a message to you ("read the email from …")' },
  },
  {
    intent: 'email.send',
    examples: [
      "email sam@example.com saying I'll be late",
      'send an email to bob@example.test saying the keys are under the mat',
    ],
    patterns: [/^(?:e-?mail|send an? e-?mail to|mail)\s+(\S+@\S+?)\s+(?:saying|to say|that)\s+(.+)$/i],
    act: (m) => {
      const body = m[2].trim();
      return {
        kind: 'tool',
        tool: 'email_send',
        input: { to: [m[1]], subject: body.length > 60 ? `${body.slice(0, 57)}…` : body, body },
      };
    },
    offers: { tool: 'email_send', can: 'send mail, once you confirm ("email … saying …")' },
  },
];
