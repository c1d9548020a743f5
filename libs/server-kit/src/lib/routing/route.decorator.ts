import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  type ExecutionContext,
} from '@nestjs/common';
import type { RouteInfo } from '@nestjs/common/interfaces';
import { ENDPOINTS, type Endpoint, type OperationId } from '@assistant/contracts';
import { Public, Scopes } from '@assistant/auth';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { ApiError } from '../http/api-error';
import { queryEncodingErrors } from './query-encoding';

export const ROUTE_METADATA = 'assistant:route';

const BY_ID = new Map(ENDPOINTS.map((endpoint) => [endpoint.operationId, endpoint]));

/** `/memories/{id}` → `memories/:id`, the form Nest's router takes. */
export function nestPath(path: string): string {
  return path.replace(/^\//, '').replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Serves the declared endpoint `operationId` (@assistant/contracts ROUTES): its method, path, success status and
 * scope (or public) all come from the declaration, so a controller cannot restate them differently.
 */
export function Route(operationId: OperationId): MethodDecorator {
  const endpoint = BY_ID.get(operationId) as Endpoint;
  return applyDecorators(
    SetMetadata(ROUTE_METADATA, endpoint),
    RequestMapping({ path: nestPath(endpoint.path), method: RequestMethod[endpoint.method] }),
    HttpCode(endpoint.response.status),
    endpoint.scope ? Scopes(endpoint.scope) : Public(),
  );
}

export function endpointOf(context: ExecutionContext): Endpoint {
  const endpoint = Reflect.getMetadata(ROUTE_METADATA, context.getHandler()) as Endpoint | undefined;
  if (!endpoint) throw new Error(`${context.getHandler().name} has no @Route`);
  return endpoint;
}

/** The request body, checked against the route's declared body schema (422 with field errors otherwise). */
export const RouteBody = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const endpoint = endpointOf(context);
  if (!endpoint.body) throw new Error(`${endpoint.operationId} declares no body`);
  return validBody(endpoint.body).transform(context.switchToHttp().getRequest<{ body?: unknown }>().body);
});

/**
 * The query string, validly percent-encoded UTF-8 and checked against the route's declared query schema (422
 * with field errors otherwise).
 */
export const RouteQuery = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const endpoint = endpointOf(context);
  if (!endpoint.query) throw new Error(`${endpoint.operationId} declares no query parameters`);
  const request = context.switchToHttp().getRequest<{ query?: unknown; url: string }>();
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
