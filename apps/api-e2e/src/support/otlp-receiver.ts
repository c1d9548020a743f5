import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The OTLP protobuf messages as OpenTelemetry generated them from the official opentelemetry-proto definitions
// (shipped by @opentelemetry/otlp-transformer up to 0.57; installed here under an alias for the tests only).
const { opentelemetry } = require('otlp-protobuf-root/build/src/generated/root') as ProtoRoot;

interface ProtoRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: object): unknown;
            };
            ExportTraceServiceResponse: { encode(message: object): { finish(): Uint8Array } };
          };
        };
      };
    };
  };
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};

/** A span as received, its ids in hex and its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  serviceName: string;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP receiver of traces (protobuf), as a collector would be: it keeps what it receives. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request it got, whatever its path. */
  requests = 0;
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      this.answer(request, response),
    );
  }

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new OtlpReceiver(server, `http://127.0.0.1:${port}`);
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.requests++;
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (request.headers['content-type'] !== 'application/x-protobuf') {
        response.writeHead(415).end();
        return;
      }
      this.receive(Buffer.concat(chunks));
      const { ExportTraceServiceResponse } = opentelemetry.proto.collector.trace.v1;
      response
        .writeHead(200, { 'content-type': 'application/x-protobuf' })
        .end(Buffer.from(ExportTraceServiceResponse.encode({}).finish()));
    });
  }

  private receive(body: Buffer): void {
    const { ExportTraceServiceRequest } = opentelemetry.proto.collector.trace.v1;
    const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
      longs: String,
      arrays: true,
    }) as {
      resourceSpans: Array<{
        resource?: { attributes: Array<{ key: string; value: AnyValue }> };
        scopeSpans: Array<{
          spans: Array<{
            traceId: Uint8Array;
            spanId: Uint8Array;
            parentSpanId?: Uint8Array;
            name: string;
            kind: number;
            attributes: Array<{ key: string; value: AnyValue }>;
          }>;
        }>;
      }>;
    };
    for (const resourceSpans of request.resourceSpans) {
      const resource = attributesOf(resourceSpans.resource?.attributes ?? []);
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          this.spans.push({
            traceId: Buffer.from(span.traceId).toString('hex'),
            spanId: Buffer.from(span.spanId).toString('hex'),
            parentSpanId: span.parentSpanId ? Buffer.from(span.parentSpanId).toString('hex') : '',
            name: span.name,
            kind: span.kind,
            serviceName: String(resource['service.name']),
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }

  /** Waits until a span matching `test` has arrived. */
  async waitFor(test: (span: ReceivedSpan) => boolean, timeoutMs = 10_000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(test);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no such span; got ${this.spans.map((s) => s.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function attributesOf(list: Array<{ key: string; value: AnyValue }>): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}
