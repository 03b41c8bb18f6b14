/**
 * The demo's project token is no secret: it is in the repository (catalog.ts). The routes it opens
 * (`PUT /services/cdn/…`, the keystore's secrets) would let anyone who can reach the demo write files
 * past the anonymous uploads' quota and caps (uploads.ts) or read the vault's secrets. So the public
 * port forwards a request that carries it only from this machine: the demo's own backends, which call
 * the services through that port, and the developer. A phone or a neighbour on the network holds user
 * tokens, never the project token, and loses nothing. The control socket's backend joins are held to
 * the same rule by the signaling server itself (the project's `backendJoinsFromLoopbackOnly`): the
 * join may come in a frame after the upgrade, where this port cannot see it.
 *
 * Behind `trustProxy` proxies the address is the one the outermost proxy saw (client-address.ts): a
 * proxy on this machine must not make every visitor local.
 */
import type { IncomingMessage } from 'node:http';
import { clientIp, isLoopback } from '../../signaling/client-address.js';
import { bearerToken } from '../../signaling/services/http.js';

/** True when `request` carries `projectToken` and comes from another machine: refuse it (403 FORBIDDEN). */
export function isPublicTokenFromAfar(request: IncomingMessage, projectToken: string, trustProxy: number): boolean {
  if (bearerToken(request) !== projectToken) return false;
  return !isLoopback(clientIp(request, trustProxy));
}
