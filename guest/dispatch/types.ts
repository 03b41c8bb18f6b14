/**
 * The shapes of Dispatch that callers see (the spec's ConnectionInfo,
 * DispatchConfigurationInput, metadata and callbacks) and the session's own
 * options. Apart so that every piece of the client (the session, the control
 * connection, the sender, the receiver) and both entry points (the browser's
 * Platform.dispatch, the backend's PlatformBackend.Dispatch) share one
 * definition without importing the session itself.
 */
import type { StateRelayMessage, StateResyncMessage, StateSyncReply } from '../../protocol/signaling.js';
import type { PlatformError } from '../../protocol/errors.js';
import type { ConnectedClient, EventPayload } from '../../protocol/signaling.js';
import type { PeerTransportFactory } from './transport.js';

/** What `connect` returns (spec: ConnectionInfo). */
export interface ConnectionInfo {
  /** Id of this client in its shard. */
  readonly clientId: string;
  /** The shard this client is in. */
  readonly shardName: string;
  /**
   * True when this client watches the shard (`spectator`, or `spectateWhenFull` at a full
   * shard): it hears broadcasts and presence, is in no member list and cannot emit. Absent for a
   * player. Beyond the spec.
   */
  readonly spectator?: true;
}

/** The argument of `connect` (spec: DispatchConfigurationInput). */
export interface DispatchConfigurationInput {
  /** Short-lived user token (from the identity service) identifying this client. */
  readonly authorization?: string;
  /** Capacity of a shard this client opens or joins. Default 100. */
  readonly maxConnectionsPerShard?: number;
  /** A shard to join by name; without it the server places the client. */
  readonly shardName?: string;
  /**
   * Watch instead of play: the client hears the shard's broadcasts, its players' presence and
   * how many watch (`onSpectatorsChanged`), through the server (never the players' mesh); it
   * does not count toward `maxConnectionsPerShard`, and `emitEvent` rejects `FORBIDDEN`.
   * With `shardName` it watches that shard; without, the project's shard with the most
   * players (`NOT_FOUND` when there is none). `takeSeat()` makes it a player when a seat is
   * free (`onSeatAvailable` says when). Beyond the spec.
   */
  readonly spectator?: boolean;
  /**
   * With `shardName`: when that shard is full, watch it as a spectator (see `spectator`)
   * instead of failing with `SHARD_FULL`. Beyond the spec.
   */
  readonly spectateWhenFull?: boolean;
  /**
   * The shard's last this-many events (0 to 100), handed to the listeners registered before
   * `connect()` resolves, with `replayed: true` in their metadata, for a state that is a log (chat,
   * moves). The server keeps the events it relayed (docs/reference.md says which). Default 0.
   */
  readonly history?: number;
}

/** Metadata of a received event (spec: DispatchMessageMetadata, plus the sender). */
export interface DispatchMessageMetadata {
  /** One-way latency in ms: send time to receive time on the server-synced clock. */
  readonly latencyMs: number;
  /** The sender's client id. */
  readonly clientId: string;
  /** The sender's verified user id, or null when it is not identified. */
  readonly userId: string | null;
  /** True on an event of the shard's history (`connect({ history })`), sent before this client joined. */
  readonly replayed?: true;
}

/** Callback of `on` (spec: MessageHandlerCallback). */
export type MessageHandlerCallback = (payload: EventPayload, metadata: DispatchMessageMetadata) => void;
/** Callback of `onConnectedClientsChanged` (spec: ConnectedClientsChangedHandlerCallback). */
export type ConnectedClientsChangedHandlerCallback = (connectedClients: ConnectedClient[]) => void;
/** Callback for errors that no promise can carry (a relayed event refused, a reconnection given up). */
export type DispatchErrorCallback = (error: PlatformError) => void;

/** The smallest WebSocket both the browser's and `ws`'s satisfy. */
export interface SocketLike {
  readonly readyState: number;
  /** Set to 'arraybuffer' by the connection: SyncStep2's diff is a binary frame (protocol/state-frames.ts). Absent from a socket that receives none. */
  binaryType?: string;
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
  /** Events kept while offline before `QUEUE_FULL`. Default 1,000 (64 while the first `connect()` is in progress). */
  readonly maxQueuedEvents?: number;
  /**
   * Whether this client's listeners hear its own broadcasts (events emitted with no recipients),
   * delivered locally with `latencyMs` 0. Default true, as the spec's "all clients on the current
   * shard" says. An event with recipients reaches this client only when they name it (its client
   * id or its verified user id), whatever this says.
   */
  readonly receiveOwnBroadcasts?: boolean;
  /** A request without an answer fails with `CALL_TIMEOUT` after this. Default 10,000. */
  readonly requestTimeoutMs?: number;
  /** Test hook: added to this client's clock, to show that clock sync cancels it. Default 0. */
  readonly clockSkewMs?: number;
}

/** Where a session stands. */
export type SessionState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** Callback of `onSpectatorsChanged`: how many spectators watch the shard now. */
export type SpectatorsChangedCallback = (count: number) => void;
/** Callback of `onSeatAvailable`: a player left for good; `takeSeat()` may now succeed. */
export type SeatAvailableCallback = () => void;

/**
 * What the shard's state (`platform-kit/guest/state`, state-client.ts) plugs into a session: the
 * session knows when to sync, the state what to send. Kept this small so that a template that
 * never imports the state pays for none of Yjs.
 */
export interface SessionStateHooks {
  /** SyncStep1: the state vector to send in every join (base64). */
  stateVector(): string;
  /** SyncStep2 from `joined`, before `connect()` resolves; null when the join asked and the server has no state. */
  onSync(reply: StateSyncReply | null): void;
  /** Another member's update, relayed by the server, or its request to sync again. */
  onRemote(message: StateRelayMessage | StateResyncMessage): void;
  /** Connected (first join or back after a drop): what the server lacks can leave now. */
  onConnected(): void;
  /** connect() rejected, or a reconnection ended for good (SHARD_FULL, UNAUTHORIZED…): a state not synced yet says so with the same error. */
  onConnectFailed(error: PlatformError): void;
}
