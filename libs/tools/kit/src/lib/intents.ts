import type { BuiltinAction, PhraseContext } from './phrases';

/**
 * What a tool family teaches the built-in offline model, in the manner of Home Assistant's sentence templates
 * (hassil): each intent has templates with alternatives `(a|b)`, optional words `[the]`, slots `{sender}` and
 * expansion rules `<mail>`; a request matches the template that explains most of its words, and the slots'
 * words become the tool's arguments. The engine is `templates.ts`; this file is what a family declares.
 */

/**
 * The kinds of value a slot holds. The name of a slot is its kind (`{sender}`), or `{kind:name}` when a template
 * has two of a kind. Each kind is cleaned its own way (see `cleanSlot`): search words lose their stop words, a
 * person loses "my"/"the", a day must be a day the date parser reads.
 */
export type SlotKind =
  | 'sender' // a person or company mail comes from: "sam", "the garage", "acme plumbing ltd."
  | 'person' // someone to write to
  | 'topic' // words to search for: stop words dropped
  | 'text' // words said verbatim: a mail's body, a note's text, a fact to remember
  | 'title' // an event's title
  | 'event' // an event the user refers to ("my yoga class")
  | 'thing' // something the user asks about ("my locker code")
  | 'when' // a day, a period or a moment: read by the date parser in the user's time zone
  | 'file' // a file's name or path ("packing list", "notes/todo.txt")
  | 'folder'
  | 'device'
  | 'connection' // a connection by its name ("my work mail")
  | 'url'
  | 'address' // an email address
  | 'number'
  | 'state'; // on / off

/** A day, a period or a moment as the user meant it, in their time zone (ISO 8601 with offset). */
export interface WhenRange {
  start: string;
  end: string;
  /** The user named a time of day ("at 1pm"), not only a day. */
  hasTime: boolean;
  /** YYYY-MM-DD of `start` and `end` in the user's zone. */
  startDay: string;
  endDay: string;
}

/** What the account's own data tell the built-in model (see `Learned`). */
export type VocabularyKind = 'sender' | 'event' | 'file' | 'device' | 'connection' | 'memory' | 'message';

/** A value a family's tool result showed: a sender, an event, a file, a device, a message id… */
export interface Learned {
  kind: VocabularyKind;
  /** What a tool takes (an address, a path, an id). */
  value: string;
  /** The words people use for it ("Acme Plumbing Ltd.", "packing list"); the value's own words when absent. */
  label?: string;
}

export interface IntentContext extends PhraseContext {
  /** The day, period or moment that words name ("next thursday", "3 december 2026", "tomorrow evening"). */
  when(words: string): WhenRange | undefined;
  /** The account's known value of a kind that words name, fuzzily ("the garage" → garage@kwikfix.example). */
  known(kind: VocabularyKind, words: string): string | undefined;
  /** The last value of a kind that this discussion's results showed (the message just listed or read). */
  last(kind: VocabularyKind): string | undefined;
  /** The discussion's previous request as it was understood, for follow-ups ("and tomorrow?", "read it"). */
  previous?: { intent: string; slots: Readonly<Record<string, string>> };
}

export type Slots = Readonly<Record<string, string | undefined>>;

export interface Intent {
  intent: string;
  /** Sentence templates: `(what's|what is) on my <calendar> [for] {when}`. */
  templates: readonly string[];
  /** Requests this intent must understand, tested; the first one is shown in `help`. */
  examples: readonly string[];
  /** The action for a match; undefined when the slots make no sense for it (the next best match is tried). */
  act(slots: Slots, context: IntentContext): BuiltinAction | undefined;
  /** The tool it calls and what that lets the user do, in words (see `PhraseRule.offers`). */
  offers?: { tool: string; can: string };
  /** Tried only when no other intent matches (a bare question searches the memories). */
  fallback?: boolean;
  /** Only right after a request of one of these intents (a follow-up: "read it" after a mail search). */
  after?: readonly string[];
}

/** A family's intents with the expansion rules its templates use besides the shared ones. */
export interface FamilyIntents {
  intents: readonly Intent[];
  rules?: Readonly<Record<string, string>>;
  /** Values of the account that a tool's result shows, for fuzzy slots and follow-ups. */
  learn?(tool: string, output: unknown): Learned[];
}
