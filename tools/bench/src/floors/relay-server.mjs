// Floor of the query stream (issue 10, P1–P3): the least a server can do to relay a model's stream to a client.
// Fastify 5 + undici `request` to the model (stream: true) + eventsource-parser, re-emitting each content delta
// as one SSE event, nothing else (no auth, no storage, no agent loop). The perf report measures it side by side
// with the model directly and with our server, so that what our stack adds can be judged against this.
//
//   node tools/bench/src/floors/relay-server.mjs <port> <model base URL with /v1>
//   POST /v1/query {"text"} → text/event-stream: `data: {"delta":"…"}` per token, then `data: [DONE]`.
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import Fastify from 'fastify';
import { request } from 'undici';

const [portArg, modelUrl] = process.argv.slice(2);
const app = Fastify({ logger: false });

app.post('/v1/query', async (req, reply) => {
  const upstream = await request(`${modelUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer relay' },
    body: JSON.stringify({
      model: 'fixture',
      messages: [{ role: 'user', content: req.body.text }],
      stream: true,
    }),
  });
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data === '[DONE]') return;
      const content = JSON.parse(data).choices[0]?.delta?.content;
      if (content) reply.raw.write(`data: ${JSON.stringify({ delta: content })}\n\n`);
    },
  });
  // undici 7's body ignores setEncoding: decode here, keeping characters split across reads whole.
  const utf8 = new StringDecoder('utf8');
  upstream.body.on('data', (chunk) => parser.feed(utf8.write(chunk)));
  await new Promise((resolve, reject) => upstream.body.once('end', resolve).once('error', reject));
  reply.raw.end('data: [DONE]\n\n');
});

const stop = () => app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await app.listen({ host: '127.0.0.1', port: Number(portArg) });
process.stdout.write(`relay listening on http://127.0.0.1:${app.server.address().port}\n`);
