/** Numeric limits of the contract (SPEC §1, §7). */
export const LIMITS = {
  /** Largest JSON request body, in bytes (413 above). */
  maxJsonBodyBytes: 64 * 1024,
  /** Longest query text, in characters (422 above). */
  maxQueryTextChars: 16_000,
  maxToolStepsPerRun: 8,
  maxRunSeconds: 300,
  maxToolCallSeconds: 30,
  listDefaultLimit: 20,
  listMaxLimit: 100,
  maxMemoryChars: 8_000,
  maxTitleChars: 200,
  maxTagsPerMemory: 20,
  maxTagChars: 50,
  maxTokenNameChars: 100,
  maxSearchChars: 500,
} as const;
