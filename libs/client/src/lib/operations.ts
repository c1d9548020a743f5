import type { z } from 'zod';
import type { OperationId, ROUTES } from '@assistant/contracts';
import { pathParams, ROUTE_WIRE } from '@assistant/contracts/wire';

type Routes = typeof ROUTES;

/** The operations that answer JSON (or nothing); the two event streams have their own methods. */
export type JsonOperationId = {
  [K in OperationId]: Routes[K]['response'] extends { contentType: 'text/event-stream' } ? never : K;
}[OperationId];

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;

/** What an operation takes: its path parameters by name, `query` and `body` as declared in the contract. */
export type OperationInput<K extends OperationId> = {
  [N in ParamNames<Routes[K]['path']>]: string;
} & (Routes[K] extends {
  query: z.ZodType;
}
  ? { query?: z.input<Routes[K]['query']> }
  : unknown) &
  (Routes[K] extends { body: z.ZodType } ? { body: z.input<Routes[K]['body']> } : unknown);

/** What an operation answers: its declared response schema's type, nothing for 204. */
export type OperationOutput<K extends OperationId> = Routes[K]['response'] extends { schema: z.ZodType }
  ? z.output<Routes[K]['response']['schema']>
  : Routes[K]['response'] extends { status: 204 }
    ? void
    : unknown;

/** Input is optional for an operation that needs none (no path parameter, no body). */
export type InputArgs<K extends OperationId> =
  Record<string, never> extends OperationInput<K> ? [input?: OperationInput<K>] : [input: OperationInput<K>];

/** The request path of an operation, its `{param}`s filled in (and escaped) from the input. */
export function operationPath(operationId: OperationId, input: Record<string, unknown> = {}): string {
  let path: string = ROUTE_WIRE[operationId].path;
  for (const name of pathParams(path)) {
    const value = input[name];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`${operationId} needs ${name}: a non-empty string`);
    }
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  return path;
}
