import { Flags, type Interfaces } from '@oclif/core';
import type { FlagSpec } from './flag-table';

/** A flag of a table (flag-table.ts) as oclif takes it. */
function described(spec: FlagSpec) {
  return {
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.helpValue ? { helpValue: spec.helpValue } : {}),
    ...(spec.char ? { char: spec.char as Interfaces.AlphabetLowercase } : {}),
  };
}

// Each takes only a flag declared of its kind, so that the table and the oclif flags cannot disagree.
type Of<Kind extends FlagSpec['type']> = FlagSpec & { type: Kind };
export const booleanFlag = (spec: Of<'boolean'>) => Flags.boolean(described(spec));
export const stringFlag = (spec: Of<'string'>) => Flags.string({ ...described(spec), multiple: false });
export const directoryFlag = (spec: Of<'directory'>) =>
  Flags.directory({ ...described(spec), multiple: false });
