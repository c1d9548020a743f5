/**
 * What `/readyz` asks before it says a process may take traffic: each part of a deployment that the API cannot
 * serve without (the database, its schema, Redis on the hosted service) gives a named check, which rejects when
 * its part is not ready.
 */
export interface ReadinessCheck {
  /** Short and stable, shown to whoever polls: `database`, `migrations`, `redis`. */
  readonly name: string;
  check(): Promise<void>;
}

/** A check's failure whose message may be shown to anyone who polls (no addresses, no driver messages). */
export class NotReady extends Error {}
