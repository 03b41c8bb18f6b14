/**
 * Where a browser client connects and whether it can make peer connections:
 * read by Platform.dispatch for its early socket (early-socket.ts) and by the
 * session it makes (browser-session.ts), so both name the same socket. In the
 * guest's first load: keep it small.
 */
import { PlatformError } from '../../protocol/errors.js';
import { CONTROL_PATH } from '../../protocol/signaling-endpoint.js';

/** The control socket's URL (`ws(s)://…/dispatch`) for a server URL given as http(s) or ws(s), with or without the path. */
export function controlUrl(base: string): string {
  const url = new URL(base, typeof location === 'undefined' ? undefined : location.href);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  if (!url.pathname.endsWith(CONTROL_PATH)) url.pathname = url.pathname.replace(/\/$/, '') + CONTROL_PATH;
  url.search = '';
  return url.href;
}

/** The control URLs of the configured server (its nodes, in order), or the page's own host (`/`, resolved against the page). */
export function controlUrls(url: string | readonly string[] | undefined): string | string[] {
  if (url === undefined && typeof location === 'undefined') throw new PlatformError('INVALID_CONFIG', 'no page location: configure({ url }) first');
  return typeof url === 'object' ? url.map(controlUrl) : controlUrl(url ?? '/');
}

/** Whether this page can make WebRTC peer connections at all (Discord Activities: no). */
export function webRtcAvailable(): boolean {
  return typeof RTCPeerConnection === 'function';
}
