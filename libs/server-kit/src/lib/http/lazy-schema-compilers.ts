import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** What each of Fastify's compiler packages exports: a factory of the function it calls per set of schemas. */
type CompilerFactory = (externalSchemas: unknown, options: unknown) => unknown;

/**
 * Requires a package the way Fastify does: its own dependencies, at the versions it was installed with. Fastify is
 * located on the first call, not when this module loads: the bundled `assistant` command carries Fastify inside its
 * bundle and neither compiler (no route of ours has a schema), so there is no `fastify` package to find at start.
 */
function requireAsFastify(packageName: string): unknown {
  return createRequire(require.resolve('fastify'))(packageName);
}

/** The compiler factory of `packageName`, loaded on its first call. */
function loadedOnFirstUse(packageName: string): CompilerFactory {
  let factory: CompilerFactory | undefined;
  return (externalSchemas, options) => {
    factory ??= (requireAsFastify(packageName) as () => CompilerFactory)();
    return factory(externalSchemas, options);
  };
}

/**
 * Fastify's own schema compilers (Ajv for validation, fast-json-stringify for replies), loaded when a route first
 * has a schema to compile instead of when Fastify is made. Our routes validate with zod (ZodValidationPipe) and
 * give Fastify no schema, so a server never loads them: about 240 modules (Ajv three times over), some 30 ms of
 * the start-up. Something that does give a schema gets exactly Fastify's defaults.
 */
export const LAZY_SCHEMA_COMPILERS = {
  compilersFactory: {
    buildValidator: loadedOnFirstUse('@fastify/ajv-compiler'),
    buildSerializer: loadedOnFirstUse('@fastify/fast-json-stringify-compiler'),
  },
} as FastifyServerOptions['schemaController'];
