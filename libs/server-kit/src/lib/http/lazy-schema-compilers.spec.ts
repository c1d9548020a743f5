import Fastify from 'fastify';
import { createRequire } from 'node:module';
import { LAZY_SCHEMA_COMPILERS } from './lazy-schema-compilers';

// The compilers are loaded through Node's own require (jest's registry does not see it): its cache tells.
const nodeRequireCache = createRequire(__filename).cache;
const loaded = (packageName: string) =>
  Object.keys(nodeRequireCache).some((file) => file.includes(`/node_modules/${packageName}/`));

describe('LAZY_SCHEMA_COMPILERS', () => {
  it('loads neither compiler for routes without a schema', async () => {
    const app = Fastify({ schemaController: LAZY_SCHEMA_COMPILERS });
    app.post('/plain', async (request) => ({ got: request.body }));
    await app.ready();

    const reply = await app.inject({ method: 'POST', url: '/plain', payload: { a: 1 } });

    expect(reply.json()).toEqual({ got: { a: 1 } });
    expect(loaded('@fastify/ajv-compiler')).toBe(false);
    expect(loaded('@fastify/fast-json-stringify-compiler')).toBe(false);
    await app.close();
  });

  it("gives a route with a schema Fastify's own validation and serialization", async () => {
    const app = Fastify({ schemaController: LAZY_SCHEMA_COMPILERS });
    app.post(
      '/typed',
      {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      async (request) => ({ n: (request.body as { n: number }).n, secret: 'left out by the serializer' }),
    );

    const refused = await app.inject({ method: 'POST', url: '/typed', payload: { n: 'one' } });
    const served = await app.inject({ method: 'POST', url: '/typed', payload: { n: 1 } });

    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/body\/n must be integer/);
    expect(served.json()).toEqual({ n: 1 });
    expect(loaded('@fastify/ajv-compiler')).toBe(true);
    expect(loaded('@fastify/fast-json-stringify-compiler')).toBe(true);
    await app.close();
  });
});
