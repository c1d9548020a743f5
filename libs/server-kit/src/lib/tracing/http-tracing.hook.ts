import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Context, Span } from '@opentelemetry/api';
import type { Tracing } from './tracing';

/** The request's span and the context it is active in, kept on the request (only when tracing is on). */
interface TracedRequest {
  [REQUEST_SPAN]?: { span: Span; context: Context; ended: boolean };
}
const REQUEST_SPAN = Symbol('requestSpan');

/** `/api/v1/memories/:id` as OpenTelemetry writes route templates: `/api/v1/memories/{id}`. */
export function routeTemplate(fastifyRoute: string): string {
  return fastifyRoute.replace(/:(\w+)/g, '{$1}');
}

/**
 * One server span per request, named by its method and route template (never the URL: ids and query strings stay
 * out), active while the request's hooks and handler run, so that what they do (rate-limit counts, database and
 * Redis work, a query run it starts) is its child. Incoming `traceparent` headers are not followed: a client of
 * the public API does not choose our trace ids. Only registered when tracing is on.
 */
export function traceHttpRequests(fastify: FastifyInstance, tracing: Tracing): void {
  const { api, tracer } = tracing;
  fastify.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const template = route === undefined ? undefined : routeTemplate(route);
    const span = tracer.startSpan(
      template ? `${request.method} ${template}` : request.method,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.scheme': request.protocol,
          ...(template ? { 'http.route': template } : {}),
        },
      },
      api.ROOT_CONTEXT,
    );
    const context = api.trace.setSpan(api.ROOT_CONTEXT, span);
    (request as TracedRequest)[REQUEST_SPAN] = { span, context, ended: false };
    api.context.with(context, done);
  });
  // Reading the body leaves the context behind (it arrives on the socket's events): the handler gets it back.
  fastify.addHook('preHandler', (request, reply, done) => {
    const traced = (request as TracedRequest)[REQUEST_SPAN];
    if (traced) api.context.with(traced.context, done);
    else done();
  });
  const end = (request: FastifyRequest, status: number | undefined) => {
    const traced = (request as TracedRequest)[REQUEST_SPAN];
    if (!traced || traced.ended) return;
    traced.ended = true;
    if (status !== undefined) traced.span.setAttribute('http.response.status_code', status);
    if (status === undefined || status >= 500) traced.span.setStatus({ code: api.SpanStatusCode.ERROR });
    traced.span.end();
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}

/** The request's trace and span ids, for its log line; undefined when it is not traced. */
export function traceIdsOf(request: FastifyRequest): { trace_id: string; span_id: string } | undefined {
  const traced = (request as TracedRequest)[REQUEST_SPAN];
  if (!traced) return undefined;
  const { traceId, spanId } = traced.span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
