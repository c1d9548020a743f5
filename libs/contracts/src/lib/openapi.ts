import { z } from 'zod';
import { ENDPOINTS, type Endpoint } from './endpoints';
import { ERROR_CODES } from './error-codes';
import { servedPath } from './paths';
import { PROTOCOL_ROUTES, type ProtocolRoute } from './protocols';
import { problemSchema } from './problem';
import { SCOPE_DESCRIPTIONS } from './scopes';
import { RATE_LIMIT_HEADERS } from './rate-limits';

type JsonObject = Record<string, unknown>;

const componentRef = (id: string) => `#/components/schemas/${id}`;

function schemaId(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('every request and response schema of an endpoint must carry .meta({ id })');
  return id;
}

function queryParameters(query: z.ZodObject): JsonObject[] {
  return Object.entries(query.shape).map(([name, schema]) => {
    const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonObject;
    delete json.$schema;
    return { name, in: 'query', required: false, schema: json };
  });
}

const rateLimitHeaders = Object.fromEntries(
  Object.values(RATE_LIMIT_HEADERS).map((name) => [
    name
      .replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())
      .replace('Ratelimit', 'RateLimit'),
    { schema: { type: name.endsWith('resource') ? 'string' : 'integer' } },
  ]),
);

function operation(endpoint: Endpoint): JsonObject {
  const responses: JsonObject = {};
  const { status, schema, contentType = 'application/json' } = endpoint.response;
  responses[String(status)] = {
    description:
      contentType === 'text/event-stream'
        ? `${endpoint.summary}. Server-sent events: each has \`id\`, \`event\` (its type) and \`data\`, one JSON object of this schema.`
        : endpoint.summary,
    headers: rateLimitHeaders,
    ...(schema ? { content: { [contentType]: { schema: { $ref: componentRef(schemaId(schema)) } } } } : {}),
  };
  for (const code of endpoint.errors) {
    const { status: errorStatus, title } = ERROR_CODES[code];
    const key = String(errorStatus);
    const existing = responses[key] as { description: string } | undefined;
    responses[key] = {
      description: existing ? `${existing.description}; ${code}` : `${title} (${code})`,
      content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
    };
  }
  const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    security: endpoint.scope ? [{ bearer: [endpoint.scope] }] : [],
    'x-scope': endpoint.scope,
    parameters: [...pathParams, ...(endpoint.query ? queryParameters(endpoint.query) : [])],
    ...(endpoint.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: componentRef(schemaId(endpoint.body)) } } },
          },
        }
      : {}),
    responses,
  };
}

/** A protocol's path item: each method, with bearer auth (any scope) and the problems it may answer. */
function protocolOperations(name: string, route: ProtocolRoute): JsonObject {
  const problem = (title: string) => ({
    description: title,
    content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
  });
  return Object.fromEntries(
    route.methods.map((method) => [
      method.toLowerCase(),
      {
        operationId: `${name}${method[0]}${method.slice(1).toLowerCase()}`,
        summary: route.summary,
        tags: [route.tag],
        security: [{ bearer: [] }],
        externalDocs: { url: route.specification },
        responses: {
          '200': {
            description: 'A protocol message (application/json), or a stream of them (text/event-stream)',
          },
          '401': problem(`${ERROR_CODES.invalid_token.title} (invalid_token)`),
          '403': problem(`${ERROR_CODES.origin_not_allowed.title} (origin_not_allowed)`),
          '429': problem(`${ERROR_CODES.rate_limited.title} (rate_limited)`),
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document of /api/v1, generated from the zod schemas of this package. */
export function buildOpenApiDocument(options: { serverUrl?: string; version?: string } = {}): JsonObject {
  // Make sure the Problem schema is registered even if no endpoint body names it directly.
  schemaId(problemSchema);
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: componentRef, unrepresentable: 'any' }) as {
    schemas: Record<string, JsonObject>;
  };
  for (const schema of Object.values(schemas)) delete schema.$schema;

  const paths: Record<string, JsonObject> = {};
  for (const endpoint of ENDPOINTS) {
    // Paths are relative to the /api/v1 server; a route outside it names its own server.
    const key = endpoint.mount === 'root' ? servedPath(endpoint) : endpoint.path;
    paths[key] ??= endpoint.mount === 'root' ? { servers: [{ url: '/' }] } : {};
    paths[key][endpoint.method.toLowerCase()] = operation(endpoint);
  }
  for (const [name, route] of Object.entries(PROTOCOL_ROUTES))
    paths[route.path] = protocolOperations(name, route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Assistant API',
      version: options.version ?? '1',
      description:
        'The public API of Assistant. Every request carries `Authorization: Bearer <token>`; errors are RFC 9457 problem+json with a stable `code`.',
    },
    servers: [{ url: options.serverUrl ?? '/api/v1' }],
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `Scopes: ${Object.entries(SCOPE_DESCRIPTIONS)
            .map(([scope, text]) => `\`${scope}\` (${text})`)
            .join(', ')}`,
        },
      },
    },
    paths,
  };
}
