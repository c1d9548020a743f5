import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { LIMITS } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import type { ServerConfig } from '../config/server-config';
import { AppModule } from '../app.module';
import type { RateLimitStore } from '../rate-limit/rate-limit.store';
import { installRateLimits } from '../rate-limit/rate-limit.hook';

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

/** Builds the Nest application on Fastify with everything both deployments share. Does not listen. */
export async function createHttpApp(
  config: ServerConfig,
  storage: Storage,
  rateLimitStore: RateLimitStore,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: LIMITS.maxJsonBodyBytes,
    genReqId: requestId,
    trustProxy: config.trustProxy,
    logger: false,
    return503OnClosing: true,
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installRateLimits(fastify, rateLimitStore, config.rateLimits);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(storage, config), adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.setGlobalPrefix('api/v1', { exclude: ['healthz'] });
  app.enableShutdownHooks();
  return app;
}
