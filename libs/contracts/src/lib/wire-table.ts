import { ROUTES, type EndpointSpec } from './endpoints';
import { queryEventSchema } from './events';
import { servedPath } from './paths';

/**
 * Writes wire.generated.ts: the facts of ROUTES and of the query events that a client needs at run time, as
 * plain constants. Loading zod and the schemas costs ~60 ms of CPU, most of what a short `assistant chat` could
 * spare; a client that does not validate replies reads these instead (`@assistant/contracts/wire`).
 */
export function renderWireModule(): string {
  const routes = Object.entries(ROUTES as Record<string, EndpointSpec>).map(([operationId, route]) =>
    [
      `  ${operationId}: {`,
      `    method: '${route.method}',`,
      `    path: '${servedPath(route)}',`,
      `    status: ${route.response.status},`,
      `    contentType: '${route.response.contentType ?? 'application/json'}',`,
      `    body: ${route.body !== undefined},`,
      '  },',
    ].join('\n'),
  );
  const eventTypes = queryEventSchema.options.map((option) => `  '${option.shape.type.value}',`);
  return [
    '// Generated from ROUTES (endpoints.ts) and queryEventSchema (events.ts) by `npm run contracts:wire`: do not',
    '// edit. wire-table.spec.ts fails when it differs from what they give.',
    '',
    '/**',
    ' * Every route as a client calls it, by operationId: its method, the path it is served at, the status and',
    ' * content type of a success, and whether it takes a body.',
    ' */',
    'export const ROUTE_WIRE = {',
    ...routes,
    '} as const;',
    '',
    '/** The type of every query event this version knows, in the order of queryEventSchema. */',
    'export const QUERY_EVENT_TYPES = [',
    ...eventTypes,
    '] as const;',
    '',
  ].join('\n');
}
