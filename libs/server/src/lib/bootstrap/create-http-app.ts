import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { API_PREFIX, LIMITS } from '@assistant/contracts';
import { TokenService, verifiedCaller } from '@assistant/auth';
import {
  type ServerConfig,
  replyWithProblem,
  SEND_JSON,
  lazyChildLogger,
  logRequests,
  loggerOptions,
  PinoNestLogger,
  requestLogController,
  routesOutsideApi,
  tracing,
  traceHttpRequests,
  requestId,
  LAZY_SCHEMA_COMPILERS,
  listeningUrl,
  PublicAddress,
  prepareReply,
  exemptEventStreamsFromIdleTimeout,
  HTTP_TIMEOUTS,
  serverTimeoutOptions,
  type HttpTimeouts,
} from '@assistant/server-kit';
import { AppModule } from './app.module';
import type { ServerParts } from './server-parts';
import { rateLimiter, RateLimits, type VerifyBearer } from '../rate-limit/rate-limit.hook';
import { answerClientError, answerFrameworkError } from './client-errors';

const SHUTTING_DOWN = {
  code: 'service_unavailable',
  detail: 'the server is shutting down; send the request again',
  headers: { 'retry-after': '1' },
} as const;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * The API speaks JSON only: a body of any other type is refused before a parser (such as form bodies) sees it.
 * Outside /api/v1 (OAuth's form posts, the pages' forms) other types are the rule.
 */
function hasNonJsonBody(request: FastifyRequest): boolean {
  if (!BODY_METHODS.has(request.method) || !request.url.startsWith(`${API_PREFIX}/`)) return false;
  const hasBody =
    Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  return hasBody && !JSON_TYPE.test(request.headers['content-type'] ?? '');
}

/** After the rate limiter (`answered`: it sent a 429): refuses a body that is not JSON, or lets the request on. */
function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  answered: boolean,
  done: HookHandlerDoneFunction,
): void {
  if (answered) return;
  if (hasNonJsonBody(request)) {
    replyWithProblem(request, reply, { code: 'unsupported_media_type', detail: SEND_JSON });
    return;
  }
  done();
}

/**
 * Builds the Nest application on Fastify with everything both deployments share. Does not listen. `timeouts`
 * are the HTTP deadlines (HTTP_TIMEOUTS; tests shorten them).
 */
export async function createHttpApp(
  config: ServerConfig,
  parts: ServerParts,
  timeouts: HttpTimeouts = HTTP_TIMEOUTS,
): Promise<NestFastifyApplication> {
  // The limiter runs in Fastify's hooks, before Nest; the token service is Nest's, known once the app exists.
  const late: { tokens?: TokenService } = {};
  const verify: VerifyBearer = (request) => (late.tokens ? verifiedCaller(request, late.tokens) : null);
  const limits = new RateLimits(parts.rateLimits, config.rateLimits);
  const limit = rateLimiter(limits, verify);
  const adapter: FastifyAdapter = new FastifyAdapter({
    bodyLimit: LIMITS.maxJsonBodyBytes,
    genReqId: requestId,
    trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel, parts.logDestination),
    logController: requestLogController(),
    childLoggerFactory: lazyChildLogger,
    // Requests that arrive while the server drains get our own problem (below) instead of Fastify's plain 503.
    return503OnClosing: false,
    // No Express-style middleware (the OAuth provider is mounted in a hook of its own): without middie, no request
    // pays for its URL matching.
    skipMiddie: true,
    schemaController: LAZY_SCHEMA_COMPILERS,
    ...serverTimeoutOptions(timeouts),
    // Requests that Node's parser or Fastify's router refuse still get a problem and the rate-limit headers.
    clientErrorHandler: answerClientError(limits, () => fastify.log),
    frameworkErrors: answerFrameworkError(limit),
  });
  const fastify = adapter.getInstance();
  logRequests(fastify);
  // Before the other hooks: the rate limiter's Redis work is the request's too. Nothing at all when tracing is off.
  const traced = tracing();
  if (traced) traceHttpRequests(fastify, traced);
  // Fastify sets `Connection: close` on requests that arrive while it drains (on a connection that was already
  // busy); they are refused, so that a load balancer sends them to a server that stays.
  let draining = false;
  fastify.addHook('preClose', async () => {
    draining = true;
  });
  // A callback hook, not an async one: with a token verified lately and the counts in memory, a request goes
  // through without a promise.
  fastify.addHook('onRequest', (request, reply, done) => {
    prepareReply(request, reply);
    if (draining) {
      replyWithProblem(request, reply, SHUTTING_DOWN);
      return;
    }
    const answered = limit(request, reply);
    if (answered instanceof Promise) answered.then((settled) => admit(request, reply, settled, done), done);
    else admit(request, reply, answered, done);
  });
  exemptEventStreamsFromIdleTimeout(fastify);

  // Nest logs through pino from the start. (Buffering its logs instead kept them in memory for ever: the buffer
  // is flushed by Nest's own listen(), and the server listens through Fastify directly.)
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, parts), adapter, {
    logger: new PinoNestLogger(fastify.log),
    abortOnError: false,
  });
  late.tokens = app.get(TokenService);
  // Until ASSISTANT_PUBLIC_URL says otherwise, the server is reached where it listens (port 0: the one it got).
  const address = app.get(PublicAddress);
  fastify.addHook('onListen', async () => {
    const bound = fastify.server.address();
    if (bound && typeof bound === 'object') address.listeningAt(listeningUrl(config.host, bound.port));
  });
  app.setGlobalPrefix(API_PREFIX, { exclude: routesOutsideApi() });
  return app;
}
