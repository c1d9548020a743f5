// Throwaway PostgreSQL schemas for the benches, through the `pg` driver our server itself uses.
//
// Why one module: every bench that runs on PostgreSQL isolates its run in a schema of its own inside a shared
// database (as the storage tests do) and must drop it at the end, whatever happens in between.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { DEFAULT_SERVER } from './server.mjs';

/** The `pg` module as our server resolves it (the bench declares no database driver of its own). */
export const pg = createRequire(DEFAULT_SERVER)('pg');

/** Schemas made by throwawaySchemaUrl and not dropped yet: { url, schema }. */
const throwaway = new Set();

/**
 * `url` with `?schema=bench_<random>` (what our servers read), and that schema's name; the schema is dropped by
 * dropThrowawaySchemas (which every bench's clean-up calls).
 */
export function throwawaySchemaUrl(url, prefix = 'bench') {
  const withSchema = new URL(url);
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  withSchema.searchParams.set('schema', schema);
  throwaway.add({ url, schema });
  return { url: withSchema.toString(), schema };
}

/** Drops every schema made by throwawaySchemaUrl; failures are printed, not thrown (clean-up goes on). */
export async function dropThrowawaySchemas() {
  for (const entry of [...throwaway]) {
    throwaway.delete(entry);
    await dropSchema(entry.url, entry.schema).catch((error) =>
      console.error(`warning: could not drop schema ${entry.schema}: ${error.message}`),
    );
  }
}

/** A connected client on the database of `url` (its ?schema= left out: callers name their schema). */
export async function connect(url) {
  const plain = new URL(url);
  plain.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: plain.toString() });
  await client.connect();
  return client;
}

/** Drops `schema` (and everything in it) from the database of `url`. */
export async function dropSchema(url, schema) {
  const client = await connect(url);
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
