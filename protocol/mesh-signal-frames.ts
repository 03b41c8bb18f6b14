/**
 * The mesh's signalling on the control socket (issue 27): the PeerJS
 * messages that set up a pair's data channel (offer, answer, ICE candidates),
 * carried in a `signal` frame of the control socket instead of on a PeerJS
 * socket of their own.
 *
 * Why: the second socket could open only after `joined` (the peer id comes
 * in it), Chromium lets one WebSocket per server be in its handshake at a
 * time (so it cannot open beside the control socket either), and PeerJS
 * waits for the server's `OPEN` on it before it sends anything. On the
 * control socket a member offers as soon as its connect() resolved. Measured
 * in players-meet (8 members, bench/RESULTS.md, fourth session of
 * 2026-11-27): the first offer 60 to 75 ms earlier, the mesh ready at 1.15×
 * plain WebRTC (median of three runs) instead of 1.31×.
 *
 * Who uses it: a browser client asks in its join (`meshSignaling: 'control'`)
 * and the server says yes in `joined` (`peer.control: true`). A server that
 * does not know the field ignores it (so `v` stays 2) and the client opens a
 * PeerJS socket as before; a client that does not ask gets one too. The server
 * routes between both kinds of members, so a shard may hold both.
 *
 * The frames carry PeerJS's own server messages unchanged in `m` (the client
 * hands them to peerjs as if its socket had), so the server treats a `signal`
 * exactly as a frame of a PeerJS socket: the same rate (the peer's bucket,
 * SignalingLimits.maxPeerMessagesPerSecond), the same scope (only members of
 * the same shard), and `src` set by the server, never by the sender.
 */
import { isId, isObject } from './frame-guards.js';

/** The PeerJS message types a member may send to another through the server. */
export type MeshSignalType = 'OFFER' | 'ANSWER' | 'CANDIDATE' | 'LEAVE' | 'EXPIRE';

const SIGNAL_TYPES: ReadonlySet<string> = new Set<MeshSignalType>(['OFFER', 'ANSWER', 'CANDIDATE', 'LEAVE', 'EXPIRE']);

/**
 * Largest `signal` frame, in bytes. A data channel's offer or answer (trickle
 * ICE: no candidates in it) is about 1 KB, a candidate a few hundred bytes.
 */
export const MAX_MESH_SIGNAL_BYTES = 16 * 1024;

/** Client → server: a PeerJS message for the member whose peer id is `m.dst`. No answer. */
export interface MeshSignalMessage {
  readonly type: 'signal';
  readonly m: { readonly type: MeshSignalType; readonly dst: string; readonly payload?: Readonly<Record<string, unknown>> };
}

/** Server → client: a PeerJS message from the member whose peer id is `m.src` (set by the server). */
export interface MeshSignalFrame {
  readonly type: 'signal';
  readonly m: { readonly type: MeshSignalType; readonly src: string; readonly dst?: string; readonly payload?: Readonly<Record<string, unknown>> };
}

/** The start of every server `signal` frame: the server splices the PeerJS message text after it. */
export const MESH_SIGNAL_FRAME_START = '{"type":"signal","m":';

/** The text of a client `signal` frame carrying the PeerJS message `m` (peerjs's own `{type, dst, payload}`). */
export function meshSignalText(m: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ type: 'signal', m });
}

/** True for a PeerJS message type a member may send through the server. */
export function isMeshSignalType(value: unknown): value is MeshSignalType {
  return typeof value === 'string' && SIGNAL_TYPES.has(value);
}

/** Checks a client `signal` frame (parsed; its size and depth were checked at the door). */
export function isMeshSignalMessage(value: Record<string, unknown>): value is Record<string, unknown> & MeshSignalMessage {
  const m = value['m'];
  return isObject(m) && isMeshSignalType(m['type']) && isId(m['dst']) && (m['payload'] === undefined || isObject(m['payload']));
}

/** Checks a server `signal` frame (parsed). */
export function isMeshSignalFrame(value: Record<string, unknown>): value is Record<string, unknown> & MeshSignalFrame {
  const m = value['m'];
  return isObject(m) && isMeshSignalType(m['type']) && isId(m['src']) && (m['dst'] === undefined || isId(m['dst'])) && (m['payload'] === undefined || isObject(m['payload']));
}
