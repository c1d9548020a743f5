import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ListEnvelope, Memory } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { readStream } from './support/sse';
import { BUILT, childEnv } from './support/processes';
import { startHosted, startSelfHost, type Target } from './support/targets';
import { OtlpReceiver } from './support/otlp-receiver';

const PROBE = join(__dirname, 'support', 'loaded-modules-probe.cjs');
const QUESTION = 'remember that the spare key is under the blue flowerpot';

/** The modules of OpenTelemetry the server process has loaded, asked through the probe. */
async function loadedOpenTelemetryModules(target: Target): Promise<string[]> {
  const before = target.server.output().length;
  target.server.child.kill('SIGUSR2');
  for (let waited = 0; waited < 5_000; waited += 50) {
    const line = /loaded-modules (\[.*\])\n/.exec(target.server.output().slice(before));
    if (line) return JSON.parse(line[1]) as string[];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the probe did not answer');
}

/** The request lines the server logged (pino JSON, one a line). */
function requestLines(target: Target): Array<Record<string, unknown>> {
  return target.server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['msg'] === 'request');
}

const probeEnv = { NODE_OPTIONS: `--require ${PROBE}`, LOADED_MODULES_PROBE: '@opentelemetry' };

describe('tracing (OpenTelemetry, OTLP/HTTP protobuf)', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterAll(() => receiver?.close());

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
    let target: Target;
    beforeAll(async () => {
      target = await startHosted({
        ...probeEnv,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ASSISTANT_LOG_LEVEL: 'info',
      });
    });
    afterAll(() => target?.stop());

    it('sends one trace per request: the route, the query run, the model call, the tool call, database and Redis work; no user content', async () => {
      const streamed = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: QUESTION },
      });
      expect(streamed.events.at(-1)?.event.type).toBe('query.completed');
      const created = streamed.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      const api = new ApiClient(target.url, target.ownerToken);
      const memories = await api.get<ListEnvelope<Memory>>('/memories?q=flowerpot');
      const memoryId = memories.body.data[0].id;
      await api.get(`/memories/${memoryId}`);

      const request = await receiver.waitFor(
        (s) =>
          s.attributes['http.route'] === '/api/v1/queries' &&
          s.attributes['http.response.status_code'] === 200,
      );
      await receiver.waitFor((s) => s.attributes['http.route'] === '/api/v1/memories/{id}');
      const trace = receiver.spans.filter((s) => s.traceId === request.traceId);
      const named = (name: string) => trace.filter((s) => s.name === name);

      expect(request).toMatchObject({
        name: 'POST /api/v1/queries',
        parentSpanId: '',
        serviceName: 'assistant-hosted',
        attributes: { 'http.request.method': 'POST', 'http.route': '/api/v1/queries' },
      });
      const [run] = named('query.run');
      expect(run).toMatchObject({
        parentSpanId: request.spanId,
        attributes: { 'assistant.query.id': created.query_id, 'gen_ai.request.model': created.model },
      });
      const modelCalls = named(`chat ${created.model}`);
      expect(modelCalls.length).toBeGreaterThanOrEqual(2);
      for (const call of modelCalls) {
        expect(call.parentSpanId).toBe(run.spanId);
        expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat' });
      }
      const [tool] = named('execute_tool memory_save');
      expect(tool).toMatchObject({
        parentSpanId: run.spanId,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'memory_save' },
      });
      // The memory is stored by the tool: a database span under the tool's.
      const toolDb = trace.filter((s) => s.name === 'db.query' && s.parentSpanId === tool.spanId);
      expect(toolDb.map((s) => s.attributes)).toContainEqual(
        expect.objectContaining({ 'db.system.name': 'postgresql', 'db.operation.name': 'memories.create' }),
      );
      // The rate limiter and the run slot go through Redis, in the request.
      expect(
        trace.some((s) => s.name.startsWith('redis ') && s.attributes['db.system.name'] === 'redis'),
      ).toBe(true);

      // Database and Redis work is only ever a child: background upkeep (the stream reader's polling) makes no trace.
      const clientSpans = receiver.spans.filter((s) => s.name === 'db.query' || s.name.startsWith('redis '));
      expect(clientSpans.filter((s) => s.parentSpanId === '')).toEqual([]);

      const byId = receiver.spans.find((s) => s.attributes['http.route'] === '/api/v1/memories/{id}')!;
      expect(byId.name).toBe('GET /api/v1/memories/{id}');

      // Nothing the user wrote, no id from a URL, no token, in any span (the query id is the run's own label).
      const everything = JSON.stringify(receiver.spans.map((s) => [s.name, s.attributes]));
      for (const secret of ['spare key', 'flowerpot', memoryId, created.discussion_id, target.ownerToken]) {
        expect(everything).not.toContain(secret);
      }
      expect(everything).not.toContain(target.ownerToken.slice(-16));

      // The request's log line names its trace.
      const line = requestLines(target).find((l) => l['url'] === '/api/v1/queries');
      expect(line).toMatchObject({ trace_id: request.traceId, span_id: request.spanId });
      expect(await loadedOpenTelemetryModules(target)).not.toEqual([]);
    });

    it('traces a tool an MCP client calls: its request and the tool, without the input', async () => {
      const client = new Client({ name: 'tracing-e2e', version: '0.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BUILT.mcp],
          env: childEnv({ ASSISTANT_API_TOKEN: target.ownerToken, ASSISTANT_BASE_URL: target.url }) as Record<
            string,
            string
          >,
          stderr: 'pipe',
        }),
      );
      try {
        await client.callTool({
          name: 'memory_save',
          arguments: { content: 'the hosted gate code is 8642' },
        });
      } finally {
        await client.close();
      }

      const tool = await receiver.waitFor(
        (s) =>
          s.name === 'execute_tool memory_save' &&
          receiver.spans.some((p) => p.spanId === s.parentSpanId && p.attributes['http.route'] !== undefined),
      );
      const request = receiver.spans.find((s) => s.spanId === tool.parentSpanId)!;
      expect(request.attributes).toMatchObject({ 'http.request.method': 'POST' });
      expect(request.attributes['http.route']).toBe('/api/v1/mcp');
      expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'memory_save' });
      expect(JSON.stringify(receiver.spans.map((s) => [s.name, s.attributes]))).not.toContain('8642');
    });
  });

  describe('on a self-hosted server (SQLite)', () => {
    let target: Target;
    beforeAll(async () => {
      target = await startSelfHost('sqlite', {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'assistant-at-home',
      });
    });
    afterAll(() => target?.stop());

    it('traces the same way, its database work as sqlite, under the name OTEL_SERVICE_NAME gives', async () => {
      const streamed = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: QUESTION },
      });
      expect(streamed.events.at(-1)?.event.type).toBe('query.completed');

      const run = await receiver.waitFor(
        (s) => s.serviceName === 'assistant-at-home' && s.name === 'query.run',
      );
      const trace = receiver.spans.filter((s) => s.traceId === run.traceId);
      expect(trace.find((s) => s.spanId === run.parentSpanId)).toMatchObject({
        name: 'POST /api/v1/queries',
      });
      expect(trace.map((s) => s.attributes)).toContainEqual(
        expect.objectContaining({ 'db.system.name': 'sqlite', 'db.operation.name': 'memories.create' }),
      );
      expect(JSON.stringify(trace.map((s) => [s.name, s.attributes]))).not.toContain('flowerpot');
    });
  });

  describe('without it', () => {
    let target: Target;
    beforeAll(async () => {
      target = await startHosted({ ...probeEnv, ASSISTANT_LOG_LEVEL: 'info' });
    });
    afterAll(() => target?.stop());

    it('loads no module of OpenTelemetry, sends nothing and logs no trace ids', async () => {
      const requestsBefore = receiver.requests;
      const streamed = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: QUESTION },
      });
      expect(streamed.events.at(-1)?.event.type).toBe('query.completed');

      expect(await loadedOpenTelemetryModules(target)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests).toBe(requestsBefore);
      const line = requestLines(target).find((l) => l['url'] === '/api/v1/queries');
      expect(line).toBeDefined();
      expect(line).not.toHaveProperty('trace_id');
    });
  });
});
