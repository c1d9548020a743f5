/** What pg binds each value of a statement as (its own `Query` does the same); not in @types/pg. */
declare module 'pg/lib/utils' {
  export function prepareValue(value: unknown): string | Buffer | null;
}
