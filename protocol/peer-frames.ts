/**
 * Member ↔ member frames on a WebRTC data channel: an event
 * ({@link PeerEventFrame}) and its acknowledgement ({@link PeerAckFrame}),
 * their texts and their guards.
 */
import { isCount, isPayload, isTime, parseJsonObject } from './frame-guards.js';
import { isEventName } from './signaling-constants.js';
import type { EventPayload } from './signaling-members.js';

/**
 * An event sent over a data channel. The sender's identity comes from the
 * channel (its peer id is bound to a client by the server), never from here.
 * `prev` is the `seq` of the last event this sender sent to this receiver by
 * any path: the receiver holds a frame back until `prev` was delivered, which
 * keeps per-sender order when a pair moves from the relay to the mesh.
 */
export interface PeerEventFrame {
  readonly type: 'event';
  readonly seq: number;
  readonly prev: number;
  readonly name: string;
  readonly payload: EventPayload;
  readonly ts: number;
}

/**
 * A receiver's acknowledgement on a data channel: it has every event frame up
 * to `seq` that this channel carried (the channel is ordered and reliable, so
 * the highest is enough). The sender keeps each frame it sent until it is
 * acknowledged, and resends those still open by the relay when the channel
 * dies: a frame the channel took but never delivered is not lost.
 */
export interface PeerAckFrame {
  readonly type: 'ack';
  readonly seq: number;
}

/** Checks a frame from another member's data channel. */
export function parsePeerFrame(text: unknown): PeerEventFrame | null {
  const value = parseJsonObject(text);
  if (value === null || value['type'] !== 'event') return null;
  const { seq, prev, name, payload, ts } = value;
  return isCount(seq) && seq > 0 && isCount(prev) && prev < seq && isEventName(name) && isPayload(payload) && isTime(ts) ? (value as unknown as PeerEventFrame) : null;
}

/** Start of every {@link PeerAckFrame}: the receiving side tells an ack from an event by it, without parsing. */
export const PEER_ACK_PREFIX = '{"type":"ack","seq":';

/** The {@link PeerAckFrame} text for `seq`. */
export function peerAckFrame(seq: number): string {
  return `${PEER_ACK_PREFIX}${seq}}`;
}

/** The `seq` of a {@link PeerAckFrame} text that starts with {@link PEER_ACK_PREFIX}, or null when it is malformed. */
export function parsePeerAck(text: string): number | null {
  const value = parseJsonObject(text);
  if (value === null || value['type'] !== 'ack') return null;
  const seq = value['seq'];
  return isCount(seq) && seq > 0 ? seq : null;
}

/** The {@link PeerEventFrame} text of an event body for one receiver. */
export function peerEventFrame(prev: number, body: string): string {
  return `{"type":"event","prev":${prev},${body}}`;
}

/**
 * An update of the shard's state sent straight to a member over its data channel (issue 26), beside
 * the same update sent to the server, which relays it to every member: the channel only makes it
 * faster where it is up, so it is neither numbered nor acknowledged (Yjs drops what it has).
 */
export const PEER_STATE_PREFIX = '{"type":"state","update":"';

/** The data channel frame of a state update (base64). */
export function peerStateFrame(update: string): string {
  return `${PEER_STATE_PREFIX}${update}"}`;
}

/** The update (base64) of a state frame from a data channel, or null when it is malformed. */
export function parsePeerState(text: string, maxChars: number): string | null {
  const value = parseJsonObject(text);
  if (value === null || value['type'] !== 'state') return null;
  const update = value['update'];
  return typeof update === 'string' && update.length <= maxChars && update.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(update) ? update : null;
}
