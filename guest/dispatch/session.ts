/**
 * One Dispatch client's connection to the signaling server, shared by the
 * browser client (Platform.dispatch) and the Node backend client
 * (PlatformBackend.Dispatch): join, presence, identity, clock sync,
 * heartbeats, reconnection with resume, the offline queue, and delivery with
 * per-sender order and no duplicates over either data path.
 *
 * Guarantees, written down:
 * - Per-sender order, no duplicates: every event carries the sender's seq;
 *   a receiver drops a seq it has delivered, and holds a mesh frame back until
 *   the event sent before it to this receiver (its `prev`) was delivered.
 * - Delivery: to the listed recipients (client ids or verified user ids), or
 *   to every other member. A sender never receives its own event. "Every
 *   other member" means every member the sender knows of when it sends (its
 *   presence list; a broadcast that goes wholly by the relay also reaches any
 *   member the server has by then): a member whose join has not reached the
 *   sender yet (presence is some milliseconds on its way) may miss events
 *   sent meanwhile. The mesh cannot do better without sending every event
 *   through the server too; apps hand newcomers the state from
 *   onConnectedClientsChanged, which fires once the sender knows them.
 * - Offline: while the control socket is down (reconnecting), events wait in
 *   a bounded queue (`QUEUE_FULL` beyond it) and leave exactly once, in order,
 *   when the client is back.
 */
import { assertPlainData, plainDataJson } from '../../protocol/data.js';
import { deserializeError, isPlatformError, PlatformError, type ErrorCode } from '../../protocol/errors.js';
import {
  DEFAULT_MAX_EVENTS_PER_SECOND,
  DEFAULT_MAX_PAYLOAD_BYTES,
  encodeHandshakeJoin,
  eventFrameBody,
  isEventName,
  isShardName,
  MAX_RECIPIENTS,
  MAX_USER_INFO_BYTES,
  parseJsonObject,
  parsePeerFrame,
  parseServerMessage,
  preciseNow,
  SIGNALING_VERSION,
  type ConnectedClient,
  type EventPayload,
  type JoinMessage,
  type JoinedMessage,
  type MemberWire,
  type PresenceChange,
  type ServerMessage,
  type ShardInfo,
  type WireLimits,
} from '../../protocol/signaling.js';
import { RelayTransport } from './relay-transport.js';
import { TokenBucket } from './token-bucket.js';
import type { PeerTransport, PeerTransportFactory } from './transport.js';

/** What `connect` returns (spec: ConnectionInfo). */
export interface ConnectionInfo {
  /** Id of this client in its shard. */
  readonly clientId: string;
  /** The shard this client is in. */
  readonly shardName: string;
}

/** The argument of `connect` (spec: DispatchConfigurationInput). */
export interface DispatchConfigurationInput {
  /** Short-lived user token (from the identity service) identifying this client. */
  readonly authorization?: string;
  /** Capacity of a shard this client opens or joins. Default 100. */
  readonly maxConnectionsPerShard?: number;
  /** A shard to join by name; without it the server places the client. */
  readonly shardName?: string;
}

/** Metadata of a received event (spec: DispatchMessageMetadata, plus the sender). */
export interface DispatchMessageMetadata {
  /** One-way latency in ms: send time to receive time on the server-synced clock. */
  readonly latencyMs: number;
  /** The sender's client id. */
  readonly clientId: string;
  /** The sender's verified user id, or null when it is not identified. */
  readonly userId: string | null;
}

/** Callback of `on` (spec: MessageHandlerCallback). */
export type MessageHandlerCallback = (payload: EventPayload, metadata: DispatchMessageMetadata) => void;
/** Callback of `onConnectedClientsChanged` (spec: ConnectedClientsChangedHandlerCallback). */
export type ConnectedClientsChangedHandlerCallback = (connectedClients: readonly ConnectedClient[]) => void;
/** Callback for errors that no promise can carry (a relayed event refused, a reconnection given up). */
export type DispatchErrorCallback = (error: PlatformError) => void;

