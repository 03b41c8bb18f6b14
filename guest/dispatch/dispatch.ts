/**
 * `Platform.dispatch`: the browser client of a shard. Events between browser
 * members travel over a WebRTC mesh (peerjs) and through the server's relay
 * otherwise; the API and the guarantees are the same either way (see
 * event-sender.ts and event-receiver.ts).
 *
 * This file is what a template loads first: the client's API and its listener
 * registry (listeners.ts), which hold what a template sets up before it
 * connects. The session and everything under it (browser-session.ts: the
 * control socket, sender, receiver, clock) are a dynamic import, and the mesh
 * a further one (lazy-mesh.ts); a bundler with code splitting makes each a
 * chunk of its own (`npm run bench -- guest-size` prints them). The session's
 * chunk starts loading when the template first touches the client (the
 * `Platform.dispatch` getter makes it, or `createDispatch`), not at
 * `connect()`: by the time a template connects it is there, and the first
 * event waits for no download. A template whose first touch is `connect()`
 * (in the same task) would wait for it: that connect() opens the control
 * socket itself, with the session's join in its handshake, while the module
 * loads, and the session takes the socket over (early-socket.ts).
 */
import { getGuestLink } from '../link.js';
import { getBuiltCustomization } from '../registry.js';
import { PlatformError } from '../../protocol/errors.js';
import { encodeHandshakeJoin } from '../../protocol/handshake-subprotocols.js';
import { PROJECT_ID_PATTERN } from '../../protocol/signaling-endpoint.js';
import type { ConnectedClient, EventPayload, ShardInfo } from '../../protocol/signaling-members.js';
import { controlUrls, webRtcAvailable } from './browser-endpoint.js';
import type { BrowserDispatchOptions } from './browser-options.js';
import type * as BrowserSessionModule from './browser-session.js';
import { EarlySocket } from './early-socket.js';
import { joinFrame } from './join-frame.js';
import { DispatchListeners, type PresenceListenerOptions } from './listeners.js';
import type { DispatchSession } from './session.js';
import type { ConnectionInfo, DispatchConfigurationInput, DispatchErrorCallback, MessageHandlerCallback, SeatAvailableCallback, SpectatorsChangedCallback } from './types.js';
import { viewerFocusState } from './viewer-focus-state.js';

export type { BrowserDispatchOptions } from './browser-options.js';

/** The session's module, loading or loaded: one load per page, shared by every client. */
let sessionModule: Promise<typeof BrowserSessionModule> | null = null;

/**
 * Loads the session's module (once; a failed load, a network blip, is asked for again at the next
 * call). Browsers that follow whatwg/html#10327 fetch it again then; older ones (Chromium 156
 * here) keep the failure for the page's life, so every later connect() rejects the same way and
 * the error says to reload.
 */
function loadSessionModule(): Promise<typeof BrowserSessionModule> {
  if (!sessionModule) {
    const loading = import('./browser-session.js');
    sessionModule = loading;
    loading.catch(() => {
      if (sessionModule === loading) sessionModule = null;
    });
  }
  return sessionModule;
}

