import type { FlagTable, FlagValues } from '../lib/flag-table';

/**
 * The flags of `assistant chat`, declared once without oclif: the oclif command (for --help and the rare forms)
 * and the fast path of bin/run.js (which parses with node:util, so that a question does not wait ~150 ms for
 * oclif to load) both derive theirs from this table.
 */
export const CHAT_FLAGS = {
  json: { type: 'boolean', summary: 'Print each event as one JSON object a line on stdout.' },
  yes: {
    type: 'boolean',
    char: 'y',
    summary: 'Approve every call that changes something (send, write, switch) without asking.',
    description:
      'Without it, such a call is shown and asked about (y/N) on a terminal, and refused when there is no terminal to ask.',
  },
  discussion: {
    type: 'string',
    char: 'd',
    summary: 'Continue this discussion (its id, dsc_…).',
    helpValue: '<id>',
  },
  model: {
    type: 'string',
    char: 'm',
    summary: 'The model to use (builtin, ollama:<model>, openai:<model>, …; default: the server’s).',
    helpValue: '<name>',
  },
  tools: {
    type: 'string',
    summary: 'Only let the assistant use these tools (comma-separated names).',
    helpValue: '<a,b,…>',
  },
  url: {
    type: 'string',
    summary: 'The server (default: ASSISTANT_BASE_URL, else the local one).',
    helpValue: '<url>',
  },
  token: {
    type: 'string',
    summary: 'The API token (default: ASSISTANT_API_TOKEN, else the local credentials file).',
    helpValue: '<token>',
  },
  'data-dir': {
    type: 'directory',
    summary: 'The data directory whose credentials.json to use (default $XDG_DATA_HOME/assistant).',
    helpValue: '<path>',
  },
} as const satisfies FlagTable;

/** The values of the flags, as either parser hands them to `runChat`. */
export type ChatFlagValues = FlagValues<typeof CHAT_FLAGS>;

/** The description of the argument, for oclif's help. */
export const CHAT_TEXT_ARGUMENT = 'The question or request; - reads it from stdin.';
