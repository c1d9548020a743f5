/** Names under which this machine reaches a server listening on loopback. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export interface OriginPolicy {
  /** Where clients reach the server (ASSISTANT_PUBLIC_URL, or where it listens). */
  publicUrl: string;
  /**
   * The server listens on loopback only (ASSISTANT_HOST): whatever reaches it runs on this machine, and a page
   * of this machine on any port (an MCP inspector, a local web client) may use it — with a token, as anyone.
   */
  loopbackBound: boolean;
}

function hostnameAndPort(host: string): { name: string; port: string } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase());
  return { name: match?.[1] ?? host, port: match?.[2] ?? '' };
}

/** Whether the listening address (ASSISTANT_HOST) is a loopback one. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return LOOPBACK.has(name) || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * DNS rebinding: a web page that makes its own name resolve to 127.0.0.1 reaches a local server under that name.
 * The MCP endpoint answers only under the server's public name, or a loopback name with its port.
 */
export function hostAllowed(host: string | undefined, policy: OriginPolicy): boolean {
  if (!host) return false;
  const url = new URL(policy.publicUrl);
  if (host.toLowerCase() === url.host.toLowerCase()) return true;
  const { name, port } = hostnameAndPort(host);
  const publicPort = url.port || (url.protocol === 'https:' ? '443' : '80');
  return LOOPBACK.has(name) && LOOPBACK.has(url.hostname.toLowerCase()) && port === publicPort;
}

/**
 * A browser's request carries its page's Origin: the server's own pages may use the endpoint, and, on a server
 * that listens on loopback, the pages of this machine on any port (a loopback name cannot be rebound to another
 * machine). Every other origin is refused.
 */
export function originAllowed(origin: string | undefined, policy: OriginPolicy): boolean {
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const parsed = new URL(origin);
  if (policy.loopbackBound && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) {
    if (LOOPBACK.has(parsed.hostname.toLowerCase())) return true;
  }
  return hostAllowed(parsed.host, policy) && parsed.protocol === new URL(policy.publicUrl).protocol;
}
