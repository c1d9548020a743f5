// The baseline of tools/bench/src/http-bench.mjs: a bare Fastify 5 process (the same fastify version as our
// server) answering canned bodies captured from our server, on the same paths. It checks that an Authorization
// header is present on non-public routes and does nothing else: no routing by query, no database, no logging.
//
//   node tools/bench/src/bare-server.mjs <port> <routes.json>
//
// routes.json: { "routes": [{ "path": "/api/v1/me?x=y", "status": 200, "contentType": "...", "body": "...",
// "public": false }] } (the query string of a path is ignored, as a router would). Prints one line when ready.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [portArg, routesFile] = process.argv.slice(2);
const { routes } = JSON.parse(readFileSync(routesFile, 'utf8'));

const app = Fastify({ logger: false });

for (const route of routes) {
  const path = route.path.split('?')[0];
  app.get(path, (request, reply) => {
    if (!route.public && !request.headers.authorization) {
      reply.code(401).type('application/problem+json').send('{"title":"Unauthorized","status":401}');
      return;
    }
    reply.code(route.status).type(route.contentType).send(route.body);
  });
}

function stop() {
  app.close().then(() => process.exit(0));
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

await app.listen({ host: '127.0.0.1', port: Number(portArg) });
process.stdout.write(`bare fastify listening on http://127.0.0.1:${app.server.address().port}\n`);
