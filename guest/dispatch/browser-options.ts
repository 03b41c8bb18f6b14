/**
 * The options of the browser client, in a module of their own: read by `Platform.dispatch`
 * (dispatch.ts, the first load) and by the session it loads later (browser-session.ts), which
 * must not import dispatch.ts back.
 */
import type { PeerTransportOptions } from './peer-transport.js';

/** Options of the browser client; set them before `connect()` with `BrowserDispatch.configure`. */
export interface BrowserDispatchOptions extends PeerTransportOptions {
  /**
   * The signaling server (`http(s)://` or `ws(s)://`). Default: the page's own
   * host (`wss://HOST/dispatch`), as when the host serves the server too.
   * Several URLs name the nodes of one server (Redis scale-out): the first is
   * used first and every reconnection attempt moves to the next one (or put
   * the nodes behind one load-balanced URL).
   */
  readonly url?: string | readonly string[];
  /**
   * The project; `setProjectId` does the same. Default: the built customization's
   * `metadata.projectId`, and when the build has none, the one the host names at the link.
   */
  readonly projectId?: string;
  /** Use the WebRTC mesh. Default true; false relays every event. */
  readonly mesh?: boolean;
  /** Events kept while reconnecting before `QUEUE_FULL`. Default 1,000 (64 while the first `connect()` is in progress). */
  readonly maxQueuedEvents?: number;
  /**
   * Whether this client's `on` listeners hear its own broadcasts (`emitEvent` with no recipients),
   * delivered locally, once, with `latencyMs` 0 and its own `clientId`. Default true: a broadcast
   * goes "to all clients on the current shard", the sender too (a chat shows its own message).
   * False leaves the sender out. An event with recipients reaches the sender only when they name
   * it (its client id or verified user id), whatever this says.
   */
  readonly receiveOwnBroadcasts?: boolean;
  /** First reconnection delay in ms (doubles with jitter up to 30 s). Default 250. */
  readonly reconnectInitialDelayMs?: number;
  /** Test hook: skews this client's clock to show that clock sync cancels it. */
  readonly clockSkewMs?: number;
}
