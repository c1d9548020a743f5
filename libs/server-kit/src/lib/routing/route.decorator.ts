import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  UsePipes,
  type ExecutionContext,
} from '@nestjs/common';
import type { RouteInfo } from '@nestjs/common/interfaces';
import { ENDPOINTS, type Endpoint, type OperationId } from '@assistant/contracts';
import { Public, Scopes } from '@assistant/auth';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { ApiError } from '../http/api-error';
import { queryEncodingErrors } from './query-encoding';
import { PathParamsPipe } from './path-params.pipe';

export const ROUTE_METADATA = 'assistant:route';

const BY_ID = new Map(ENDPOINTS.map((endpoint) => [endpoint.operationId, endpoint]));

/** The check of every path parameter (one for all routes: it holds nothing). */
const PATH_PARAMS = new PathParamsPipe();

/** `/memories/{id}` → `memories/:id`, the form Nest's router takes. */
export function nestPath(path: string): string {
  return path.replace(/^\//, '').replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Serves the declared endpoint `operationId` (@assistant/contracts ROUTES): its method, path, success status and
 * scope (or public) all come from the declaration, so a controller cannot restate them differently. A path with
 * parameters gets their check (PathParamsPipe); a route without any runs no pipe at all.
 */
export function Route(operationId: OperationId): MethodDecorator {
  const endpoint = BY_ID.get(operationId) as Endpoint;
  return applyDecorators(
    SetMetadata(ROUTE_METADATA, endpoint),
    RequestMapping({ path: nestPath(endpoint.path), method: RequestMethod[endpoint.method] }),
    HttpCode(endpoint.response.status),
    endpoint.scope ? Scopes(endpoint.scope) : Public(),
    ...(hasPathParams(endpoint) ? [UsePipes(PATH_PARAMS)] : []),
  );
}

const hasPathParams = (endpoint: Endpoint) => /\{\w+\}/.test(endpoint.path);

/** Each handler's endpoint, read from its metadata once: routes are fixed. */
const endpointByHandler = new WeakMap<object, Endpoint>();

export function endpointOf(context: ExecutionContext): Endpoint {
  const handler = context.getHandler();
  let endpoint = endpointByHandler.get(handler);
  if (!endpoint) {
    endpoint = Reflect.getMetadata(ROUTE_METADATA, handler) as Endpoint | undefined;
    if (!endpoint) throw new Error(`${handler.name} has no @Route`);
    endpointByHandler.set(handler, endpoint);
  }
  return endpoint;
}

/** The request body, checked against the route's declared body schema (422 with field errors otherwise). */
export const RouteBody = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const endpoint = endpointOf(context);
  if (!endpoint.body) throw new Error(`${endpoint.operationId} declares no body`);
  // The request of an HTTP context (switchToHttp() makes three closures a call).
  return validBody(endpoint.body).transform(context.getArgByIndex<{ body?: unknown }>(0).body);
});

/**
 * The query string, validly percent-encoded UTF-8 and checked against the route's declared query schema (422
 * with field errors otherwise).
 */
export const RouteQuery = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const endpoint = endpointOf(context);
  if (!endpoint.query) throw new Error(`${endpoint.operationId} declares no query parameters`);
  const request = context.getArgByIndex<{ query?: unknown; url: string }>(0);
  const encodingErrors = queryEncodingErrors(request.url);
  if (encodingErrors.length > 0) throw ApiError.validation(encodingErrors);
  return validQuery(endpoint.query).transform(request.query);
});

/** The routes served outside /api/v1 (health), for Nest's global prefix. */
export function routesOutsideApi(endpoints: readonly Endpoint[] = ENDPOINTS): RouteInfo[] {
  return endpoints
    .filter((endpoint) => endpoint.mount === 'root')
    .map((endpoint) => ({ path: nestPath(endpoint.path), method: RequestMethod[endpoint.method] }));
}
