import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import type { ServerConfig } from '../config/server-config';
import { AppModule } from '../app.module';
import type { ServerParts } from '../server-parts';
import { rateLimiter } from '../rate-limit/rate-limit.hook';
import { replyWithProblem, SEND_JSON } from './reply-problem';
import { logRequests, loggerOptions, PinoNestLogger, requestLogController } from './logging';

const CLIENT_REQUEST_ID = /^[\w.-]{1,64}$/;

/** Takes the client's X-Request-Id when it is sane, else makes one; pino-http reads it from `req.id`. */
function requestId(raw: IncomingMessage): string {
  const offered = raw.headers['x-request-id'];
  const id =
    typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered)
      ? offered
      : `req_${randomBytes(10).toString('hex')}`;
  (raw as IncomingMessage & { id?: string }).id = id;
  return id;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** The API speaks JSON only: a body of any other type is refused before a parser (such as form bodies) sees it. */
function hasNonJsonBody(request: FastifyRequest): boolean {
  if (!BODY_METHODS.has(request.method)) return false;
  const hasBody =
    Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  return hasBody && !JSON_TYPE.test(request.headers['content-type'] ?? '');
}

/** Builds the Nest application on Fastify with everything both deployments share. Does not listen. */
export async function createHttpApp(
  config: ServerConfig,
  parts: ServerParts,
): Promise<NestFastifyApplication> {
  // The limiter runs in Fastify's hooks, before Nest; it reaches the token service once the app exists.
  const late: { tokens?: TokenService } = {};
  const userOf = async (secret: string) =>
    late.tokens ? ((await late.tokens.verify(secret))?.userId ?? null) : null;
  const limit = rateLimiter(parts.rateLimits, config.rateLimits, userOf);
  const adapter = new FastifyAdapter({
    bodyLimit: LIMITS.maxJsonBodyBytes,
    genReqId: requestId,
    trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel),
    logController: requestLogController(),
    return503OnClosing: true,
    // Requests Fastify cannot route at all (a malformed URL) still get a problem and the rate-limit headers.
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      limit(request, reply).then(
        (answered) => {
          if (!answered)
            replyWithProblem(request, reply, { code: 'not_found', detail: 'the URL is malformed' });
        },
        () =>
          replyWithProblem(request, reply, { code: 'internal', detail: 'the request could not be counted' }),
      );
    },
  });
  const fastify = adapter.getInstance();
  logRequests(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (await limit(request, reply)) return reply;
    if (hasNonJsonBody(request)) {
      return replyWithProblem(request, reply, {
        code: 'unsupported_media_type',
        detail: SEND_JSON,
      });
    }
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, parts), adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(new PinoNestLogger(fastify.log));
  late.tokens = app.get(TokenService);
  app.setGlobalPrefix('api/v1', { exclude: ['healthz'] });
  return app;
}
