/**
 * `PlatformBackend.Dispatch`: the Node client of a shard. It speaks the same
 * control protocol as the browser client through the same session core, and
 * always uses the relay (a backend has no WebRTC).
 */
import { WebSocket } from 'ws';
import { PlatformError } from '../protocol/errors.js';
import { CONTROL_PATH, type ConnectedClient, type EventPayload, type ShardInfo } from '../protocol/signaling.js';
import { DispatchListeners } from '../guest/dispatch/listeners.js';
import { DispatchSession } from '../guest/dispatch/session.js';
import type { ConnectionInfo, DispatchConfigurationInput, DispatchErrorCallback, MessageHandlerCallback, SocketLike } from '../guest/dispatch/types.js';

/** The part of an HTTP response the backend client reads: `res.locals` as VccMiddleware sets it. */
export interface ResponseWithLocals {
  readonly locals?: Readonly<Record<string, unknown>>;
}

/** Configuration of {@link Dispatch} (spec: BackendConfigurationInput). */
export interface BackendConfigurationInput {
  /** The project's id; overrides `res.locals.PLATFORM_PROJECT_ID` and the environment. */
  readonly projectId?: string;
  /** The project's secret token; overrides `res.locals.PLATFORM_PROJECT_TOKEN` and the environment. */
  readonly projectToken?: string;
  /** A response whose `locals` carry `PLATFORM_PROJECT_ID` and `PLATFORM_PROJECT_TOKEN` (VccMiddleware). */
  readonly res?: ResponseWithLocals;
  /**
   * The signaling server (`http(s)://` or `ws(s)://`), or the URLs of its
   * nodes when it runs on many (Redis): the first is used first, and each
   * reconnection attempt moves on to the next, so clients of a node that
   * died go to the others and keep their ids. Default: `PLATFORM_DISPATCH_URL`
   * (one URL, or several separated by commas).
   */
  readonly url?: string | readonly string[];
  /** Events kept while reconnecting before `QUEUE_FULL`. Default 1,000 (64 while the first `connect()` is in progress). */
  readonly maxQueuedEvents?: number;
  /**
   * Whether this client's `on` listeners hear its own broadcasts (`emitEvent` with no recipients),
   * delivered locally, once, with `latencyMs` 0. Default true, as on the browser. An event with
   * recipients reaches the sender only when they name it, whatever this says.
   */
  readonly receiveOwnBroadcasts?: boolean;
  /** First reconnection delay in ms (doubles with jitter up to 30 s). Default 250. */
  readonly reconnectInitialDelayMs?: number;
  /** Test hook: skews this client's clock to show that clock sync cancels it. */
  readonly clockSkewMs?: number;
}

/** Turns `http(s)://host[:port][/]` or `ws(s)://…` into the control WebSocket URL. */
export function controlUrl(base: string): string {
  const url = new URL(base);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new PlatformError('INVALID_CONFIG', `not a server URL: ${base}`);
  if (!url.pathname.endsWith(CONTROL_PATH)) url.pathname = url.pathname.replace(/\/$/, '') + CONTROL_PATH;
  url.search = '';
  url.hash = '';
  return url.href;
}

function readString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * A backend member of a shard. `new PlatformBackend.Dispatch({ res })` takes
 * the project from the response (VccMiddleware), else from the options, else
 * from `PLATFORM_PROJECT_ID`/`PLATFORM_PROJECT_TOKEN`. The project token goes
 * in the first frame of the socket, never in the URL or a header (so a
 * backend never joins in the handshake: one round trip more per connection).
 */
export class Dispatch {
  readonly #session: DispatchSession;
  /** Every listener (the registry the browser client uses too, guest/dispatch/listeners.ts), handed to the session. */
  readonly #listeners = new DispatchListeners();

