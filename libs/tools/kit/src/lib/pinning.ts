import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { connectionPolicy, type AddressPolicy } from './address-policy';
import { ConnectionTestError, type DriverEnvironment } from './family';

/** An address a connection may not reach (its message says which and why, in plain words). */
export class AddressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefusedError';
  }
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * A socket lookup (for `net.connect`, an http Agent, undici's connector) that resolves the name, refuses it if any
 * of its addresses is refused, and hands the socket the very addresses it checked: a DNS answer that changes
 * between the check and the connection cannot slip through, and every host of a redirect is checked the same way.
 */
export function policyLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (host, options, callback) => {
    resolve(host)
      .then(
        (addresses) => {
          if (addresses.length === 0) throw new AddressRefusedError(`${host} has no address`);
          for (const { address } of addresses) {
            const refusal = policy.refusal(host, address);
            if (refusal) throw new AddressRefusedError(refusal);
          }
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0].address, addresses[0].family);
        },
        (error: NodeJS.ErrnoException) => {
          callback(
            Object.assign(
              new AddressRefusedError(`${host} could not be resolved (${error.code ?? error.message})`),
              { code: error.code },
            ),
            '',
            0,
          );
        },
      )
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** Where a socket client (IMAP, SMTP, MQTT) connects, and the name its TLS checks the certificate against. */
export interface PinnedHost {
  host: string;
  /** The name for TLS (SNI and the certificate), when `host` is the address it resolved to. */
  servername?: string;
}

/**
 * The address a socket client connects to for a connection's host. On the hosted API: the name resolved once, every
 * address checked against `connectionPolicy`, and the first one pinned, so that the client cannot resolve the name
 * again to something else (DNS rebinding); TLS still checks the certificate against the name. On a self-hosted
 * server, whose connections may point anywhere in its household's network: the name itself.
 */
export async function pinHost(
  host: string,
  env: DriverEnvironment,
  resolve: Resolver = systemResolver,
): Promise<PinnedHost> {
  if (env.deployment !== 'hosted') return { host };
  const name = host.replace(/^\[|\]$/g, '');
  const policy = connectionPolicy(env);
  const addresses = isIP(name)
    ? [{ address: name, family: isIP(name) }]
    : await resolve(name).catch((error: NodeJS.ErrnoException) => {
        throw new ConnectionTestError(`${name} could not be resolved (${error.code ?? error.message})`);
      });
  if (addresses.length === 0) throw new ConnectionTestError(`${name} has no address`);
  for (const { address } of addresses) {
    const refusal = policy.refusal(name, address);
    if (refusal) throw new ConnectionTestError(refusal);
  }
  return isIP(name) ? { host: name } : { host: addresses[0].address, servername: name };
}

/**
 * Checks a connection's host when its driver opens (so that `POST /connections` refuses it in plain words), for
 * drivers whose every later connection is checked again by `connectionFetch` or `policyLookup`.
 */
export async function assertHostAllowed(host: string, env: DriverEnvironment): Promise<void> {
  await pinHost(host, env);
}

/**
 * The `fetch` a driver uses for its connection's HTTP server (CalDAV, Home Assistant). On the hosted API every
 * socket it opens, redirects included, is checked first: an address in the URL against `connectionPolicy`, a name
 * through `policyLookup`. On a self-hosted server it is the global `fetch`.
 */
export function connectionFetch(env: DriverEnvironment): typeof fetch {
  if (env.deployment !== 'hosted') return globalThis.fetch;
  // Loaded on first use (~75 ms), with require: a built workspace package's import() does not run inside jest's
  // CommonJS module system, where the families' tests load this kit.
  const { Agent, buildConnector, fetch: undiciFetch } = require('undici') as typeof import('undici');
  const policy = connectionPolicy(env);
  const connector = buildConnector({ lookup: policyLookup(policy) });
  const dispatcher = new Agent({
    connect: (options, callback) => {
      // The socket looks up names only: an address written in the URL is checked here.
      const host = options.hostname.replace(/^\[|\]$/g, '');
      const refusal = isIP(host) ? policy.refusal(host, host) : null;
      if (refusal) return callback(new AddressRefusedError(refusal), null);
      connector(options, callback);
    },
  });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

/**
 * http(s) agents for a client that takes them instead of a fetch (the WebDAV client), with the same checks as
 * `connectionFetch`: on the hosted API every socket, redirects included, goes to a checked address only; none
 * on a self-hosted server.
 */
export function connectionAgents(env: DriverEnvironment): { httpAgent?: HttpAgent; httpsAgent?: HttpsAgent } {
  if (env.deployment !== 'hosted') return {};
  const policy = connectionPolicy(env);
  const lookup = policyLookup(policy);
  const guard = <A extends HttpAgent>(agent: A): A => {
    const connect = agent.createConnection.bind(agent) as typeof agent.createConnection;
    agent.createConnection = (options, callback) => {
      // The socket looks up names only: an address written in the URL is checked here.
      const host = String(options.host ?? '').replace(/^\[|\]$/g, '');
      const refusal = isIP(host) ? policy.refusal(host, host) : null;
      // The agent reports an error given to the callback as the request's error.
      if (refusal) return void callback?.(new AddressRefusedError(refusal), undefined as never);
      return connect({ ...options, lookup }, callback);
    };
    return agent;
  };
  return { httpAgent: guard(new HttpAgent()), httpsAgent: guard(new HttpsAgent()) };
}
