/**
 * A command's flags, declared once without oclif. The oclif command derives its flags from the table
 * (oclif-flags.ts), for --help and the rarer forms; bin/run.js's fast paths parse the plain forms with node:util
 * (plain-command-line.ts), so that the common command lines do not wait ~100 ms for oclif to load.
 */
export interface FlagSpec {
  /** `directory` is a string naming a folder (oclif completes it as one). */
  type: 'boolean' | 'string' | 'directory';
  char?: string;
  summary: string;
  description?: string;
  helpValue?: string;
}

export type FlagTable = Record<string, FlagSpec>;

/** The values of a table's flags, as either parser hands them to the command. */
export type FlagValues<Table extends FlagTable> = {
  [Name in keyof Table]?: Table[Name]['type'] extends 'boolean' ? boolean : string;
};