  constructor(configuration: BackendConfigurationInput = {}) {
    const locals = configuration.res?.locals ?? {};
    const projectId = configuration.projectId ?? readString(locals['PLATFORM_PROJECT_ID']) ?? readString(process.env['PLATFORM_PROJECT_ID']);
    const projectToken = configuration.projectToken ?? readString(locals['PLATFORM_PROJECT_TOKEN']) ?? readString(process.env['PLATFORM_PROJECT_TOKEN']);
    const given = configuration.url ?? readString(process.env['PLATFORM_DISPATCH_URL'])?.split(',');
    const urls = (typeof given === 'string' ? [given] : (given ?? [])).map((item) => item.trim()).filter((item) => item !== '');
    if (!projectId || !projectToken) {
      throw new PlatformError('INVALID_CONFIG', 'PlatformBackend.Dispatch needs a project id and token (options, res.locals or PLATFORM_PROJECT_ID/PLATFORM_PROJECT_TOKEN)');
    }
    if (urls.length === 0) throw new PlatformError('INVALID_CONFIG', 'PlatformBackend.Dispatch needs the server URL (url option or PLATFORM_DISPATCH_URL)');
    this.#session = new DispatchSession(
      {
        url: urls.length === 1 ? controlUrl(urls[0]!) : urls.map(controlUrl),
        projectId,
        projectToken,
        kind: 'backend',
        // A backend's join carries its project token, so it never rides in the handshake (protocols stay empty).
        createSocket: (target, protocols = []) => new WebSocket(target, [...protocols], { perMessageDeflate: false }) as unknown as SocketLike,
        ...(configuration.maxQueuedEvents !== undefined ? { maxQueuedEvents: configuration.maxQueuedEvents } : {}),
        ...(configuration.receiveOwnBroadcasts !== undefined ? { receiveOwnBroadcasts: configuration.receiveOwnBroadcasts } : {}),
        ...(configuration.reconnectInitialDelayMs !== undefined ? { reconnectInitialDelayMs: configuration.reconnectInitialDelayMs } : {}),
        ...(configuration.clockSkewMs !== undefined ? { clockSkewMs: configuration.clockSkewMs } : {}),
      },
      this.#listeners,
    );
  }

  /** Connects to a shard; a second call returns the same connection. */
  connect(config: DispatchConfigurationInput = {}): Promise<ConnectionInfo> {
    return this.#session.connect(config);
  }
  /** Leaves the shard; ends the socket and timers. Idempotent. */
  disconnect(): Promise<void> {
    return this.#session.disconnect();
  }
  /**
   * Emits an event to the recipients (client ids or user ids), or to every member of the shard,
   * this client's own listeners included unless `receiveOwnBroadcasts` is false. While `connect()`
   * is in progress it waits for the connection (at most 64, then `QUEUE_FULL`) and rejects with the
   * connection's error if that fails; with no `connect()` in progress it rejects `NOT_CONNECTED`.
   */
  emitEvent(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    return this.#session.emitEvent(eventName, payload, recipients);
  }
  /** Identifies this client with a user token (`INVALID_TOKEN`, `TOKEN_EXPIRED`: still connected). */
  identify(authToken: string): Promise<void> {
    return this.#session.identify(authToken);
  }
  /** The project's active shards. */
  info(): Promise<ShardInfo[]> {
    return this.#session.info();
  }
  /** Listens to an event; returns the unsubscribe function. */
  on(eventName: string, callback: MessageHandlerCallback): () => void {
    return this.#listeners.events.add(eventName, callback);
  }
  /**
   * Listens to the shard's presence (also available on the backend). Returns the unsubscribe function.
   * Fires on connect, disconnect, `setUserInfo` and `identify` of any member,
   * with the whole list. Changes that reach this client together (the server
   * coalesces a shard's presence per turn and, in a burst, per
   * `presenceIntervalMs`, 25 ms by default) fire it once, with the list after
   * the last of them. A member is always listed before its first event arrives.
   */
  onConnectedClientsChanged(callback: (connectedClients: readonly ConnectedClient[]) => void): () => void {
    return this.#listeners.presence.add(callback);
  }
  /** Listens to errors no promise carries (a refused relayed event, a reconnection given up). */
  onError(callback: DispatchErrorCallback): () => void {
    return this.#listeners.errors.add(callback);
  }
  /** The current connection, or null. */
  get connectionInfo(): ConnectionInfo | null {
    return this.#session.connectionInfo;
  }
  /** Calls `callback` with the session underneath (the shard's state plugs in there; see `shardState`). */
  whenSession(callback: (session: DispatchSession) => void): void {
    callback(this.#session);
  }
  /** The session underneath (tests and diagnostics). */
  get session(): DispatchSession {
    return this.#session;
  }
}
