import type { Storage } from '@assistant/storage';
import { endWhenSettled, markFailed, type Tracing } from './tracing';

/**
 * The storage with a `db.query` span around each repository call made inside a traced request or run (work
 * outside them is not traced: no root spans for background upkeep). The span names the database system and the
 * repository call (`memories.search`): never the SQL text or its parameters, which hold the user's data.
 */
export function tracedStorage(storage: Storage, tracing: Tracing): Storage {
  const system = storage.dialect === 'postgres' ? 'postgresql' : 'sqlite';
  const traced: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(storage)) {
    if (typeof value === 'function') traced[name] = traceCall(tracing, system, name, value as Call, storage);
    else if (typeof value === 'object' && value !== null)
      traced[name] = tracedRepository(tracing, system, name, value);
    else traced[name] = value;
  }
  return traced as unknown as Storage;
}

type Call = (...args: unknown[]) => unknown;

/** A repository whose methods are traced; each wrapper is made once, on first use. */
function tracedRepository(tracing: Tracing, system: string, name: string, repository: object): object {
  const wrappers = new Map<PropertyKey, Call>();
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        wrapper = traceCall(tracing, system, `${name}.${property}`, value as Call, target);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

function traceCall(tracing: Tracing, system: string, operation: string, call: Call, self: object): Call {
  const { api, tracer } = tracing;
  return (...args) => {
    if (!api.trace.getSpan(api.context.active())) return call.apply(self, args);
    const span = tracer.startSpan('db.query', {
      kind: api.SpanKind.CLIENT,
      attributes: { 'db.system.name': system, 'db.system': system, 'db.operation.name': operation },
    });
    let result: unknown;
    try {
      result = call.apply(self, args);
    } catch (error) {
      markFailed(span, api, error);
      span.end();
      throw error;
    }
    if (!isThenable(result)) {
      span.end();
      return result;
    }
    return endWhenSettled(span, api, result);
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
