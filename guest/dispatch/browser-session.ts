/**
 * The browser client's session, made at a template's first `connect()`. This
 * module is what `Platform.dispatch` loads with a dynamic import (dispatch.ts):
 * the session and its parts (control socket, sender, receiver, clock, viewer
 * focus) are not in the chunk a template loads first, which keeps that chunk
 * small; the mesh is a further chunk on top (lazy-mesh.ts), loaded only by
 * clients that use it. dispatch.ts starts this load as soon as the template
 * first touches the client, so that it is in the page by the time `connect()`
 * needs it.
 */
import { controlUrls, webRtcAvailable } from './browser-endpoint.js';
import type { BrowserDispatchOptions } from './browser-options.js';
import type { EarlySocket } from './early-socket.js';
import { lazyPeerTransport, prefetchMesh as prefetchMeshModules } from './lazy-mesh.js';

/** The template touched Platform.dispatch and its setup has run: the mesh's module, then peerjs at an idle moment (relay-only clients load neither). */
export function prefetchMesh(options: BrowserDispatchOptions): void {
  if (options.mesh !== false) prefetchMeshModules(options);
}

/** A first connect() is on its way: the mesh's module and peerjs load now (relay-only clients load neither). */
export function prepareMesh(options: BrowserDispatchOptions): void {
  if (options.mesh !== false && webRtcAvailable()) lazyPeerTransport(options).prepare?.();
}
import type { DispatchListeners } from './listeners.js';
import { DispatchSession } from './session.js';
import type { SocketLike } from './types.js';
import { followViewerFocus } from './viewer-focus.js';

/**
 * The session of a browser client of `projectId`, on the client's listener registry. Relay only
 * (no mesh module loaded, ever) when the options say `mesh: false` or the page has no WebRTC
 * (Discord Activities allow none). It follows the viewer's focus from now on: a template
 * preloaded in a feed joins away (viewer-focus.ts). `early`: the control socket Platform.dispatch
 * opened while this module loaded (early-socket.ts), taken for the first socket when it carries the
 * very join this session makes.
 */
export function createBrowserSession(options: BrowserDispatchOptions, projectId: string, listeners: DispatchListeners, early: EarlySocket | null = null): DispatchSession {
  const mesh = options.mesh !== false && webRtcAvailable();
  const session = new DispatchSession(
    {
      url: controlUrls(options.url),
      projectId,
      kind: 'browser',
      createSocket: (target, protocols) => early?.take(target, protocols) ?? ((protocols ? new WebSocket(target, [...protocols]) : new WebSocket(target)) as unknown as SocketLike),
      ...(mesh ? { peerTransport: lazyPeerTransport(options) } : {}),
      ...(options.maxQueuedEvents !== undefined ? { maxQueuedEvents: options.maxQueuedEvents } : {}),
      ...(options.receiveOwnBroadcasts !== undefined ? { receiveOwnBroadcasts: options.receiveOwnBroadcasts } : {}),
      ...(options.reconnectInitialDelayMs !== undefined ? { reconnectInitialDelayMs: options.reconnectInitialDelayMs } : {}),
      ...(options.clockSkewMs !== undefined ? { clockSkewMs: options.clockSkewMs } : {}),
    },
    listeners,
  );
  const focus = followViewerFocus((state) => session.setPresenceState(state));
  session.setPresenceState(focus.state);
  return session;
}
