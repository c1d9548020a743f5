import { z } from 'zod';

/** `GET /healthz`: the process serves (liveness); it checks nothing else, so that a database outage restarts nothing. */
export const healthSchema = z
  .object({
    status: z.literal('ok'),
    database: z.enum(['sqlite', 'postgres']).describe('The database this server runs on'),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;

/** `GET /readyz`: every readiness check passed (database, schema, Redis where there is one). */
export const readinessSchema = z
  .object({
    status: z.literal('ready'),
    checks: z.array(z.string()).describe('The checks that passed, by name (`database`, `migrations`, …)'),
  })
  .meta({ id: 'Readiness' });
export type Readiness = z.infer<typeof readinessSchema>;
