/** Type prefixes of opaque ids (SPEC §1). */
export const ID_PREFIXES = {
  discussion: 'dsc',
  message: 'msg',
  memory: 'mem',
  query: 'qry',
  connection: 'con',
  token: 'tok',
  device: 'dev',
  /** A phone pairing code's record (never the code itself). */
  pairing: 'pair',
  user: 'usr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
