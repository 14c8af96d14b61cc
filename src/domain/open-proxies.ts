import { BlockList, isIP } from 'node:net';

/**
 * Opens that no reader made: mail providers fetch a message's images through their own proxies,
 * often the moment it arrives (Apple Mail Privacy Protection, Gmail's image proxy, Yahoo's). An
 * open from one of their ranges within MACHINE_OPEN_WINDOW_MS of sending is taken for that
 * prefetch; later ones are readers opening the mail behind the proxy.
 */
export const MACHINE_OPEN_WINDOW_MS = 60_000;

const PROXY_RANGES: [string, number][] = [
  ['17.0.0.0', 8], // Apple (Mail Privacy Protection)
  ['66.102.0.0', 20], // Google image proxy
  ['66.249.80.0', 20],
  ['64.233.160.0', 19],
  ['72.14.192.0', 18],
  ['74.125.0.0', 16],
  ['98.136.0.0', 14], // Yahoo
  ['40.92.0.0', 15], // Microsoft
  ['40.107.0.0', 16],
];

const proxies = new BlockList();
for (const [address, prefix] of PROXY_RANGES) proxies.addSubnet(address, prefix, 'ipv4');

const PROXY_AGENTS = /GoogleImageProxy|YahooMailProxy/i;

/** True when the request comes from a mail provider's image proxy, by its address or its user agent. */
export function fromImageProxy(ip: string, userAgent: string | undefined): boolean {
  if (userAgent && PROXY_AGENTS.test(userAgent)) return true;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return isIP(v4) === 4 && proxies.check(v4, 'ipv4');
}
