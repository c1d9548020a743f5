import { buildOpenApiDocument } from './openapi';
import { ENDPOINTS } from './endpoints';

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

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string; 'x-scope': string | null }>>;
    components: { schemas: Record<string, unknown> };
  };

  it('is OpenAPI 3.1 and has one operation per catalogue entry, with its scope', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const endpoint of ENDPOINTS) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      expect(operation?.operationId).toBe(endpoint.operationId);
      expect(operation?.['x-scope']).toBe(endpoint.scope);
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

  it('has unique operation ids', () => {
    const ids = ENDPOINTS.map((e) => e.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
