/**
 * One Dispatch client of a shard, shared by the browser client
 * (Platform.dispatch) and the Node backend client (PlatformBackend.Dispatch):
 * the life of the connection (connect, join, resume after a drop, give up,
 * disconnect) and the operations of the spec. It holds the pieces together
 * and owns none of their work:
 *
 * - control-connection.ts: the control socket, requests, heartbeat, backoff;
 * - join-frame.ts: what a join (or a resume) says;
 * - membership.ts: the shard's members, told to the presence listeners;
 * - listeners.ts: every listener of the client (events, presence, errors), in one registry;
 * - event-sender.ts: emitEvent's checks, rate, offline queue and paths;
 * - event-receiver.ts: order, duplicates and the listeners of `on`;
 * - clock.ts: the server-synced clock;
 * - session-mesh.ts: the mesh as the session makes it (this file says when);
 * - peer-transport.ts and relay-transport.ts: the two data paths.
 *
 * The guarantees (order, delivery, offline) are written down where they are
 * kept: event-receiver.ts and event-sender.ts.
 */
import { assertPlainData } from '../../protocol/data.js';
import { deserializeError, isPlatformError, PlatformError } from '../../protocol/errors.js';
import {
  DEFAULT_WIRE_LIMITS,
  isShardName,
  MAX_HISTORY_EVENTS,
  type ConnectedClient,
  type EventMessage,
  type EventPayload,
  type JoinedMessage,
  type PresenceMessage,
  type PresenceState,
  type ShardInfo,
  type WireLimits,
} from '../../protocol/signaling.js';
import { CLOCK_SAMPLES_AT_CONNECT, CLOCK_SAMPLES_AT_RESUME, ServerClock, type Ping } from './clock.js';
import { ControlConnection } from './control-connection.js';
import { EventReceiver } from './event-receiver.js';
import { EventSender } from './event-sender.js';
import { joinFrame } from './join-frame.js';
import { DispatchListeners, type PresenceListenerOptions } from './listeners.js';
import { Audience } from './audience.js';
import { Membership } from './membership.js';
import { OwnPresence } from './own-presence.js';
import type {
  ConnectedClientsChangedHandlerCallback,
  ConnectionInfo,
  DispatchConfigurationInput,
  DispatchErrorCallback,
  MessageHandlerCallback,
  SessionOptions,
  SessionState,
} from './types.js';
import { SessionMesh } from './session-mesh.js';
import { StatePort } from './state-port.js';

/** Refusals of a join that no retry can fix: a reconnection that meets one gives up. */
const FINAL_JOIN_ERRORS: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'ORIGIN_REFUSED', 'SHARD_FULL', 'TOO_MANY_SHARDS', 'UNSUPPORTED']);

/** The shared client. Wrapped by `Platform.dispatch` and `PlatformBackend.Dispatch`. */
export class DispatchSession {
  readonly #options: SessionOptions;
  #state: SessionState = 'idle';
  #connecting: Promise<ConnectionInfo> | null = null;
  #config: DispatchConfigurationInput = {};
  #info: ConnectionInfo | null = null;
  #resumeToken = '';
  #limits: WireLimits = DEFAULT_WIRE_LIMITS;
  #authorization: string | undefined;
  #userInfo: EventPayload = {};
  #userId: string | null = null;
  readonly #mesh: SessionMesh;
  readonly #listeners: DispatchListeners;
  readonly #clock: ServerClock;
  /** One clock sample's round trip on the control socket (clock.ts): at a join and with each heartbeat. */
  readonly #ping: Ping = (c, timeoutMs) => this.#connection.request({ type: 'ping', c }, timeoutMs);
  readonly #connection: ControlConnection;
  readonly #membership: Membership;
  readonly #audience: Audience;
  readonly #presence: OwnPresence;
  readonly #receiver: EventReceiver;
  readonly #sender: EventSender;
  /** Where the shard's state plugs in (state-port.ts). */
  readonly statePort: StatePort;

