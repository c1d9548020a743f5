/**
 * What a tool family teaches the built-in offline model: the English phrasings of its requests, in the manner of
 * Home Assistant's sentence templates. The model tries every family's rules in order (the first match wins) and
 * turns a match into a tool call or a plain answer. Every example is checked by a test of the family.
 */
export type BuiltinAction =
  | {
      kind: 'tool';
      tool: string;
      input: Record<string, unknown>;
      /** What the user asked about, for the answer to pick out of the result ("yoga" among the events). */
      focus?: string;
      /**
       * Where to look next when this tool finds nothing (or the run lacks it): "what's my X?" tries the memories,
       * then the mail, then the files. The answer then says where it came from.
       */
      otherwise?: ReadonlyArray<{ tool: string; input: Record<string, unknown> }>;
      /**
       * What to do with this tool's result before answering: another call, or a question back ("forget that X":
       * the matching memories are searched, then the one that matches is forgotten, or the user is asked which).
       */
      then?(output: unknown): BuiltinAction | undefined;
    }
  | { kind: 'text'; text: string }
  /** A request for a tool family the model has no phrasings for: the answer depends on the run's tools. */
  | { kind: 'family'; family: string; about: string };

/** When and where a request is made, for phrasings such as "tomorrow" or "on Friday at 1pm". */
export interface PhraseContext {
  now: Date;
  /** The user's IANA time zone (`Europe/Berlin`). */
  timeZone: string;
}

export interface PhraseRule {
  intent: string;
  /** Requests this rule must understand; also the documentation of the phrasing. */
  examples: string[];
  /** Tried against the request with politeness and trailing punctuation stripped. */
  patterns: RegExp[];
  act(match: RegExpMatchArray, text: string, context: PhraseContext): BuiltinAction;
  /**
   * The tool this rule calls and what that lets the user do, for telling them what is possible in a query. A
   * rule that calls any tool of its family names them all as `<family>_*` (`custom_*`).
   */
  offers?: { tool: string; can: string };
  /**
   * Catch-all rules (e.g. "when is …?" searches the memories) are tried after every family's specific ones, so
   * that "when is my next meeting?" reaches the calendar.
   */
  fallback?: boolean;
}
