import type { Redis } from 'ioredis';
import { markFailed, type Tracing } from '@assistant/server-kit';

/**
 * A span around each command this connection sends inside a traced request or run (the reader's blocking XREAD
 * loop and other background traffic are not traced). The span names the command only (`redis EVALSHA`): never
 * its keys or arguments, which hold ids and user data.
 */
export function traceRedisCommands(connection: Redis, tracing: Tracing): void {
  const { api, tracer } = tracing;
  const send = connection.sendCommand.bind(connection);
  connection.sendCommand = ((command, stream) => {
    if (!api.trace.getSpan(api.context.active())) return send(command, stream);
    const name = command.name.toUpperCase();
    const span = tracer.startSpan(`redis ${name}`, {
      kind: api.SpanKind.CLIENT,
      attributes: { 'db.system.name': 'redis', 'db.system': 'redis', 'db.operation.name': name },
    });
    const sent = send(command, stream);
    command.promise.then(
      () => span.end(),
      (error: unknown) => {
        markFailed(span, api, error);
        span.end();
      },
    );
    return sent;
  }) as Redis['sendCommand'];
}