function builtProjectId(): string | undefined {
  const values = getBuiltCustomization().values as { metadata?: { projectId?: unknown } } | undefined;
  const id = values?.metadata?.projectId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The browser Dispatch. `Platform.dispatch` is one of these; tests may make more with {@link createDispatch}. */
export class BrowserDispatch {
  #options: BrowserDispatchOptions = {};
  #projectId: string | undefined;
  #session: DispatchSession | null = null;
  /** The session while its module loads (from the first connect() on); null once it is made, or when the load failed. */
  #opening: Promise<DispatchSession> | null = null;
  /**
   * Every listener, from the start: the session is made at the first `connect()` and handed this
   * registry, so a listener added before then is not held anywhere else.
   */
  readonly #listeners = new DispatchListeners();
  /** Callers of {@link whenSession} before the first `connect()` made the session. */
  readonly #sessionWaiters: ((session: DispatchSession) => void)[] = [];
  #userInfo: EventPayload | undefined;

  constructor() {
    // The template touched Platform.dispatch (the getter makes the client on first access): it
    // will connect, and its session's code loads now, beside the page's own work, not after connect().
    // The mesh's module follows once that is in, and peerjs at the page's next idle moment: by then
    // the template's own setup has run (a configure({ mesh: false }) right after the first touch),
    // so a relay-only client loads neither.
    loadSessionModule().then(
      (module) => module.prefetchMesh(this.#options),
      () => undefined,
    );
  }

  /** Sets options (server URL, mesh, test hooks). Takes effect at the next `connect()`. */
  configure(options: BrowserDispatchOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  /** Sets the project id (spec: setProjectId). Takes effect at the next `connect()`. */
  setProjectId(projectId: string): void {
    if (typeof projectId !== 'string' || !PROJECT_ID_PATTERN.test(projectId)) throw new PlatformError('INVALID_ARGUMENT', 'not a project id');
    this.#projectId = projectId;
  }

  /**
   * Connects to a shard; a second call returns the same connection. With no project id (none
   * set, none built, and no host that names one) it rejects with `INVALID_CONFIG`, which
   * `onError` hears too: a template built without one still runs in a host that gives one.
   */
  connect(config: DispatchConfigurationInput = {}): Promise<ConnectionInfo> {
    if (this.#session) return this.#session.connect(config);
    if (this.#opening) return this.#opening.then((session) => session.connect(config));
    const known = this.#projectId ?? this.#options.projectId ?? builtProjectId();
    if (known) return this.#open(known, config);
    // Only the host can name it: wait for the link (a welcome, or standalone after its timeout).
    const link = getGuestLink();
    return link.settled().then(() => {
      if (this.#session) return this.#session.connect(config);
      if (this.#opening) return this.#opening.then((session) => session.connect(config));
      const projectId = this.#projectId ?? this.#options.projectId ?? link.hostProjectId;
      if (projectId) return this.#open(projectId, config);
      const error = new PlatformError('INVALID_CONFIG', 'no project id: the build has none (PLATFORM_PROJECT_ID), the host named none, and setProjectId() was not called');
      this.#listeners.errors.notify(error);
      throw error;
    });
  }

  /** Leaves the shard and ends peer connections, sockets and timers. Idempotent. */
  async disconnect(): Promise<void> {
    // A session still loading is made and then left: its connect() started already.
    const session = this.#session ?? (await this.#opening?.catch(() => null));
    await session?.disconnect();
  }

  /**
   * Emits an event to the recipients (client ids or user ids), or to every member of the shard.
   * The sender's own listeners hear a broadcast too (unless `receiveOwnBroadcasts` is false), and
   * an event whose recipients name it. Called while `connect()` is in progress, the event waits for
   * the connection (at most 64, then `QUEUE_FULL`): the promise resolves when it is sent and rejects
   * with the connection's error if `connect()` fails. Before any `connect()` (or after
   * `disconnect()`) it rejects `NOT_CONNECTED`.
   */
  emitEvent(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    if (this.#session) return this.#session.emitEvent(eventName, payload, recipients);
    // connect() was called and the session's module is still loading: the event waits with the
    // connection, in order (these reactions run after the one that calls the session's connect()).
    if (this.#opening) return this.#opening.then((session) => session.emitEvent(eventName, payload, recipients));
    return Promise.reject(new PlatformError('NOT_CONNECTED', 'connect() first'));
  }

  /** Identifies this client with a user token (`INVALID_TOKEN`, `TOKEN_EXPIRED`: still connected, unidentified). */
  identify(authToken: string): Promise<void> {
    if (!this.#session) return Promise.reject(new PlatformError('NOT_CONNECTED', 'connect() first'));
    return this.#session.identify(authToken);
  }

  /** The project's active shards. */
  info(): Promise<ShardInfo[]> {
    if (!this.#session) return Promise.reject(new PlatformError('NOT_CONNECTED', 'connect() first'));
    return this.#session.info();
  }

  /** Listens to an event; returns the unsubscribe function. */
  on(eventName: string, callback: MessageHandlerCallback): () => void {
    return this.#listeners.events.add(eventName, callback);
  }

  /**
   * Listens to the shard's presence list; returns the unsubscribe function.
   * Fires on connect, disconnect, `setUserInfo` and `identify` of any member,
   * with the whole list. Changes that reach this client together (the server
   * coalesces a shard's presence per turn and, in a burst, per
   * `presenceIntervalMs`, 25 ms by default) fire it once, with the list after
   * the last of them. A member is always listed before its first event arrives.
   *
   * The list holds the members `here` (ConnectedClient.state: their template is
   * in front of its viewer), this client included once it is; members `away`
   * (preloaded in a feed, scrolled past, a hidden tab) are connected and
   * reachable but left out, unless `options.includeAway` is true. A member that
   * comes into focus is listed at once: it was connected, only its state changes.
   */
  onConnectedClientsChanged(callback: (connectedClients: ConnectedClient[]) => void, options?: PresenceListenerOptions): () => void {
    return this.#listeners.addPresence(callback, options);
  }

  /** Listens to how many spectators watch the shard (players and spectators hear it). Returns the unsubscribe function. Beyond the spec. */
  onSpectatorsChanged(callback: SpectatorsChangedCallback): () => void {
    return this.#listeners.spectators.add(callback);
  }

  /**
   * A spectator listens for a free seat: a player left the shard for good. Then
   * {@link takeSeat} may succeed (others may take it first). Returns the unsubscribe function. Beyond the spec.
   */
  onSeatAvailable(callback: SeatAvailableCallback): () => void {
    return this.#listeners.seats.add(callback);
  }

  /**
   * A spectator becomes a player of its shard, under the same client id: resolves with the
   * connection (a player's: no `spectator`) once it is listed and can emit. Rejects `SHARD_FULL` when
   * no seat is free (it watches on), `INVALID_ARGUMENT` when it plays already. Beyond the spec.
   */
  takeSeat(): Promise<ConnectionInfo> {
    if (!this.#session) return Promise.reject(new PlatformError('NOT_CONNECTED', 'connect() first'));
    return this.#session.takeSeat();
  }

  /** How many spectators watch the shard, as last told (0 before connecting). Beyond the spec. */
  get spectatorCount(): number {
    return this.#session?.audience.count ?? 0;
  }

  /** Listens to errors no promise carries (a refused relayed event, a reconnection given up, a bad token at connect). */
  onError(callback: DispatchErrorCallback): () => void {
    return this.#listeners.errors.add(callback);
  }

  /** Sets this client's user info (JSON, at most 4 KB), seen by every member's presence listener. */
  setUserInfo(userInfo: EventPayload): Promise<void> {
    this.#userInfo = userInfo;
    return this.#session ? this.#session.setUserInfo(userInfo) : Promise.resolve();
  }

  /** The current connection, or null. */
  get connectionInfo(): ConnectionInfo | null {
    return this.#session?.connectionInfo ?? null;
  }

  /** The session underneath (diagnostics and tests: paths(), dropSocketForTest()). */
  get session(): DispatchSession | null {
    return this.#session;
  }

  /**
   * Calls `callback` with the session underneath, now or once `connect()` makes it: how the
   * shard's state (`platform-kit/guest/state`) plugs in before or after connecting.
   */
  whenSession(callback: (session: DispatchSession) => void): void {
    if (this.#session) callback(this.#session);
    else this.#sessionWaiters.push(callback);
  }

  /**
   * The first connect(): the session's module (loading since the client was made, or from now)
   * while the control socket opens with the join in its handshake (early-socket.ts), then the
   * session on this client's listener registry, which connects on that socket. A load that fails
   * rejects `NOT_CONNECTED`, and the next connect() loads again.
   */
  #open(projectId: string, config: DispatchConfigurationInput): Promise<ConnectionInfo> {
    const mesh = this.#options.mesh !== false && webRtcAvailable();
    const early = this.#earlySocket(projectId, config, mesh);
    const opening = loadSessionModule().then(
      (module) => {
        // The mesh's module and then peerjs, as soon as the session's module is in: at once when it
        // was loaded already (the template touched Dispatch earlier; the session's own prepare()
        // shares these loads: lazy-mesh.ts). Not beside it when connect() is the first touch: that
        // module is what connect() waits for, and peerjs (the largest chunk by far) compiling beside
        // it kept connect() 2.8 to 3.3× main's in players-meet (1.6× without).
        module.prepareMesh(this.#options);
        return this.#session ?? this.#adopt(module.createBrowserSession(this.#options, projectId, this.#listeners, early));
      },
      (error: unknown) => {
        throw new PlatformError('NOT_CONNECTED', `the Dispatch client could not be loaded (reload the page if this repeats): ${String(error)}`);
      },
    );
    this.#opening = opening;
    opening.then(
      () => {
        if (this.#opening === opening) this.#opening = null;
      },
      () => {
        early?.discard();
        if (this.#opening === opening) this.#opening = null;
      },
    );
    return opening.then((session) => {
      const connecting = session.connect(config);
      // The session opened its socket within connect() (or refused the config first): it took the
      // early one, or it never will.
      early?.discard();
      return connecting;
    });
  }

  /**
   * The control socket of the first connect(), opened now with the join the session will make
   * (join-frame.ts: id 1, this config, the user info and viewer focus as they are now); null where
   * the join cannot ride in a handshake, or a state (platform-kit/guest/state) waits for the
   * session: its join carries a state vector only the state knows.
   */
  #earlySocket(projectId: string, config: DispatchConfigurationInput, mesh: boolean): EarlySocket | null {
    if (this.#sessionWaiters.length) return null;
    try {
      const link = getGuestLink();
      // The session's first socket goes to the first of the server's URLs (control-connection.ts).
      const url = [controlUrls(this.#options.url)].flat()[0];
      const protocols = encodeHandshakeJoin(
        joinFrame({
          id: 1,
          options: { projectId, kind: 'browser' },
          config,
          authorization: config.authorization,
          userInfo: this.#userInfo ?? {},
          // As the session's focus follower starts (viewer-focus.ts): nothing waited for or observed yet.
          presence: viewerFocusState(link, { waited: false, playing: link.isPlaying, onScreen: true }),
          meshSignaling: mesh,
        }),
      );
      return url && protocols ? new EarlySocket(url, protocols) : null;
    } catch {
      // No page location for the default URL, no WebSocket, a URL or user info the browser refuses:
      // the session meets the same and says so with a code; this socket is only an optimisation.
      return null;
    }
  }

  /** Keeps the session made, with what was set before it existed, and tells those waiting for it. */
  #adopt(session: DispatchSession): DispatchSession {
    if (this.#userInfo) void session.setUserInfo(this.#userInfo);
    this.#session = session;
    for (const waiter of this.#sessionWaiters.splice(0)) waiter(session);
    return session;
  }
}

/** A new, independent browser client (tests, or a page that is several members at once). */
export function createDispatch(options: BrowserDispatchOptions = {}): BrowserDispatch {
  const dispatch = new BrowserDispatch();
  dispatch.configure(options);
  return dispatch;
}
