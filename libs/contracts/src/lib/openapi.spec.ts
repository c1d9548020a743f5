import { buildOpenApiDocument } from './openapi';
import { ENDPOINTS, findEndpoint, ROUTES } from './endpoints';
import { servedPath } from './paths';

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, found));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

interface Operation {
  operationId: string;
  'x-scope': string | null;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

const pathKey = (e: (typeof ENDPOINTS)[number]) => (e.mount === 'root' ? servedPath(e) : e.path);

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };

  it('is OpenAPI 3.1 and has one operation per catalogue entry, with its scope', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const endpoint of ENDPOINTS) {
      const operation = document.paths[pathKey(endpoint)]?.[endpoint.method.toLowerCase()];
      expect(operation?.operationId).toBe(endpoint.operationId);
      expect(operation?.['x-scope']).toBe(endpoint.scope);
    }
  });

  it('lists MCP with each method it is served with, bearer auth of any scope, and where it is specified', () => {
    const item = document.paths['/mcp'] as Record<
      string,
      Operation & { security: unknown; externalDocs: unknown }
    >;

    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'post']);
    for (const operation of Object.values(item)) {
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation.externalDocs).toEqual({ url: 'https://modelcontextprotocol.io/specification' });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
    }
  });

  it('resolves every $ref to a component schema', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[ref.split('/').pop() as string]).toBeDefined();
    }
  });

  it('names the content type each endpoint answers with: event streams are text/event-stream', () => {
    for (const endpoint of ENDPOINTS) {
      const operation = document.paths[pathKey(endpoint)][endpoint.method.toLowerCase()];
      const content = operation.responses[String(endpoint.response.status)].content;
      if (!endpoint.response.schema) continue;
      expect(Object.keys(content ?? {})).toEqual([endpoint.response.contentType ?? 'application/json']);
    }
    const streams = ENDPOINTS.filter((e) => e.response.contentType === 'text/event-stream');
    expect(streams.map((e) => e.operationId).sort()).toEqual(['createQuery', 'queryEvents']);
  });

  it('serves routes outside /api/v1 from the root server', () => {
    expect(document.paths['/healthz']).toMatchObject({
      servers: [{ url: '/' }],
      get: { operationId: 'getHealth' },
    });
    expect(document.paths['/memories/{id}']).not.toHaveProperty('servers');
  });

  it('has unique operation ids', () => {
    const ids = ENDPOINTS.map((e) => e.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('findEndpoint', () => {
  it('finds the endpoint of a concrete request, with or without a query string', () => {
    expect(findEndpoint('get', '/api/v1/memories/mem_1?x=1')).toBe(
      ENDPOINTS.find((e) => e.operationId === 'getMemory'),
    );
    expect(findEndpoint('POST', '/api/v1/queries/qry_1/cancel')?.operationId).toBe('cancelQuery');
    expect(findEndpoint('GET', '/healthz')?.operationId).toBe('getHealth');
    expect(findEndpoint('GET', '/api/v1/healthz')).toBeUndefined();
    expect(findEndpoint('PUT', '/api/v1/memories/mem_1')).toBeUndefined();
    expect(findEndpoint('GET', '/api/v1/memories/mem_1/extra')).toBeUndefined();
    expect(findEndpoint('GET', '/api/v1/openapiXjson')).toBeUndefined();
  });

  it('knows every route by its operationId', () => {
    expect(Object.keys(ROUTES)).toEqual(ENDPOINTS.map((e) => e.operationId));
  });
});
