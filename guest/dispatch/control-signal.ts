/**
 * The mesh's signalling on the control socket (issue 27;
 * protocol/mesh-signal-frames.ts tells why): a peerjs `Peer` whose server
 * connection is the control socket instead of a PeerJS WebSocket of its own.
 *
 * How: peerjs makes its server connection in one method,
 * `_createServerConnection()`, and reads every server message in one,
 * `_handleMessage()`. A subclass returns a {@link ControlSignalLine} from the
 * first; the line sends what peerjs sends (OFFER, ANSWER, CANDIDATE) as
 * `signal` frames, and hands the `signal` frames the session hears to the
 * second. Everything else of peerjs (its negotiator, its data connections,
 * their events) is untouched. These two methods are peerjs internals (1.5.x;
 * the browser tests of the mesh run through them); should a peerjs release
 * rename them, `peerOnControl` sees it and returns null, and every event goes
 * by the relay, as when peerjs cannot be loaded.
 *
 * There is no handshake left to wait for: the server registered the peer id
 * with the join, so `OPEN` is given to peerjs at once, and a member offers
 * as soon as `joined` lists the others.
 */
import type { Peer, PeerOptions } from 'peerjs';
import { isObject } from '../../protocol/frame-guards.js';
import type { MeshSignalFrame } from '../../protocol/signaling.js';

/** A server message as peerjs reads it. */
type PeerServerMessage = { readonly type: string; readonly src?: string; readonly payload?: unknown };

/** The two peerjs internals used here. */
interface PeerInternals {
  _createServerConnection?: unknown;
  _handleMessage?: (message: PeerServerMessage) => void;
}

/** Signals heard before peerjs took `OPEN` (within one task), kept in order: an offer and its candidates fit easily. */
const MAX_WAITING_SIGNALS = 256;

/**
 * What peerjs takes for its server socket (peerjs's `Socket`: start, send, close,
 * removeAllListeners), on the control socket.
 */
export class ControlSignalLine {
  readonly #write: (message: Readonly<Record<string, unknown>>) => void;
  #handle: ((message: PeerServerMessage) => void) | null = null;
  /** peerjs's start() and close(): 'new' until the first start (signals heard meanwhile wait for it). */
  #state: 'new' | 'started' | 'closed' = 'new';
  #open = false;
  readonly #waiting: PeerServerMessage[] = [];

  /** `write`: sends a PeerJS message (`{type, dst, payload}`) as a `signal` frame on the control socket. */
  constructor(write: (message: Readonly<Record<string, unknown>>) => void) {
    this.#write = write;
  }

  /** peerjs connects its peer: the id is registered already (with the join), so `OPEN` comes at once (a microtask later, as peerjs expects it after its constructor). */
  start(): void {
    this.#state = 'started';
    queueMicrotask(() => {
      const handle = this.#handle;
      if (this.#state !== 'started' || !handle || this.#open) return;
      this.#open = true;
      this.#deliver(handle, { type: 'OPEN' });
      for (const message of this.#waiting.splice(0)) this.#deliver(handle, message);
    });
  }

  /** peerjs sends a message to another peer. HEARTBEAT is a PeerJS socket's keepalive: the control socket has its own. */
  send(data: unknown): void {
    if (this.#state !== 'started' || !isObject(data) || data['type'] === 'HEARTBEAT') return;
    this.#write(data);
  }

  /** peerjs disconnects its peer (left the mesh, or destroyed): no more signals either way. */
  close(): void {
    this.#state = 'closed';
    this.#open = false;
    this.#waiting.length = 0;
  }

  /** peerjs drops its listeners on the socket it made; this line has none. */
  removeAllListeners(): this {
    return this;
  }

  /** Binds the `Peer` the line serves (right after its constructor). */
  attach(handle: (message: PeerServerMessage) => void): void {
    this.#handle = handle;
  }

  /**
   * A `signal` frame from the server (checked by its guard). An offer must be what this kit's
   * members send (a data connection, raw): peerjs would otherwise pick a class by a field the
   * other member wrote.
   */
  receive(message: MeshSignalFrame['m']): void {
    if (this.#state === 'closed') return;
    if (message.type === 'OFFER' && !(message.payload?.['type'] === 'data' && message.payload['serialization'] === 'raw')) return;
    if (!this.#open || !this.#handle) {
      if (this.#waiting.length < MAX_WAITING_SIGNALS) this.#waiting.push(message);
      return;
    }
    this.#deliver(this.#handle, message);
  }

  #deliver(handle: (message: PeerServerMessage) => void, message: PeerServerMessage): void {
    try {
      handle(message);
    } catch (error) {
      // A malformed payload from another member reached peerjs: that pair fails by its timeout, nothing more.
      console.warn('platform-kit: a mesh signal could not be handled', error);
    }
  }
}

/**
 * A `Peer` that signals on the control socket through `line`, or null when this peerjs has not
 * the internals it needs (then the caller opens a PeerJS socket instead).
 */
export function peerOnControl(PeerClass: typeof Peer, peerId: string, options: PeerOptions, line: ControlSignalLine): Peer | null {
  const prototype = PeerClass.prototype as unknown as PeerInternals;
  if (typeof prototype._createServerConnection !== 'function' || typeof prototype._handleMessage !== 'function') return null;
  // peerjs calls this from its constructor, in place of making its WebSocket.
  const ControlPeer = class extends PeerClass {
    _createServerConnection(): ControlSignalLine {
      return line;
    }
  };
  const peer = new ControlPeer(peerId, options);
  const internals = peer as unknown as Required<Pick<PeerInternals, '_handleMessage'>>;
  line.attach((message) => internals._handleMessage(message));
  return peer;
}
