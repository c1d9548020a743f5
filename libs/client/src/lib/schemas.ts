import type * as Contracts from './contract-schemas';

let contracts: typeof Contracts | undefined;

/**
 * The contract's zod schemas, loaded on first use. zod and the schemas take ~60 ms of CPU to load: a client
 * that does not validate replies (validateResponses: false, as `assistant chat` does) never pays it. Every
 * other fact of the contract comes from `@assistant/contracts/wire`.
 */
export function contractSchemas(): typeof Contracts {
  // require, not import(): validation is synchronous, and the package loads through CommonJS like the rest.
  contracts ??= require('./contract-schemas') as typeof Contracts;
  return contracts;
}
