import { BlockList, isIP } from 'node:net';
import type { DriverEnvironment } from './family';

/**
 * Which addresses a fetch may connect to. Everything that reaches this machine, its network or a cloud's
 * metadata service is refused (SSRF), unless the operator allow-lists it: loopback, private, link-local,
 * carrier-grade NAT, unique-local, multicast and unspecified ranges, in both families, IPv4-mapped forms included.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are 127.0.0.1: checked as the IPv4 address they carry. */
export function unmapped(address: string): string {
  const mapped = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!mapped) return address;
  const rest = mapped[1];
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return address;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export interface AddressPolicy {
  /** Why `address` (of `host`) may not be connected to, or null when it may. */
  refusal(host: string, address: string): string | null;
}

/**
 * Public addresses only, plus what `allow` lists — host names (`intranet.lan`) or networks in CIDR form
 * (`192.168.1.0/24`, `127.0.0.1/32`). A refusal ends with `remedy` when there is one: who may allow the address,
 * and where, which depends on the deployment (a hosted customer can allow nothing).
 */
export function addressPolicy(allow: readonly string[] = [], remedy?: string): AddressPolicy {
  const allowedHosts = new Set<string>();
  const allowedNets = new BlockList();
  for (const entry of allow) {
    const [network, prefix] = entry.split('/');
    const family = isIP(network);
    if (family === 0) allowedHosts.add(entry.toLowerCase());
    else
      allowedNets.addSubnet(
        network,
        Number(prefix ?? (family === 4 ? 32 : 128)),
        family === 4 ? 'ipv4' : 'ipv6',
      );
  }
  return {
    refusal(host, raw) {
      const address = unmapped(raw);
      const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
      if (allowedHosts.has(host.toLowerCase()) || allowedNets.check(address, family)) return null;
      if (PRIVATE.check(address, family)) {
        return `${host} is a private or local address (${address})${remedy ? `; ${remedy}` : ''}`;
      }
      return null;
    },
  };
}

/** Every address: a self-hosted server's connections point into its household's own network. */
const ANYWHERE = addressPolicy(['0.0.0.0/0', '::/0']);

/**
 * The addresses a connection's own server (a CalDAV URL, a SearXNG instance, a Home Assistant) may have: on the
 * hosted API public ones only, unless the operator allows more (`ASSISTANT_ALLOW_PRIVATE_HOSTS`), so a customer's
 * URL cannot reach the service's own network; on a self-hosted server any, since its accounts are its household
 * and their servers are on the local network.
 */
export function connectionPolicy(env: DriverEnvironment): AddressPolicy {
  if (env.deployment !== 'hosted') return ANYWHERE;
  return addressPolicy(env.allowPrivateHosts, 'the operator can allow it with ASSISTANT_ALLOW_PRIVATE_HOSTS');
}
