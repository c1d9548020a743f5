/**
 * The exit statuses of `assistant chat`, declared once: its help lists them from here. 0 only when the query
 * completed and every action it took was done; a script can tell a refused action from a failed one.
 */
export const EXIT_CODES = {
  ok: { code: 0, means: 'the query completed, and every action it took (send, write, switch…) was done' },
  failed: {
    code: 1,
    means:
      'no answer: the server could not be reached, refused the token, or the query failed or did not complete',
  },
  usage: { code: 2, means: 'a mistake on the command line (nothing was asked)' },
  refused: {
    code: 3,
    means: 'answered, but an action was refused (you said no, or there was no terminal to ask: see --yes)',
  },
  toolFailed: { code: 4, means: 'answered, but an action failed (its error is on stderr)' },
  interrupted: { code: 130, means: 'interrupted with Ctrl+C (the query is cancelled)' },
} as const;

/** The statuses as the help lists them, one a line. */
export function describeExitCodes(): string {
  return Object.values(EXIT_CODES)
    .map(({ code, means }) => `  ${String(code).padStart(3)}  ${means}`)
    .join('\n');
}
