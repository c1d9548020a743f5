/** Names under which this machine reaches a server listening on loopback. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function hostnameAndPort(host: string): { name: string; port: string } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase());
  return { name: match?.[1] ?? host, port: match?.[2] ?? '' };
}

/**
 * DNS rebinding: a web page that makes its own name resolve to 127.0.0.1 reaches a local server under that name.
 * The MCP endpoint answers only under the server's public name, or a loopback name with its port.
 */
export function hostAllowed(host: string | undefined, publicUrl: string): boolean {
  if (!host) return false;
  const url = new URL(publicUrl);
  if (host.toLowerCase() === url.host.toLowerCase()) return true;
  const { name, port } = hostnameAndPort(host);
  const publicPort = url.port || (url.protocol === 'https:' ? '443' : '80');
  return LOOPBACK.has(name) && LOOPBACK.has(url.hostname.toLowerCase()) && port === publicPort;
}

/** A browser's request carries its page's Origin: only the server's own pages may use the endpoint from one. */
export function originAllowed(origin: string | undefined, publicUrl: string): boolean {
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  return (
    hostAllowed(new URL(origin).host, publicUrl) && new URL(origin).protocol === new URL(publicUrl).protocol
  );
}
