/**
 * The data path behind one small interface. Two implementations:
 * relay-transport.ts (through the control WebSocket; every member, always)
 * and peer-transport.ts (WebRTC data channels through peerjs; browser
 * members of a shard within the mesh size). The session picks, per
 * recipient, the peer path when it is open and the relay otherwise, so the
 * application never sees which one carried an event.
 */
import type { PlatformError } from '../../protocol/errors.js';
import type { MemberWire, MeshSignalFrame } from '../../protocol/signaling.js';

/**
 * A data path. An event reaches a path as its frame body (eventFrameBody in
 * protocol/signaling.ts: seq, name, payload and send time, serialized once by
 * the session), which each path only wraps in its own frame.
 */
export interface DataTransport {
  /** True when an event to this member can go this way now. */
  reaches(clientId: string): boolean;
  /** Ends the path: connections, sockets and timers. */
  close(): void;
}

/** What a peer transport reports back to the session. */
export interface PeerTransportHost {
  /**
   * A frame arrived on the data channel of this member. Returns the seq of
   * the event it carried (delivered, held back or a duplicate: the session
   * has it either way), which the transport acknowledges, or 0 for a frame
   * that was not a valid event.
   */
  onFrame(clientId: string, text: string): number;
  /**
   * The data channel to this member died (or the pair left the mesh) with
   * these events sent on it and not acknowledged: the session sends them
   * again by the relay, in order. Not called for a member who left, nor
   * when the transport is closed.
   */
  onUndelivered(clientId: string, seqs: readonly number[], bodies: readonly string[]): void;
  /**
   * This member's channel broke the rules at the door (more frames than its
   * rate allows, or a frame over the size limit) and the pair was moved to the
   * relay, where the server polices it. For the application's error listeners.
   */
  onRefused(clientId: string, error: PlatformError): void;
  /** A state update (base64) from this member's data channel (issue 26), checked at the door like an event. */
  onState?(clientId: string, update: string): void;
}

/** A peer (mesh) transport also follows the shard's members. */
export interface PeerTransport extends DataTransport {
  /**
   * Sends one event (`seq`, serialized in `body`) to this member when its
   * channel is open; false (nothing sent) otherwise, and the session relays
   * it. `prev` is the seq of the event sent to this member before it, by
   * either path (0 for none).
   */
  sendTo(clientId: string, seq: number, prev: number, body: string): boolean;
  /** Sends a state frame to every member whose channel is open; returns their client ids. */
  sendState(text: string): string[];
  /** The members changed: open connections to new ones, close those of members gone. */
  setMembers(members: readonly MemberWire[], selfClientId: string): void;
  /** Path per member, for diagnostics and tests. */
  paths(): Record<string, 'peer' | 'connecting' | 'relay'>;
  /** A `signal` frame of the control socket: a PeerJS message for this member's mesh (when `PeerTransportInit.signal` is given). */
  onSignal(message: MeshSignalFrame['m']): void;
  /**
   * Ends the mesh. With `handOver`, the events still unacknowledged on each
   * channel go to `onUndelivered` first (the session replaces this transport
   * and the members stay); without, they are dropped with it (disconnect).
   */
  close(handOver?: boolean): void;
}

/** What the session gives a peer transport when it starts. */
export interface PeerTransportInit {
  /** Control URL (`ws(s)://host:port/dispatch`); the peerjs socket goes to the same host. */
  readonly url: string;
  readonly peerId: string;
  readonly peerToken: string;
  /**
   * Present when the mesh signals on the control socket (`joined.peer.control`): sends a PeerJS
   * message as a `signal` frame. Absent: the mesh opens a PeerJS socket with the id and token.
   */
  readonly signal?: (message: Readonly<Record<string, unknown>>) => void;
  readonly meshMaxMembers: number;
  /** The shard's limits (from the server): a peer's channel is held to them at the door. */
  readonly maxEventsPerSecond: number;
  readonly maxPayloadBytes: number;
}

/** Makes a peer transport (browser clients); absent on the backend. */
export interface PeerTransportFactory {
  (init: PeerTransportInit, host: PeerTransportHost): PeerTransport;
  /**
   * `connect()` was called: load what the transport needs (peerjs) now, while the socket opens
   * and the join is answered, so that the transport starts at once when `joined` comes.
   */
  prepare?(): void;
}
