/**
 * The contract's zod schemas, as schemas.ts loads them on first use: a module of this package, so that the lazy
 * `require` names it by a literal path. A bundle (the `assistant` command) then carries it, and Nx's module
 * boundaries see a static import of the contracts (a literal `require` of the package itself would read as this
 * package lazy-loading it, which forbids its static imports of @assistant/contracts/wire).
 */
export * from '@assistant/contracts';
