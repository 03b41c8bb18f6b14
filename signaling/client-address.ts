/**
 * The client address a join is counted against (SignalingLimits.maxJoinsPerAddressPerMinute).
 *
 * - Without proxies (`trustProxy` 0, the default) it is the socket's remote
 *   address. X-Forwarded-For is ignored: any client can write one.
 * - Behind `trustProxy` proxies that each append the address they saw to
 *   X-Forwarded-For (nginx `$proxy_add_x_forwarded_for`, most load
 *   balancers), it is the entry the outermost trusted proxy appended: counted
 *   from the right, so entries a client forged on the left are never chosen.
 * - IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as the IPv4 address; other
 *   IPv6 addresses count by their /64, the block one subscriber usually holds
 *   (a client must not escape the limit by walking its own /64).
 */
import type { IncomingMessage } from 'node:http';
import { isIP, isIPv6 } from 'node:net';

/** The address to count a join against; '' when the socket has none (already closed). */
export function clientAddress(request: IncomingMessage, trustProxy: number): string {
  return limitKey(clientIp(request, trustProxy));
}

/** The client's own IP address, as the rules above choose it (not reduced to a /64). */
export function clientIp(request: IncomingMessage, trustProxy: number): string {
  const socketAddress = request.socket.remoteAddress ?? '';
  if (trustProxy <= 0) return socketAddress;
  const header = request.headers['x-forwarded-for'];
  // Node joins repeated X-Forwarded-For headers with ", ": one list either way.
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const chain = [...forwarded, socketAddress];
  const chosen = chain[Math.max(0, chain.length - 1 - trustProxy)] ?? socketAddress;
  // A proxy that wrote something else than an address: count the proxy's own.
  return isIP(chosen) ? chosen : socketAddress;
}

/** An address of this machine's loopback interface (127.0.0.0/8, ::1, and IPv4-mapped 127.x). */
export function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 as its /64 prefix. */
export function limitKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [left = '', right] = address.split('%')[0]!.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  // An embedded IPv4 tail (a.b.c.d) fills two groups.
  const width = (list: readonly string[]): number => list.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const head = groups(left);
  const tail = right === undefined ? [] : groups(right);
  const full = right === undefined ? head : [...head, ...Array<string>(Math.max(0, 8 - width(head) - width(tail))).fill('0'), ...tail];
  return `${full
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
