/**
 * The data path behind one small interface. Two implementations:
 * relay-transport.ts (through the control WebSocket; every member, always)
 * and peer-transport.ts (WebRTC data channels through peerjs; browser
 * members of a shard within the mesh size). The session picks, per
 * recipient, the peer path when it is open and the relay otherwise, so the
 * application never sees which one carried an event.
 */
import type { EventPayload, MemberWire } from '../../protocol/signaling.js';

/** One event on its way out. */
export interface OutgoingEvent {
  /** Sender's sequence number (1, 2, …), for order and duplicate checks. */
  readonly seq: number;
  readonly name: string;
  readonly payload: EventPayload;
  /** Send time on the synced clock. */
  readonly ts: number;
  /** The seq of the previous event sent to `clientId` by any path (0 for none). */
  prevFor(clientId: string): number;
}

/** A data path. */
export interface DataTransport {
  /** True when an event to this member can go this way now. */
  reaches(clientId: string): boolean;
  /**
   * Sends one event to these recipients (client ids, or for the relay also
   * user ids), or to every other member when `recipients` is null.
   */
  send(event: OutgoingEvent, recipients: readonly string[] | null): void;
  /** Ends the path: connections, sockets and timers. */
  close(): void;
}

/** What a peer transport reports back to the session. */
export interface PeerTransportHost {
  /** A frame arrived on the data channel of this member. */
  onFrame(clientId: string, text: string): void;
}

/** A peer (mesh) transport also follows the shard's members. */
export interface PeerTransport extends DataTransport {
  /** The members changed: open connections to new ones, close those of members gone. */
  setMembers(members: readonly MemberWire[], selfClientId: string): void;
  /** Path per member, for diagnostics and tests. */
  paths(): Record<string, 'peer' | 'connecting' | 'relay'>;
}

/** What the session gives a peer transport when it starts. */
export interface PeerTransportInit {
  /** Control URL (`ws(s)://host:port/dispatch`); the peerjs socket goes to the same host. */
  readonly url: string;
  readonly peerId: string;
  readonly peerToken: string;
  readonly meshMaxMembers: number;
}

/** Makes a peer transport (browser clients); absent on the backend. */
export type PeerTransportFactory = (init: PeerTransportInit, host: PeerTransportHost) => PeerTransport;
