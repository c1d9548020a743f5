import { z } from 'zod';

/** `GET /healthz`: the process answers and its database does. */
export const healthSchema = z
  .object({
    status: z.literal('ok'),
    database: z.enum(['sqlite', 'postgres']).describe('The database this server runs on'),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;
