/**
 * The control socket and its connection: the per-client state of the
 * `/dispatch` WebSocket, and the `ws` subclass that hands the socket's events
 * to the server's handlers (door.ts) without a listener per socket. Memory per
 * idle client is benchmarked (bench/dispatch-server.bench.ts): a field added
 * here costs every one of 10,000 idle clients.
 */
import type { ReleaseTurn } from './join-gate.js';
import { WebSocket, type RawData } from 'ws';
import { DEFAULT_MAX_CONNECTIONS_PER_SHARD, SIGNALING_VERSION } from '../../protocol/signaling.js';
import type { SignalingLimits } from '../server-options.js';

/**
 * One control socket. Kept small: 10,000 idle clients must fit in 20 KB each,
 * sockets included, and in less than PeerServer's. No closures per socket
 * (the socket's handlers are shared functions that find their connection
 * through {@link ControlSocket.connection}), no timer per socket (one sweep
 * for all), no buffer per socket.
 */
export class Connection {
  state: 'new' | 'joining' | 'joined' | 'offline' | 'closed' = 'new';
  alive = true;
  leaving = false;
  /** Wire version of the client's join: v1 clients get presence one change per frame. */
  version = SIGNALING_VERSION;
  projectId = '';
  shardName = '';
  clientId = '';
  kind: 'browser' | 'backend' = 'browser';
  userId: string | null = null;
  peerId: string | null = null;
  peerToken = '';
  /**
   * How this member's mesh signals: on this socket (its join asked, handlers/signal.ts), on a PeerJS
   * socket (older clients), or not at all: a relay-only browser client (its join said `mesh: false`)
   * gets no peer id, so no member tries a data channel to it. One field for both (memory per idle client).
   */
  mesh: 'control' | 'peerjs' | 'none' = 'peerjs';
  maxConnectionsPerShard = DEFAULT_MAX_CONNECTIONS_PER_SHARD;
  /** A spectator (spectators.ts): in its hub's `spectators`, in no member list, sends no event. */
  spectator = false;
  /** Whether this member said it is away (handlers/focus.ts); its record says it to the others. */
  away = false;
  /** Highest event seq received from this client. */
  lastSeq = 0;
  /** The client holds the shard's state (its join carried a state vector, or it asked since): it hears relayed updates. */
  wantsState = false;
  /** Tick of the presence clock when this connection joined its hub: it hears only later changes. */
  attachedAt = 0;
  /**
   * Frames the hub delivered while the join reads the shard's members (handlers/join.ts): they
   * follow the `joined` answer. null at every other time.
   */
  held: Buffer[] | null = null;
  // Rate limit buckets in thousandths of a token, stamped with `clock()` (rate-buckets.ts): integers, which
  // V8 keeps in the object itself, where fractional ms and tokens would be a boxed number each.
  eventMilliTokens: number;
  eventStamp: number;
  messageMilliTokens: number;
  messageStamp: number;
  /** `clock()` (rate-buckets.ts) when the buckets were last saved while limited (see saveBuckets): at most once a second. */
  bucketsSavedAt = -1_000_000;
  /** What the join and shard limits count this socket's joins against (client-address.ts); '' when both are off. */
  address = '';
  /** The client's address (client-address.ts) is this machine's loopback: for projects with `backendJoinsFromLoopbackOnly`. */
  fromLoopback = false;
  /** The upgrade's `Origin` header ('' without one), for projects with `allowedOrigins`. */
  origin = '';
  /**
   * The refusal allowance (SignalingLimits.maxRefusals) as one GCRA time, in
   * `clock()` (rate-buckets.ts) ms: when the allowance would be whole again. One small
   * integer, where a level and its stamp would be two fields per socket.
   */
  refusalsDueAt = 0;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * `clock()` when this socket's join got its turn (join-gate.ts), -1 before: the join timeout
   * counts from it for a join in progress; one that waits its turn waits on this node, not the store.
   */
  joinTurnAt = -1;
  /** Gives the join's turn back (join-gate.ts) while it runs; a close gives it back too. */
  releaseJoinTurn: ReleaseTurn | undefined = undefined;
  constructor(
    readonly socket: ControlSocket,
    /** `clock()` (rate-buckets.ts) when the socket opened. */
    readonly openedAt: number,
    limits: SignalingLimits,
  ) {
    this.eventMilliTokens = limits.maxEventsPerSecond * 2000;
    this.messageMilliTokens = limits.maxMessagesPerSecond * 2000;
    this.eventStamp = this.messageStamp = openedAt;
  }
}

/**
 * The control WebSocket, carrying its {@link Connection}: `ws` builds it
 * (`WebSocketServer`'s `WebSocket` option). Each server subclasses it once
 * and overrides `emit` to hand `message`, `close`, `pong` and `error` to its
 * handlers: no listener is registered, so no closure, no WeakMap entry and
 * no listener table per socket (an EventEmitter's `_events` is a
 * null-prototype object, a dictionary: 256 bytes once it holds four
 * listeners, as much as a third of what PeerServer spends per client).
 */
export class ControlSocket extends WebSocket {
  connection: Connection | null = null;
  // EventEmitter's constructor gave this socket an empty listener table, a null-prototype
  // object that V8 keeps as a dictionary: about 215 bytes per socket, a fifteenth of all the
  // heap an idle client costs. This field (set right after that constructor) drops it. No
  // listener is ever added (emit is overridden), and EventEmitter makes the table again on a
  // first `on()` (it handles an `undefined` table everywhere).
  _events: object | undefined = undefined;
}

/** What a server does with its sockets' events. */
export interface ControlSocketHandlers {
  message(connection: Connection, data: RawData, isBinary: boolean): void;
  /** `code`: the close code the client sent (1006 when the socket died without one). */
  close(connection: Connection, code: number): void;
  /** A handler threw: the one catch of the door (answers INTERNAL, logs); the process goes on. */
  threw(connection: Connection, error: unknown, during: string): void;
}

/**
 * The control socket class of one server (`WebSocketServer`'s `WebSocket`
 * option), made once per server: its `emit` hands `message`, `pong` and
 * `close` to `handlers` inside the door's one catch.
 */
export function controlSocketClass(handlers: ControlSocketHandlers): typeof ControlSocket {
  return class extends ControlSocket {
    // ws emits these four with at most two arguments; anything else (`ping`…) goes to EventEmitter as usual.
    override emit(event: string | symbol, first?: unknown, second?: unknown): boolean {
      if (event === 'error') {
        // A protocol error (bad frame, over maxPayload): the socket goes, and `close` follows.
        this.terminate();
        return true;
      }
      const connection = this.connection;
      if (connection === null) return super.emit(event, first, second);
      // The one catch of the door: whatever a handler throws is answered and logged, and no frame
      // of any client can end the process (ws would rethrow it from its socket's data callback).
      try {
        switch (event) {
          case 'message':
            handlers.message(connection, first as RawData, second as boolean);
            return true;
          case 'pong':
            connection.alive = true;
            return true;
          case 'close':
            handlers.close(connection, typeof first === 'number' ? first : 1006);
            return true;
          default:
            return super.emit(event, first, second);
        }
      } catch (error) {
        handlers.threw(connection, error, String(event));
        return true;
      }
    }
  };
}
