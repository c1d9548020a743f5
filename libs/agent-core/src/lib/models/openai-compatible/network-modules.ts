import type * as EventSourceParser from 'eventsource-parser';
import type * as Undici from 'undici';

export interface NetworkModules {
  Pool: typeof Undici.Pool;
  createParser: typeof EventSourceParser.createParser;
}

let loading: Promise<NetworkModules> | undefined;

/**
 * undici and eventsource-parser, loaded together with the first request rather than with the module: undici alone
 * takes longer to load than the rest of start-up spends on models, and a server whose model is never asked should
 * not pay for it. By the time a first answer's headers arrive, the parser is there too.
 */
export function networkModules(): Promise<NetworkModules> {
  return (loading ??= Promise.all([import('undici'), import('eventsource-parser')]).then(
    ([undici, eventSourceParser]) => ({ Pool: undici.Pool, createParser: eventSourceParser.createParser }),
  ));
}