/** The smallest WebSocket both the browser's and `ws`'s satisfy. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** Options of a session. */
export interface SessionOptions {
  /**
   * `ws(s)://host:port/dispatch`, or several: the nodes of one server (Redis
   * scale-out). The first is used first; each reconnection attempt moves to
   * the next one (after the jittered delay), so the clients of a node that
   * died spread over the others and keep their ids within the grace period.
   */
  readonly url: string | readonly string[];
  readonly projectId: string;
  /** Backend clients only. */
  readonly projectToken?: string;
  readonly kind: 'browser' | 'backend';
  /**
   * Opens a WebSocket. `protocols`, when given, carry the join in the
   * handshake (v2, one round trip): pass them on as the WebSocket
   * constructor's second argument.
   */
  readonly createSocket: (url: string, protocols?: readonly string[]) => SocketLike;
  /** Browser clients: the mesh. */
  readonly peerTransport?: PeerTransportFactory;
  /** First reconnection delay; doubles per attempt with jitter up to `reconnectMaxDelayMs`. Default 250. */
  readonly reconnectInitialDelayMs?: number;
  /** Cap of the reconnection delay. Default 30,000. */
  readonly reconnectMaxDelayMs?: number;
  /** Events kept while offline before `QUEUE_FULL`. Default 1,000. */
  readonly maxQueuedEvents?: number;
  /** A request without an answer fails with `CALL_TIMEOUT` after this. Default 10,000. */
  readonly requestTimeoutMs?: number;
  /** Test hook: added to this client's clock, to show that clock sync cancels it. Default 0. */
  readonly clockSkewMs?: number;
}

