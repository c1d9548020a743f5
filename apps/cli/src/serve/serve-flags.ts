import type { FlagTable, FlagValues } from '../lib/flag-table';

/**
 * The flags of `assistant serve`, declared once without oclif: the oclif command (for --help and the rare forms)
 * and the fast path of bin/run.js (which parses with node:util, so that the server does not wait for oclif to
 * load before it starts) both derive theirs from this table.
 */
export const SERVE_FLAGS = {
  port: { type: 'string', char: 'p', summary: 'Port to listen on (default 7747).', helpValue: '<port>' },
  host: {
    type: 'string',
    summary: 'Address to listen on (default 127.0.0.1, this machine only).',
    helpValue: '<address>',
  },
  'data-dir': {
    type: 'directory',
    summary: 'Where the database, credentials and tools live (default $XDG_DATA_HOME/assistant).',
    helpValue: '<path>',
  },
  model: {
    type: 'string',
    summary:
      'Default model: builtin, ollama:<model>, openai-compatible:<model>, openai:<model> or anthropic:<model>.',
    helpValue: '<model>',
  },
  'database-url': {
    type: 'string',
    summary: 'A postgres:// URL to use PostgreSQL instead of the embedded SQLite database.',
    helpValue: '<url>',
  },
  tools: {
    type: 'directory',
    summary:
      'A folder of custom tool modules, each `export default defineTool({...})` (default <data-dir>/tools).',
    helpValue: '<path>',
  },
  'login-link': {
    type: 'boolean',
    summary:
      'Print a fresh one-time sign-in link: from the server already running on the data directory (then exit), or start one.',
  },
} as const satisfies FlagTable;

/** The values of the flags, as either parser hands them to `runServe`. */
export type ServeFlagValues = FlagValues<typeof SERVE_FLAGS>;