  /**
   * `listeners`: the client's registry. The browser and backend clients make theirs first and
   * pass it, so that listeners added before `connect()` are simply there.
   */
  constructor(options: SessionOptions, listeners: DispatchListeners = new DispatchListeners()) {
    this.#options = options;
    this.#listeners = listeners;
    this.#membership = new Membership(listeners);
    this.#audience = new Audience(listeners);
    this.#clock = new ServerClock(options.clockSkewMs ?? 0);
    this.#connection = new ControlConnection(options, {
      onEvent: (message) => this.#onEvent(message),
      onPresence: (message) => this.#onPresence(message),
      onState: (message) => this.statePort.hooks?.onRemote(message),
      // The list of `joined` first, then each change behind it (see ControlConnectionHost.onJoined).
      onJoined: (message) => this.#membership.reset(message.members),
      onSignal: (message) => this.#mesh.onSignal(message.m),
      onWatchers: (count) => this.#audience.setCount(count),
      onSeat: () => this.#audience.seatAvailable(),
      onServerError: (error) => this.#emitError(error),
      onClose: () => {
        if (this.#state === 'connected' || this.#state === 'reconnecting') this.#scheduleReconnect();
      },
    });
    this.#receiver = new EventReceiver(this.#clock, listeners.events);
    this.#presence = new OwnPresence({
      membership: this.#membership,
      clientId: () => this.#info?.clientId,
      spectator: () => this.#audience.spectator,
      connected: () => this.#state === 'connected',
      send: (state) => this.#connection.request({ type: 'focus', state }),
      emitError: (error) => this.#emitError(error),
    });
    // What the sender reads of the session, read when it sends (the limits and id change with each join).
    // Getters cannot be arrows: they read the session's private fields through this name.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const session = this;
    const host = {
      get state(): SessionState {
        return session.#state;
      },
      get limits(): WireLimits {
        return session.#limits;
      },
      get clientId(): string | undefined {
        return session.#info?.clientId;
      },
      get userId(): string | null {
        return session.#userId;
      },
      deliverOwn(name: string, payloadJson: string): void {
        const self = session.#info?.clientId;
        if (self === undefined) return;
        const userId = session.#userId;
        // After emitEvent returned (as an event from the network comes), before its promise's reactions.
        queueMicrotask(() => session.#receiver.dispatchOwn(self, userId, name, payloadJson));
      },
    };
    this.#sender = new EventSender(host, this.#clock, this.#membership, {
      maxQueuedEvents: options.maxQueuedEvents ?? 1_000,
      receiveOwnBroadcasts: options.receiveOwnBroadcasts ?? true,
    });
    this.statePort = new StatePort(this.#connection, this.#sender, () => this.#limits);
    const connection = this.#connection;
    this.#mesh = new SessionMesh(options.peerTransport, {
      get url() {
        return connection.url;
      },
      members: this.#membership.members,
      receiver: this.#receiver,
      sender: this.#sender,
      write: (text) => connection.write(text),
      emitError: (error) => this.#emitError(error),
      onState: (from, update) => this.statePort.hooks?.onRemote({ type: 'state', from, update }),
    });
  }

  /** The server URL in use (or tried next). */
  get url(): string {
    return this.#connection.url;
  }

  // ─── public operations ────────────────────────────────────────────────────

  /** Connects (or returns the connection in progress or made). */
  connect(config: DispatchConfigurationInput = {}): Promise<ConnectionInfo> {
    if (this.#connecting && this.#state !== 'closed' && this.#state !== 'idle') return this.#connecting;
    const history = config.history;
    if (history !== undefined && !(Number.isInteger(history) && history >= 0 && history <= MAX_HISTORY_EVENTS)) {
      return Promise.reject(new PlatformError('INVALID_ARGUMENT', `history is a whole number of events, 0 to ${MAX_HISTORY_EVENTS}`));
    }
    if (config.shardName !== undefined && !isShardName(config.shardName)) {
      return Promise.reject(new PlatformError('INVALID_NAME', 'a shard name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter or digit'));
    }
    if (config.spectateWhenFull === true && config.shardName === undefined) {
      return Promise.reject(new PlatformError('INVALID_CONFIG', 'spectateWhenFull needs a shardName: only a named shard is ever full'));
    }
    this.#config = config;
    this.#authorization = config.authorization;
    this.#state = 'connecting';
    this.#connection.resetBackoff();
    // peerjs loads while the socket opens and the join is answered, not after (peer-transport.ts).
    this.#options.peerTransport?.prepare?.();
    this.#connecting = this.#open(false).then(
      (info) => info,
      (error: unknown) => {
        this.#teardown();
        this.#state = 'idle';
        const coded = isPlatformError(error) ? error : new PlatformError('INTERNAL', String(error));
        // Events emitted meanwhile fail with it (event-sender.ts, "While connect() is in progress").
        this.#sender.failWaiting(coded);
        // The shard's state waiting for this join settles too (its whenSynced() rejects with the code).
        this.statePort.hooks?.onConnectFailed(coded);
        throw error;
      },
    );
    return this.#connecting;
  }

  /** Leaves the shard and ends sockets, peer connections and timers. Idempotent. */
  async disconnect(): Promise<void> {
    if (this.#state === 'idle' || this.#state === 'closed') return;
    if (this.#connection.isOpen && this.#state === 'connected') {
      // Tell the server to drop us now rather than after the grace period; do not wait long for it.
      await this.#connection.request({ type: 'leave' }, 1_000).catch(() => undefined);
    }
    this.#state = 'closed';
    this.#teardown();
    this.#connection.failPending(new PlatformError('NOT_CONNECTED', 'disconnected'));
    this.#sender.clearQueue(new PlatformError('NOT_CONNECTED', 'disconnected before the event was sent'));
    this.#membership.clear();
    this.#info = null;
    this.#connecting = null;
  }

  /**
   * Emits an event to `recipients` (client ids or user ids) or to every member, this client
   * included unless `receiveOwnBroadcasts` is false; while `connect()` is in progress it waits for
   * the connection (event-sender.ts says how, and what a failure does).
   */
  emitEvent(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    if (this.#audience.spectator) return Promise.reject(new PlatformError('FORBIDDEN', 'a spectator cannot emit events: takeSeat() first'));
    return this.#sender.emit(eventName, payload, recipients);
  }

  /**
   * Tells the shard whether this client's viewer looks at it: `'here'` (in focus, a visible
   * page) or `'away'` (preloaded in a feed, scrolled past, a hidden tab). This client's own
   * listeners see the change at once; the others when the server tells them. Before `connect()`
   * (or while reconnecting) it goes with the join.
   */
  setPresenceState(state: PresenceState): void {
    this.#presence.set(state);
  }

  /** This client's presence state (see setPresenceState). */
  get presenceState(): PresenceState {
    return this.#presence.state;
  }

  /**
   * A spectator takes a seat among the players: resolves with the connection (the same client
   * id, now a player: the members, the mesh and emitEvent as after a join). Rejects `SHARD_FULL`
   * when no seat is free (the client watches on), `INVALID_ARGUMENT` when it plays already.
   */
  async takeSeat(): Promise<ConnectionInfo> {
    this.#assertConnected();
    if (!this.#audience.spectator) throw new PlatformError('INVALID_ARGUMENT', 'this client plays already: only a spectator takes a seat');
    const reply = await this.#connection.request({ type: 'takeSeat' });
    if (reply.type !== 'joined') throw new PlatformError('INVALID_MESSAGE', 'the server answered takeSeat with something else');
    this.#onJoined(reply, false);
    // A spectator's user info went nowhere (it is in no list): it goes with the seat.
    if (Object.keys(this.#userInfo).length > 0) await this.#connection.request({ type: 'userInfo', userInfo: this.#userInfo });
    return this.#info!;
  }

  /** Who watches: the spectator count and its listeners, and the seat listeners (`onCount`, `onSeat`). */
  get audience(): Audience {
    return this.#audience;
  }

  /** Identifies this client with a user token; rejects with `INVALID_TOKEN` or `TOKEN_EXPIRED` (still connected). */
  async identify(authToken: string): Promise<void> {
    if (typeof authToken !== 'string' || authToken.length === 0) throw new PlatformError('INVALID_ARGUMENT', 'identify needs a token');
    this.#assertConnected();
    const reply = await this.#connection.request({ type: 'identify', token: authToken });
    if (reply.type === 'ok') {
      this.#authorization = authToken;
      this.#userId = reply.userId ?? null;
    }
  }

  /** The project's active shards. */
  async info(): Promise<ShardInfo[]> {
    this.#assertConnected();
    const reply = await this.#connection.request({ type: 'info' });
    return reply.type === 'info' ? [...reply.shards] : [];
  }

  /** Replaces this client's user info (JSON, at most 4 KB); others see it in their presence list. */
  async setUserInfo(userInfo: EventPayload): Promise<void> {
    if (typeof userInfo !== 'object' || userInfo === null || Array.isArray(userInfo)) throw new PlatformError('INVALID_ARGUMENT', 'userInfo must be a plain object');
    try {
      assertPlainData(userInfo, this.#limits.maxUserInfoBytes);
    } catch (error) {
      throw isPlatformError(error) ? error : new PlatformError('INVALID_VALUE', String(error));
    }
    this.#userInfo = structuredClone(userInfo);
    // Not connected yet (or reconnecting): it goes with the next join.
    if (this.#state === 'connected') await this.#connection.request({ type: 'userInfo', userInfo: this.#userInfo });
  }

  /** Listens to an event. Returns the unsubscribe function. */
  on(eventName: string, callback: MessageHandlerCallback): () => void {
    return this.#listeners.events.add(eventName, callback);
  }

  /**
   * Listens to the shard's presence list. Returns the unsubscribe function.
   * Fires on connect, disconnect, `setUserInfo` and `identify` of any member,
   * with the whole list. Changes that reach this client together (the server
   * coalesces a shard's presence per turn and, in a burst, per
   * `presenceIntervalMs`, 25 ms by default) fire it once, with the list after
   * the last of them. A member is always listed before its first event arrives.
   */
  onConnectedClientsChanged(callback: ConnectedClientsChangedHandlerCallback, options?: PresenceListenerOptions): () => void {
    return this.#listeners.addPresence(callback, options);
  }

  /** Listens to errors no promise can carry. Returns the unsubscribe function. */
  onError(callback: DispatchErrorCallback): () => void {
    return this.#listeners.errors.add(callback);
  }

  /** The current connection (client id and shard), or null. */
  get connectionInfo(): ConnectionInfo | null {
    return this.#info;
  }
  /** Where the session stands. */
  get state(): SessionState {
    return this.#state;
  }
  /** This client's verified user id, or null. */
  get userId(): string | null {
    return this.#userId;
  }
  /** The shard's members now (this client included). */
  get connectedClients(): ConnectedClient[] {
    return this.#membership.connectedClients;
  }
  /** The data path per member (diagnostics, tests). */
  paths(): Record<string, 'peer' | 'connecting' | 'relay'> {
    const result: Record<string, 'peer' | 'connecting' | 'relay'> = {};
    for (const clientId of this.#membership.members.keys()) if (clientId !== this.#info?.clientId) result[clientId] = 'relay';
    return { ...result, ...(this.#sender.peer?.paths() ?? {}) };
  }
  /** The server-synced clock, in ms since the epoch. */
  serverNow(): number {
    return this.#clock.serverNow();
  }
  /** This client's local clock (with the test skew). */
  now(): number {
    return this.#clock.now();
  }
  /** Test hook: drops the control socket as a network failure would (no leave, no close handshake awaited). */
  dropSocketForTest(): void {
    this.#connection.dropForTest();
  }

  // ─── connection ───────────────────────────────────────────────────────────

  #open(resuming: boolean): Promise<ConnectionInfo> {
    const join = joinFrame({
      id: this.#connection.nextId(),
      options: this.#options,
      config: this.#config,
      authorization: this.#authorization,
      userInfo: this.#userInfo,
      presence: this.#presence.joining(),
      resuming,
      previous: this.#info,
      resumeToken: this.#resumeToken,
      stateVector: this.statePort.hooks?.stateVector(),
      // The mesh's offers and candidates on this socket: no PeerJS socket to open and wait for (peer-transport.ts).
      meshSignaling: this.#options.peerTransport !== undefined,
    });
    this.statePort.asked = join.stateVector !== undefined;
    return this.#connection.open(join, async (reply) => {
      this.#onJoined(reply, resuming);
      return this.#info!;
    });
  }

  #onJoined(reply: JoinedMessage, resuming: boolean): void {
    const previous = this.#info;
    const spectator = reply.spectator === true;
    this.#audience.spectator = spectator;
    // A player's connection stays exactly { clientId, shardName } (the spec's ConnectionInfo).
    this.#info = spectator ? { clientId: reply.clientId, shardName: reply.shardName, spectator } : { clientId: reply.clientId, shardName: reply.shardName };
    this.#audience.setCount(reply.watchers ?? 0);
    this.#resumeToken = reply.resumeToken;
    this.#limits = reply.limits;
    this.#userId = reply.userId;
    if (reply.identifyError) {
      const error = deserializeError(reply.identifyError);
      if (resuming || this.#authorization === this.#config.authorization) this.#authorization = undefined;
      this.#emitError(error);
    }
    if (resuming && previous && !previous.spectator && previous.clientId !== reply.clientId) {
      // Back after the grace period: a new id. Receivers keep order per id, so nothing to resend.
      this.#sender.forgetOrder();
      this.#emitError(new PlatformError('LINK_RESET', `reconnected as a new client ${reply.clientId} (was ${previous.clientId})`));
    }
    // The first guess of the server's clock: `s`, off by the one-way delay of `joined` (well under a
    // millisecond on loopback, half a round trip on a network). connect() does not wait for a ping
    // to do better: that round trip came before the application's first event and before the mesh's
    // first offer (issue 27). The samples that do better follow at once, below (clock.ts).
    this.#clock.restart(reply.s);
    // A first join starts a mesh that signals on a PeerJS socket now: that socket's handshake, the
    // offers and ICE take several round trips, and none of them needs the clock. A mesh that
    // signals on this socket (issue 27) has no handshake to wait for: it starts once the first clock
    // sample is back (below). A resume starts it after the new relay (below): a mesh it replaces
    // hands what it did not deliver to that relay.
    const meshOnControl = reply.peer?.control === true;
    if (!resuming && !meshOnControl) this.#mesh.start(reply);
    if (this.statePort.asked) this.statePort.hooks?.onSync(reply.state ?? null);
    this.#state = 'connected';
    this.#connection.resetBackoff();
    this.#sender.useRelay((text) => this.#connection.write(text), resuming && reply.resumed && previous?.clientId === reply.clientId ? reply.lastSeq : null);
    if (resuming) this.#mesh.start(reply);
    // The viewer looked (or looked away) while the join was on its way: the server hears it now.
    this.#presence.flush();
    this.#membership.notify();
    this.#scheduleHeartbeat();
    this.#sender.flushQueue();
    this.statePort.hooks?.onConnected();
    // Before connect() resolves: the listeners registered before it hear them (replayed: true).
    for (const event of reply.history ?? []) this.#receiver.replay(event.from, event.userId, event.name, event.payload, event.ts);
    const firstSample = this.#clock.refine(this.#ping, resuming ? CLOCK_SAMPLES_AT_RESUME : CLOCK_SAMPLES_AT_CONNECT);
    // The mesh starts once the first clock sample is back: one round trip after `joined`, when the
    // application's first events have left. Started at `joined` it held them back (first event by the
    // relay 145–194 → 229–323 ms p50); a task after it, each pair's setup took 55–85 ms longer and the
    // mesh was no sooner ready (players-meet, 8 members: bench/RESULTS.md, fifth session). Signals
    // for us meanwhile wait in session-mesh.ts.
    if (!resuming && meshOnControl) void firstSample.then(() => this.#state === 'connected' && this.#info?.clientId === reply.clientId && this.#mesh.start(reply));
  }

  #scheduleReconnect(): void {
    this.#state = 'reconnecting';
    this.#connection.stopHeartbeat();
    // The mesh ends with presence: the others drop us and we drop them until we are back.
    this.#sender.suspend();
    this.#connection.retry(
      () => this.#state === 'reconnecting',
      () => {
        this.#open(true).catch((error: unknown) => {
          if (this.#state !== 'reconnecting') return;
          const code = isPlatformError(error) ? error.code : 'INTERNAL';
          if (FINAL_JOIN_ERRORS.has(code)) {
            // No retry can fix these: give up and say why.
            this.#state = 'closed';
            this.#teardown();
            const coded = isPlatformError(error) ? error : new PlatformError(code, String(error));
            this.#emitError(coded);
            this.statePort.hooks?.onConnectFailed(coded);
          }
          // Otherwise the socket's close already scheduled the next attempt.
        });
      },
    );
  }

  #teardown(): void {
    this.#mesh.reset();
    this.#connection.close();
    this.#sender.close();
    this.#receiver.clear();
  }

  #scheduleHeartbeat(): void {
    const intervalMs = this.#limits.heartbeatIntervalMs;
    this.#connection.startHeartbeat(intervalMs, () => (this.#state === 'connected' ? this.#clock.sync(this.#ping, 1, intervalMs) : null));
  }

  #assertConnected(): void {
    if (this.#state !== 'connected') throw new PlatformError('NOT_CONNECTED', this.#state === 'reconnecting' ? 'reconnecting to the server' : 'connect() first');
  }

  // ─── what the server sends ────────────────────────────────────────────────

  #onEvent(message: EventMessage): void {
    this.#receiver.deliver(message.from, message.userId, message.seq, null, message.name, message.payload, message.ts);
  }

  #onPresence(message: PresenceMessage): void {
    // A batch (v2) is the changes of one server turn, in order: applied together, announced once.
    const self = this.#info?.clientId;
    const changes = message.op === 'batch' ? message.changes : [message];
    for (const change of changes) {
      const updated = this.#membership.apply(change);
      if (updated !== null && updated.clientId === self) this.#userId = updated.userId;
    }
    if (this.#info) this.#sender.peer?.setMembers([...this.#membership.members.values()], this.#info.clientId);
    this.#membership.notify();
  }

  #emitError(error: PlatformError): void {
    // Heard by nobody, it would vanish: the console has it then.
    if (this.#listeners.errors.size === 0) console.warn(error.message);
    this.#listeners.errors.notify(error);
  }
}
