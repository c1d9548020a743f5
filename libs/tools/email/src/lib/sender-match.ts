/**
 * Finding a sender by the name a person gives it. IMAP's `SEARCH FROM` is a substring match on the header as the
 * server keeps it, and servers differ on a display name with punctuation: Dovecot finds `"Dr. Smith's Practice"
 * <…>` by "Smith" but not by "Smith's" or by the whole name. So a name is searched on the server by one plain word
 * of it, and the messages found are kept when their sender, folded as below, holds the whole name folded alike.
 */

/** A plain address or a part of one (`bank`, `landlord@example.test`): the server's own match is right for it. */
const ADDRESS_LIKE = /^[A-Za-z0-9._%+@-]+$/;

/** Apostrophes, straight and curly: dropped, so that "Smith's", "Smith’s" and "Smiths" are one word. */
const APOSTROPHES = /['’‘`ʼ]/g;

/** The name as it is compared: lower case, accents and apostrophes gone, other punctuation as spaces. */
export function foldName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** How to look for a sender: what the server is asked for, and the test each message's sender must pass. */
export interface SenderSearch {
  /** The text for the server's `FROM` search. */
  server: string;
  /** Whether a message's sender (display name and address) is the one asked for; absent: the server decides. */
  matches?: (sender: { name?: string; address?: string }) => boolean;
}

export function senderSearch(wanted: string): SenderSearch {
  const folded = foldName(wanted);
  if (ADDRESS_LIKE.test(wanted) || folded === '') return { server: wanted };
  // The longest plain word, accents kept (the server compares them): the fewest messages to look at.
  const word = wanted
    .split(/[^\p{L}\p{N}]+/u)
    .reduce((longest, next) => (next.length > longest.length ? next : longest), '');
  return {
    server: word,
    matches: ({ name, address }) => foldName(`${name ?? ''} ${address ?? ''}`).includes(folded),
  };
}