interface Pending {
  resolve(message: ServerMessage): void;
  reject(error: PlatformError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A mesh frame held back until the event sent before it (its `prev`) was delivered. */
interface HeldEvent {
  readonly seq: number;
  readonly prev: number;
  readonly userId: string | null;
  readonly name: string;
  readonly payload: EventPayload;
  readonly ts: number;
}

interface Inbound {
  last: number;
  held: HeldEvent[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** An event waiting for the connection: its payload already checked and serialized. */
interface QueuedEvent {
  readonly name: string;
  readonly payloadJson: string;
  readonly recipients: readonly string[] | null;
  readonly ts: number;
}

/**
 * What `emitEvent` returns once an event is sent or queued: one settled
 * promise for every call, not one per event (the hot path allocates as
 * little as it can).
 */
const SENT: Promise<void> = Promise.resolve();

type State = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

const DEFAULT_LIMITS: WireLimits = {
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  maxEventsPerSecond: DEFAULT_MAX_EVENTS_PER_SECOND,
  maxUserInfoBytes: MAX_USER_INFO_BYTES,
  meshMaxMembers: 16,
  reconnectGraceMs: 30_000,
  heartbeatIntervalMs: 10_000,
};
/** A mesh frame whose predecessor never comes (its channel died with it) is delivered after this. */
const HOLD_MS = 3_000;
const CLOCK_SAMPLES_AT_CONNECT = 5;
const CLOCK_WINDOW = 8;

/** The shared client. Wrapped by `Platform.dispatch` and `PlatformBackend.Dispatch`. */
export class DispatchSession {
  readonly #options: SessionOptions;
  #state: State = 'idle';
  #socket: SocketLike | null = null;
  #connecting: Promise<ConnectionInfo> | null = null;
  #config: DispatchConfigurationInput = {};
  #info: ConnectionInfo | null = null;
  #resumeToken = '';
  #limits: WireLimits = DEFAULT_LIMITS;
  #authorization: string | undefined;
  #userInfo: EventPayload = {};
  #userId: string | null = null;
  #nextId = 1;
  #seq = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #members = new Map<string, MemberWire>();
  /**
   * Listeners per event name, copy-on-write: `on` and unsubscribing replace the array, so a
   * delivery walks the array it found without copying it, and a listener added or removed
   * meanwhile takes effect from the next event.
   */
  readonly #listeners = new Map<string, readonly MessageHandlerCallback[]>();
  readonly #presenceListeners = new Set<ConnectedClientsChangedHandlerCallback>();
  readonly #errorListeners = new Set<DispatchErrorCallback>();
  readonly #inbound = new Map<string, Inbound>();
  readonly #lastSentTo = new Map<string, number>();
  readonly #queue: QueuedEvent[] = [];
  /** The last event name that passed `isEventName` (most apps emit a few names over and over); null before the first. */
  #checkedEventName: string | null = null;
  #relay: RelayTransport | null = null;
  #peer: PeerTransport | null = null;
  #peerKey = '';
  #clock: { rtt: number; offset: number }[] = [];
  #offset = 0;
  /** This client's own events: `maxEventsPerSecond`, bursts of twice that (as the server counts). */
  readonly #eventBucket = new TokenBucket(DEFAULT_MAX_EVENTS_PER_SECOND * 2);
  #heartbeat: ReturnType<typeof setTimeout> | undefined;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;

  /** The test skew of this client's clock (SessionOptions.clockSkewMs), read on every clock read. */
  readonly #skew: number;
  readonly #urls: readonly string[];
  #urlIndex = 0;

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#skew = options.clockSkewMs ?? 0;
    this.#urls = typeof options.url === 'string' ? [options.url] : [...options.url];
    if (this.#urls.length === 0) throw new PlatformError('INVALID_CONFIG', 'at least one server URL is needed');
  }

  /** The server URL in use (or tried next). */
  get url(): string {
    return this.#urls[this.#urlIndex % this.#urls.length]!;
  }

  // ─── public operations ────────────────────────────────────────────────────

  /** Connects (or returns the connection in progress or made). */
  connect(config: DispatchConfigurationInput = {}): Promise<ConnectionInfo> {
    if (this.#connecting && this.#state !== 'closed' && this.#state !== 'idle') return this.#connecting;
    if (config.shardName !== undefined && !isShardName(config.shardName)) {
      return Promise.reject(new PlatformError('INVALID_NAME', 'a shard name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter or digit'));
    }
    this.#config = config;
    this.#authorization = config.authorization;
    this.#state = 'connecting';
    this.#attempt = 0;
    this.#connecting = this.#open(false).then(
      (info) => info,
      (error: unknown) => {
        this.#teardown();
        this.#state = 'idle';
        throw error;
      },
    );
    return this.#connecting;
  }

  /** Leaves the shard and ends sockets, peer connections and timers. Idempotent. */
  async disconnect(): Promise<void> {
    if (this.#state === 'idle' || this.#state === 'closed') return;
    const socket = this.#socket;
    if (socket && socket.readyState === 1 && this.#state === 'connected') {
      // Tell the server to drop us now rather than after the grace period; do not wait long for it.
      await this.#request({ type: 'leave' }, 1_000).catch(() => undefined);
    }
    this.#state = 'closed';
    this.#teardown();
    this.#failPending(new PlatformError('NOT_CONNECTED', 'disconnected'));
    if (this.#queue.length > 0) this.#queue.length = 0;
    this.#members.clear();
    this.#info = null;
    this.#connecting = null;
  }

  /** Emits an event to `recipients` (client ids or user ids) or to every other member. */
  emitEvent(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    try {
      if (eventName !== this.#checkedEventName) {
        if (!isEventName(eventName)) {
          throw new PlatformError('INVALID_NAME', 'an event name is 1 to 64 of A-Z a-z 0-9 _ . : / -, starting with a letter or digit, not "platform:…"');
        }
        this.#checkedEventName = eventName;
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new PlatformError('INVALID_ARGUMENT', 'the payload must be a plain object');
      }
      // Checked and serialized once: this text is what every path sends (and what waits in the
      // offline queue, so a payload changed after emitEvent returned is not what goes out).
      let payloadJson: string;
      try {
        payloadJson = plainDataJson(payload, this.#limits.maxPayloadBytes);
      } catch (error) {
        if (isPlatformError(error) && error.code === 'VALUE_TOO_LARGE') throw new PlatformError('PAYLOAD_TOO_LARGE', error.message);
        throw error;
      }
      const list = recipients === undefined ? null : typeof recipients === 'string' ? [recipients] : [...recipients];
      if (list && (list.length > MAX_RECIPIENTS || !list.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 256))) {
        throw new PlatformError('INVALID_ARGUMENT', `recipients are 0 to ${MAX_RECIPIENTS} client ids or user ids`);
      }
      if (this.#state === 'idle' || this.#state === 'closed') throw new PlatformError('NOT_CONNECTED', 'connect() first');
      // One clock read for both: the rate limit's refill and the send time.
      const clock = preciseNow();
      if (!this.#takeToken(clock)) throw new PlatformError('RATE_LIMITED', `more than ${this.#limits.maxEventsPerSecond} events per second`);
      // Send time on the server-synced clock (serverNow() at `clock`): receivers subtract it from theirs.
      const ts = clock + this.#skew + this.#offset;
      if (this.#state !== 'connected') {
        if (this.#queue.length >= (this.#options.maxQueuedEvents ?? 1_000)) {
          throw new PlatformError('QUEUE_FULL', `${this.#queue.length} events already wait for the connection; this one was not sent`);
        }
        this.#queue.push({ name: eventName, payloadJson, recipients: list, ts });
        return SENT;
      }
      this.#send(eventName, payloadJson, list, ts);
      return SENT;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Identifies this client with a user token; rejects with `INVALID_TOKEN` or `TOKEN_EXPIRED` (still connected). */
  async identify(authToken: string): Promise<void> {
    if (typeof authToken !== 'string' || authToken.length === 0) throw new PlatformError('INVALID_ARGUMENT', 'identify needs a token');
    this.#assertConnected();
    const reply = await this.#request({ type: 'identify', token: authToken });
    if (reply.type === 'ok') {
      this.#authorization = authToken;
      this.#userId = reply.userId ?? null;
    }
  }

  /** The project's active shards. */
  async info(): Promise<ShardInfo[]> {
    this.#assertConnected();
    const reply = await this.#request({ type: 'info' });
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
    if (this.#state === 'connected') await this.#request({ type: 'userInfo', userInfo: this.#userInfo });
  }

  /** Listens to an event. Returns the unsubscribe function. */
  on(eventName: string, callback: MessageHandlerCallback): () => void {
    if (typeof callback !== 'function') throw new PlatformError('INVALID_ARGUMENT', 'on() needs a callback');
    this.#listeners.set(eventName, [...(this.#listeners.get(eventName) ?? []), callback]);
    let subscribed = true;
    return () => {
      // Once: a callback added twice is two subscriptions, and each unsubscribe removes one.
      if (!subscribed) return;
      subscribed = false;
      const current = this.#listeners.get(eventName) ?? [];
      const index = current.indexOf(callback);
      if (index < 0) return;
      const rest = [...current.slice(0, index), ...current.slice(index + 1)];
      if (rest.length > 0) this.#listeners.set(eventName, rest);
      else this.#listeners.delete(eventName);
    };
  }

  /**
   * Listens to the shard's presence list. Returns the unsubscribe function.
   * Fires on connect, disconnect, `setUserInfo` and `identify` of any member,
   * with the whole list. Changes that reach this client together (the server
   * coalesces a shard's presence per turn and, in a burst, per
   * `presenceIntervalMs`, 25 ms by default) fire it once, with the list after
   * the last of them. A member is always listed before its first event arrives.
   */
  onConnectedClientsChanged(callback: ConnectedClientsChangedHandlerCallback): () => void {
    const entry: ConnectedClientsChangedHandlerCallback = (clients) => callback(clients);
    this.#presenceListeners.add(entry);
    return () => {
      this.#presenceListeners.delete(entry);
    };
  }

  /** Listens to errors no promise can carry. Returns the unsubscribe function. */
  onError(callback: DispatchErrorCallback): () => void {
    const entry: DispatchErrorCallback = (error) => callback(error);
    this.#errorListeners.add(entry);
    return () => {
      this.#errorListeners.delete(entry);
    };
  }

  /** The current connection (client id and shard), or null. */
  get connectionInfo(): ConnectionInfo | null {
    return this.#info;
  }
  /** Where the session stands. */
  get state(): State {
    return this.#state;
  }
  /** This client's verified user id, or null. */
  get userId(): string | null {
    return this.#userId;
  }
  /** The shard's members now (this client included). */
  get connectedClients(): ConnectedClient[] {
    return [...this.#members.values()].map(toClient);
  }
  /** The data path per member (diagnostics, tests). */
  paths(): Record<string, 'peer' | 'connecting' | 'relay'> {
    const result: Record<string, 'peer' | 'connecting' | 'relay'> = {};
    for (const clientId of this.#members.keys()) if (clientId !== this.#info?.clientId) result[clientId] = 'relay';
    return { ...result, ...(this.#peer?.paths() ?? {}) };
  }
  /** The server-synced clock, in ms since the epoch. */
  serverNow(): number {
    return preciseNow() + this.#skew + this.#offset;
  }
  /** This client's local clock (with the test skew). */
  now(): number {
    return preciseNow() + this.#skew;
  }
  /** Test hook: drops the control socket as a network failure would (no leave, no close handshake awaited). */
  dropSocketForTest(): void {
    this.#socket?.close(4000, 'test drop');
  }

  // ─── connection ───────────────────────────────────────────────────────────

  #open(resuming: boolean): Promise<ConnectionInfo> {
    return new Promise<ConnectionInfo>((resolve, reject) => {
      const info = this.#info;
      const join: JoinMessage = {
        type: 'join',
        v: SIGNALING_VERSION,
        id: this.#nextId++,
        projectId: this.#options.projectId,
        kind: this.#options.kind,
        ...(this.#options.projectToken !== undefined ? { projectToken: this.#options.projectToken } : {}),
        ...(this.#config.shardName !== undefined ? { shardName: this.#config.shardName } : {}),
        ...(this.#config.maxConnectionsPerShard !== undefined ? { maxConnectionsPerShard: this.#config.maxConnectionsPerShard } : {}),
        ...(this.#authorization !== undefined ? { authorization: this.#authorization } : {}),
        userInfo: this.#userInfo,
        ...(resuming && info ? { resume: { clientId: info.clientId, resumeToken: this.#resumeToken } } : {}),
      };
      // One round trip: the join rides in the handshake and `joined` comes right behind the 101.
      // A join that cannot (a project token, too large) is sent once the socket is open.
      const protocols = encodeHandshakeJoin(join);
      let socket: SocketLike;
      try {
        socket = protocols ? this.#options.createSocket(this.url, protocols) : this.#options.createSocket(this.url);
      } catch (error) {
        reject(new PlatformError('NOT_CONNECTED', `cannot open ${this.url}: ${String(error)}`));
        return;
      }
      this.#socket = socket;
      let settled = false;
      const settle = (error: PlatformError | null, info?: ConnectionInfo): void => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve(info!);
      };
      const finish = (answer: Promise<ServerMessage>): void => {
        answer
          .then(async (reply) => {
            if (reply.type !== 'joined') throw new PlatformError('INVALID_MESSAGE', 'the server answered join with something else');
            await this.#onJoined(reply, resuming);
            settle(null, this.#info!);
          })
          .catch((error: unknown) => {
            const coded = isPlatformError(error) ? error : new PlatformError('INTERNAL', String(error));
            settle(coded);
            if (this.#socket === socket) socket.close(1000, 'join failed');
          });
      };
      // Waited for from now on: with a handshake join the answer is the first frame after `open`.
      if (protocols) finish(this.#expect(join.id));
      socket.onopen = () => {
        if (this.#socket !== socket) return;
        if (!protocols) finish(this.#request(join));
      };
      socket.onmessage = (event) => {
        if (this.#socket === socket) this.#onFrame(event.data);
      };
      socket.onerror = () => {
        // The close event follows and carries the decision.
      };
      socket.onclose = (event) => {
        if (this.#socket !== socket) return;
        this.#socket = null;
        this.#failPending(new PlatformError('NOT_CONNECTED', 'the connection to the server closed'));
        settle(new PlatformError('NOT_CONNECTED', `the connection to the server closed (code ${event.code})`));
        if (this.#state === 'connected' || this.#state === 'reconnecting') this.#scheduleReconnect();
      };
    });
  }

  async #onJoined(reply: JoinedMessage, resuming: boolean): Promise<void> {
    const previous = this.#info;
    this.#info = { clientId: reply.clientId, shardName: reply.shardName };
    this.#resumeToken = reply.resumeToken;
    this.#limits = reply.limits;
    this.#userId = reply.userId;
    this.#members.clear();
    for (const member of reply.members) this.#members.set(member.clientId, member);
    if (reply.identifyError) {
      const error = deserializeError(reply.identifyError);
      if (resuming || this.#authorization === this.#config.authorization) this.#authorization = undefined;
      this.#emitError(error);
    }
    if (resuming && previous && previous.clientId !== reply.clientId) {
      // Back after the grace period: a new id. Receivers keep order per id, so nothing to resend.
      this.#lastSentTo.clear();
      this.#emitError(new PlatformError('LINK_RESET', `reconnected as a new client ${reply.clientId} (was ${previous.clientId})`));
    }
    this.#offset = reply.s - this.now();
    this.#clock = [];
    await this.#syncClock(resuming ? 3 : CLOCK_SAMPLES_AT_CONNECT);
    this.#state = 'connected';
    this.#attempt = 0;
    this.#relay = new RelayTransport((text) => this.#write(text));
    if (resuming && reply.resumed && previous?.clientId === reply.clientId) this.#relayOld?.resendAfter(reply.lastSeq);
    this.#relayOld?.close();
    this.#relayOld = null;
    this.#startPeer(reply);
    this.#notifyPresence();
    this.#scheduleHeartbeat();
    // Events queued while offline leave now, once, in order.
    for (const item of this.#queue.splice(0)) this.#send(item.name, item.payloadJson, item.recipients, item.ts);
  }
  #relayOld: RelayTransport | null = null;

  #startPeer(reply: JoinedMessage): void {
    const factory = this.#options.peerTransport;
    if (!factory || !reply.peer) return;
    const key = `${reply.peer.id}/${reply.peer.token}`;
    if (this.#peer && this.#peerKey === key) {
      this.#peer.setMembers([...this.#members.values()], reply.clientId);
      return;
    }
    // A new peer id (resumed on another node): what the old channels have not delivered goes by the relay.
    this.#peer?.close(true);
    this.#peerKey = key;
    this.#peer = factory(
      // The peer id is registered on the node this socket joined: its PeerJS endpoint is that node's.
      {
        url: this.url,
        peerId: reply.peer.id,
        peerToken: reply.peer.token,
        meshMaxMembers: reply.limits.meshMaxMembers,
        maxEventsPerSecond: reply.limits.maxEventsPerSecond,
        maxPayloadBytes: reply.limits.maxPayloadBytes,
      },
      {
        onFrame: (clientId, text) => this.#onPeerFrame(clientId, text),
        onUndelivered: (clientId, seqs, bodies) => this.#resendByRelay(clientId, seqs, bodies),
        onRefused: (_clientId, error) => this.#emitError(error),
      },
    );
    this.#peer.setMembers([...this.#members.values()], reply.clientId);
  }

  #scheduleReconnect(): void {
    this.#state = 'reconnecting';
    clearTimeout(this.#heartbeat);
    // The mesh ends with presence: the others drop us and we drop them until we are back.
    this.#relayOld = this.#relay ?? this.#relayOld;
    this.#relay = null;
    const cap = this.#options.reconnectMaxDelayMs ?? 30_000;
    const base = Math.min(cap, (this.#options.reconnectInitialDelayMs ?? 250) * 2 ** Math.min(this.#attempt, 20));
    // Full jitter on the upper half: a server restart is not met by every client at the same instant.
    const delay = base / 2 + Math.random() * (base / 2);
    this.#attempt++;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = setTimeout(() => {
      if (this.#state !== 'reconnecting') return;
      // Many nodes: every attempt tries the next one (its node may be the one that died).
      if (this.#urls.length > 1) this.#urlIndex = (this.#urlIndex + 1) % this.#urls.length;
      this.#open(true).catch((error: unknown) => {
        if (this.#state !== 'reconnecting') return;
        const code = isPlatformError(error) ? error.code : 'INTERNAL';
        if (code === 'UNAUTHORIZED' || code === 'ORIGIN_REFUSED' || code === 'SHARD_FULL' || code === 'TOO_MANY_SHARDS' || code === 'UNSUPPORTED') {
          // No retry can fix these: give up and say why.
          this.#state = 'closed';
          this.#teardown();
          this.#emitError(isPlatformError(error) ? error : new PlatformError(code as ErrorCode, String(error)));
        }
        // Otherwise the socket's close already scheduled the next attempt.
      });
    }, delay);
  }

  #teardown(): void {
    clearTimeout(this.#heartbeat);
    clearTimeout(this.#reconnectTimer);
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      socket.onclose = socket.onmessage = socket.onopen = null;
      socket.onerror = () => {};
      try {
        socket.close(1000, 'disconnect');
      } catch {
        // Closing a socket that is still connecting throws in some engines; it is being dropped anyway.
      }
    }
    this.#peer?.close();
    this.#peer = null;
    this.#peerKey = '';
    this.#relay?.close();
    this.#relay = null;
    this.#relayOld?.close();
    this.#relayOld = null;
    for (const inbound of this.#inbound.values()) clearTimeout(inbound.timer);
    this.#inbound.clear();
    this.#lastSentTo.clear();
  }

  // ─── heartbeat and clock ──────────────────────────────────────────────────

  #scheduleHeartbeat(): void {
    clearTimeout(this.#heartbeat);
    this.#heartbeat = setTimeout(() => {
      if (this.#state !== 'connected') return;
      const socket = this.#socket;
      this.#syncClock(1, this.#limits.heartbeatIntervalMs).then(
        () => this.#scheduleHeartbeat(),
        () => {
          // No pong within an interval: the socket is dead even if the browser has not noticed.
          if (this.#socket === socket && socket) socket.close(4001, 'heartbeat timeout');
        },
      );
    }, this.#limits.heartbeatIntervalMs);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  /** NTP-style: offset = server time − midpoint of the round trip; the sample with the smallest round trip wins. */
  async #syncClock(samples: number, timeoutMs = 5_000): Promise<void> {
    for (let i = 0; i < samples; i++) {
      const c = this.now();
      const reply = await this.#request({ type: 'ping', c }, timeoutMs);
      const end = this.now();
      if (reply.type !== 'pong') continue;
      const rtt = end - reply.c;
      this.#clock.push({ rtt, offset: reply.s - (reply.c + end) / 2 });
      if (this.#clock.length > CLOCK_WINDOW) this.#clock.shift();
    }
    let best = this.#clock[0];
    for (const sample of this.#clock) if (best === undefined || sample.rtt < best.rtt) best = sample;
    if (best) this.#offset = best.offset;
  }

  // ─── requests ─────────────────────────────────────────────────────────────

  /** Sends a request (with a fresh id, or the one it carries) and waits for its answer. */
  #request(message: JoinMessage | { type: string; [key: string]: unknown }, timeoutMs = this.#options.requestTimeoutMs ?? 10_000): Promise<ServerMessage> {
    const id = typeof message.id === 'number' ? message.id : this.#nextId++;
    const answer = this.#expect(id, message.type, timeoutMs);
    if (!this.#write(JSON.stringify({ ...message, id }))) {
      const pending = this.#pending.get(id);
      if (pending) {
        clearTimeout(pending.timer);
        this.#pending.delete(id);
        pending.reject(new PlatformError('NOT_CONNECTED', 'not connected to the server'));
      }
    }
    return answer;
  }

  /** Waits for the answer with `id` (`CALL_TIMEOUT` after `timeoutMs`). */
  #expect(id: number, what = 'join', timeoutMs = this.#options.requestTimeoutMs ?? 10_000): Promise<ServerMessage> {
    return new Promise<ServerMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new PlatformError('CALL_TIMEOUT', `no answer to ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
    });
  }

  #write(text: string): boolean {
    const socket = this.#socket;
    if (!socket || socket.readyState !== 1) return false;
    socket.send(text);
    return true;
  }

  #failPending(error: PlatformError): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      pending.reject(error);
    }
  }

  #assertConnected(): void {
    if (this.#state !== 'connected') throw new PlatformError('NOT_CONNECTED', this.#state === 'reconnecting' ? 'reconnecting to the server' : 'connect() first');
  }

  // ─── sending ──────────────────────────────────────────────────────────────

  /** `now` is {@link preciseNow}. */
  #takeToken(now: number): boolean {
    const rate = this.#limits.maxEventsPerSecond;
    return this.#eventBucket.take(now, rate, rate * 2);
  }

  #send(name: string, payloadJson: string, recipients: readonly string[] | null, ts: number): void {
    const relay = this.#relay;
    if (!relay) return;
    const seq = ++this.#seq;
    // Serialized once for every path and recipient; each path only wraps it.
    const body = eventFrameBody(seq, name, payloadJson, ts);
    const peer = this.#peer;
    if (!peer) {
      relay.send(seq, body, recipients);
      return;
    }
    // Resolve recipients against presence: the mesh takes whom it reaches, the relay the rest.
    const lastSentTo = this.#lastSentTo;
    const self = this.#info?.clientId;
    let direct = 0;
    let relayed: string[] | null = null;
    const unresolved = recipients ? new Set(recipients) : null;
    for (const member of this.#members.values()) {
      const clientId = member.clientId;
      if (clientId === self) continue;
      if (recipients) {
        const named = recipients.includes(clientId) || (member.userId !== null && recipients.includes(member.userId));
        if (!named) continue;
        unresolved?.delete(clientId);
        if (member.userId !== null) unresolved?.delete(member.userId);
      }
      // `prev` is the event sent to this member before, by either path: read before it moves on.
      if (peer.sendTo(clientId, seq, lastSentTo.get(clientId) ?? 0, body)) direct++;
      else (relayed ??= []).push(clientId);
      lastSentTo.set(clientId, seq);
    }
    if (!recipients && direct === 0) relay.send(seq, body, null);
    else if (relayed !== null || (unresolved && unresolved.size > 0)) relay.send(seq, body, [...(relayed ?? []), ...(unresolved ?? [])]);
  }

  // ─── receiving ────────────────────────────────────────────────────────────

  #onFrame(data: unknown): void {
    const message = parseServerMessage(parseJsonObject(typeof data === 'string' ? data : String(data)));
    if (message === null) return; // a server bug or a hostile proxy: dropped, never acted on
    switch (message.type) {
      case 'event':
        return this.#deliver(message.from, message.userId, message.seq, null, message.name, message.payload, message.ts);
      case 'presence':
        // A batch (v2) is the changes of one server turn, in order: applied together, announced once.
        if (message.op === 'batch') for (const change of message.changes) this.#applyPresence(change);
        else this.#applyPresence(message);
        if (this.#info) this.#peer?.setMembers([...this.#members.values()], this.#info.clientId);
        return this.#notifyPresence();
      case 'error': {
        const error = deserializeError(message.error);
        const pending = message.id !== undefined ? this.#pending.get(message.id) : undefined;
        if (pending && message.id !== undefined) {
          clearTimeout(pending.timer);
          this.#pending.delete(message.id);
          return pending.reject(error);
        }
        return this.#emitError(error);
      }
      default: {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        clearTimeout(pending.timer);
        this.#pending.delete(message.id);
        pending.resolve(message);
      }
    }
  }

  #applyPresence(change: PresenceChange): void {
    if (change.op === 'remove') {
      this.#members.delete(change.clientId);
      return;
    }
    this.#members.set(change.member.clientId, change.member);
    if (change.op === 'update' && change.member.clientId === this.#info?.clientId) this.#userId = change.member.userId;
  }

  /** Returns the frame's seq for the transport to acknowledge, or 0 when it was not a valid event of a member. */
  #onPeerFrame(clientId: string, text: string): number {
    const frame = parsePeerFrame(text);
    const member = this.#members.get(clientId);
    if (!frame || !member) return 0;
    this.#deliver(clientId, member.userId, frame.seq, frame.prev, frame.name, frame.payload, frame.ts);
    return frame.seq;
  }

  /**
   * Events a dead data channel took and did not deliver, to the one member
   * behind it: by the relay, in order. While reconnecting they wait in the old
   * relay's kept frames and leave with its resend.
   */
  #resendByRelay(clientId: string, seqs: readonly number[], bodies: readonly string[]): void {
    const relay = this.#relay ?? (this.#state === 'reconnecting' ? this.#relayOld : null);
    if (!relay) return;
    for (let i = 0; i < seqs.length; i++) relay.resend(seqs[i]!, bodies[i]!, clientId);
  }

  #deliver(from: string, userId: string | null, seq: number, prev: number | null, name: string, payload: EventPayload, ts: number): void {
    let inbound = this.#inbound.get(from);
    if (!inbound) this.#inbound.set(from, (inbound = { last: 0, held: [], timer: undefined }));
    if (seq <= inbound.last) return; // a duplicate
    const held = inbound.held;
    if (held.length > 0) {
      for (const item of held) if (item.seq === seq) return; // a duplicate of one held back
    }
    if (prev !== null && prev > inbound.last) {
      // The event sent before this one is still on its way by the relay: hold this one back.
      held.push({ seq, prev, userId, name, payload, ts });
      held.sort((a, b) => a.seq - b.seq);
      const state = inbound;
      state.timer ??= setTimeout(() => this.#releaseHeld(from, state, true), HOLD_MS);
      return;
    }
    inbound.last = seq;
    this.#dispatchEvent(from, userId, name, payload, ts);
    if (held.length > 0) this.#releaseHeld(from, inbound, false);
  }

  /** Calls the event's listeners. latencyMs is taken now: for an event held back, when it is let go. */
  #dispatchEvent(from: string, userId: string | null, name: string, payload: EventPayload, ts: number): void {
    const listeners = this.#listeners.get(name);
    if (listeners === undefined) return;
    // One metadata object per event, shared by its listeners as the payload is (both are theirs to read).
    const metadata: DispatchMessageMetadata = { latencyMs: Math.max(0, this.serverNow() - ts), clientId: from, userId };
    for (const callback of listeners) {
      try {
        callback(payload, metadata);
      } catch (error) {
        // One listener's bug must not stop the others or the stream.
        console.error('platform-kit: an event listener threw', error);
      }
    }
  }

  #releaseHeld(from: string, inbound: Inbound, force: boolean): void {
    if (force) inbound.timer = undefined;
    while (inbound.held.length > 0) {
      const next = inbound.held[0]!;
      if (!force && next.prev > inbound.last) break;
      inbound.held.shift();
      if (next.seq <= inbound.last) continue;
      inbound.last = next.seq;
      this.#dispatchEvent(from, next.userId, next.name, next.payload, next.ts);
    }
    if (inbound.held.length === 0 && inbound.timer !== undefined) {
      clearTimeout(inbound.timer);
      inbound.timer = undefined;
    }
  }

  #notifyPresence(): void {
    const clients = this.connectedClients;
    for (const callback of [...this.#presenceListeners]) {
      try {
        callback(clients);
      } catch (error) {
        console.error('platform-kit: a presence listener threw', error);
      }
    }
  }

  #emitError(error: PlatformError): void {
    if (this.#errorListeners.size === 0) console.warn(error.message);
    for (const callback of [...this.#errorListeners]) {
      try {
        callback(error);
      } catch (listenerError) {
        console.error('platform-kit: an error listener threw', listenerError);
      }
    }
  }
}

function toClient(member: MemberWire): ConnectedClient {
  return { clientId: member.clientId, userInfo: member.userInfo, userId: member.userId, connectedAt: member.connectedAt };
}
