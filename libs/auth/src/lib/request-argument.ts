import { Req } from '@nestjs/common';
import type { Endpoint } from '@assistant/contracts';

/** How one handler argument is read off the request, for the route's declared endpoint. */
type Derive = (request: never, endpoint: Endpoint) => unknown;

const DERIVED_ARGUMENTS = 'assistant:derived-arguments';

/**
 * A handler argument read off the request by a plain function (`request => request.user`; the route's endpoint is
 * its second argument). Nest is told it is its own `@Req()`, which it hands over without its parameter pipeline
 * (an execution context, the pipes' consumer and two promises an argument, as a `createParamDecorator` costs), and
 * `DeriveRequestArguments`, which `@Route` applies to every route, turns the request into the argument (a served
 * route without `@Route` stops start-up: RouteContractCheck). `derive` may throw an ApiError: it runs inside the
 * handler's promise, as Nest's pipes do, and reaches the problem filter the same way.
 */
export function RequestArgument(derive: Derive): ParameterDecorator {
  return (target, key, index) => {
    if (key === undefined) throw new Error('a request argument belongs to a method, not a constructor');
    Req()(target, key, index);
    const derived: Map<number, Derive> =
      Reflect.getMetadata(DERIVED_ARGUMENTS, target.constructor, key) ?? new Map();
    Reflect.defineMetadata(DERIVED_ARGUMENTS, new Map(derived).set(index, derive), target.constructor, key);
  };
}

/**
 * Gives the method of `endpoint` its request arguments (RequestArgument): it is replaced by a function that derives
 * them from the request Nest passed in their place, then calls it. Must be applied before any decorator that keeps
 * metadata on the method's function (Nest's route, status and guard metadata), so that they keep it on the
 * replacement; the metadata already on the original is copied over. A method without request arguments is left
 * as it is.
 */
export function DeriveRequestArguments(endpoint: Endpoint): MethodDecorator {
  return (target, key, descriptor) => {
    const derived: Map<number, Derive> | undefined = Reflect.getMetadata(
      DERIVED_ARGUMENTS,
      target.constructor,
      key,
    );
    if (!derived) return;
    const original = descriptor.value as unknown as (...args: unknown[]) => unknown;
    const derivations = [...derived];
    const withArguments = function (this: unknown, ...args: unknown[]) {
      for (const [index, derive] of derivations) args[index] = derive(args[index] as never, endpoint);
      return original.apply(this, args);
    };
    Object.defineProperty(withArguments, 'name', { value: original.name });
    for (const metadataKey of Reflect.getOwnMetadataKeys(original)) {
      Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, original), withArguments);
    }
    (descriptor as TypedPropertyDescriptor<unknown>).value = withArguments;
  };
}
