/** Type prefixes of opaque ids (SPEC §1). */
export const ID_PREFIXES = {
  discussion: 'dsc',
  message: 'msg',
  memory: 'mem',
  query: 'qry',
  connection: 'con',
  token: 'tok',
  device: 'dev',
  user: 'usr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
