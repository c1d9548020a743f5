import { OperatorError } from '@assistant/contracts';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type ServerConfig,
  listeningUrl,
  tracing,
  startTracing,
  stopTracing,
  tracedStorage,
  warnOnStderr,
} from '@assistant/server-kit';
import { createHttpApp } from './create-http-app';
import { closeParts, type ServerParts } from './server-parts';
import { drain } from './shutdown';

export interface RunningServer {
  /** Where the API answers, e.g. http://127.0.0.1:7747 */
  url: string;
  /** Stops at once: running queries end `interrupted`, then everything given is released. */
  close(): Promise<void>;
  /**
   * Stops gracefully (SIGTERM): new queries get 503, running ones have the configured grace
   * (ASSISTANT_SHUTDOWN_GRACE_SECONDS) to finish, then it closes as close() does. close() meanwhile cuts the grace.
   */
  shutdown(): Promise<void>;
  /** The grace shutdown() gives running queries, in milliseconds. */
  shutdownGraceMs: number;
}

/** Builds the app, listens, and returns a handle whose close() releases everything it was given. */
export async function listen(
  config: ServerConfig,
  parts: ServerParts,
  onClose: () => Promise<void> | void = () => undefined,
): Promise<RunningServer & { app: NestFastifyApplication }> {
  // Before the app is built: its hooks and logger are set up traced or not, once (see tracing/).
  const tracingWarning = startTracing(`assistant-${config.deployment}`);
  if (tracingWarning) warnOnStderr(tracingWarning);
  const traced = tracing();
  if (traced) parts = { ...parts, storage: tracedStorage(parts.storage, traced) };
  const app = await createHttpApp(config, parts);
  try {
    // Fastify listens itself after Nest's init: Nest's own listen() logs a failure as an error line of its own,
    // before the one clear line we print for it below.
    await app.init();
    await app.getHttpAdapter().getInstance().listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new OperatorError(
        `port ${config.port} on ${config.host} is already in use; is another server running? Choose another with --port`,
      );
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new OperatorError(`cannot listen on ${config.host}: no such address on this machine`);
    }
    throw error;
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let closing: Promise<void> | undefined;
  const stop = async (graceMs: number) => {
    // Once closing, the runs have ended already; before, a second call with a shorter grace cuts the first's wait.
    if (!closing) await drain(app, graceMs);
    closing ??= (async () => {
      await app.close();
      await closeParts(parts);
      await onClose();
      // Last: the spans of the shutdown itself go out too.
      await stopTracing();
    })();
    return closing;
  };
  return {
    app,
    url: listeningUrl(config.host, port),
    close: () => stop(0),
    shutdown: () => stop(config.shutdownGraceMs),
    shutdownGraceMs: config.shutdownGraceMs,
  };
}
