import type { INestApplicationContext } from '@nestjs/common';
import { Readiness } from '../health/readiness';
import { QueriesService } from '@assistant/queries';

/**
 * The first part of a graceful stop, before the HTTP server closes: `/readyz` turns 503 so that load balancers send
 * new work elsewhere, new queries are refused with 503 (safe to send again: nothing was stored), and running
 * queries have `graceMs` to finish before they are ended `interrupted`, each terminal event stored first (so every
 * stream stays replayable from the database). Other requests are still served meanwhile: an instance that refused
 * connections while a load balancer still routes to it would fail them instead. Calling it again while it waits
 * (a second signal) with a shorter grace ends the wait sooner.
 */
export async function drain(app: INestApplicationContext, graceMs: number): Promise<void> {
  app.get(Readiness).markDraining();
  await app.get(QueriesService).drain(graceMs);
}
