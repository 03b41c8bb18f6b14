/**
 * Shard state on the control socket (issue 26): the frames that carry a
 * shard's Yjs document between a client and the server, their guards, and the
 * base64 the updates travel in. The sync follows y-protocols' two steps, in
 * JSON frames instead of its binary envelope (every frame of this wire is a
 * JSON text, readable in devtools and checked by one door, but for SyncStep2's
 * diff, below, which its JSON frame announces):
 *
 * 1. SyncStep1: the client sends its state vector, in its `join`
 *    ({@link JoinMessage}'s `state`, so a late joiner holds the whole state by
 *    the time `connect()` resolves) or later in a {@link StateSyncRequest}.
 * 2. SyncStep2: the server answers what the client lacks (`update`, the diff
 *    against that vector) and its own state vector (`sv`), in `joined` or
 *    {@link StateSyncedMessage}. The diff is the one binary frame of this
 *    wire: it travels as the binary WebSocket frame right before its JSON
 *    frame, which says its length (`updateBytes`); the client's door joins the
 *    two ({@link withSyncUpdate}). A late joiner's 100 KB state is then neither
 *    base64 (a third more bytes, encoded and decoded) nor a JSON string
 *    (UTF-8-checked and parsed): it goes from the server's store to the
 *    client's Y.Doc as the bytes it is (measured: bench/RESULTS.md,
 *    "`shard-state-yjs` again: the late join profiled").
 * 3. The client sends back what the server lacks (the diff against `sv`) as
 *    an ordinary {@link StateUpdateMessage}: a client that rejoins after a drop
 *    or a server that lost its copy (a Redis restart) is made whole again.
 *
 * After that every local change leaves as a {@link StateUpdateMessage}; the
 * server keeps it in the shard's copy and relays it as a {@link
 * StateRelayMessage}. Yjs updates are idempotent and commutative, so an update
 * that also went over the mesh and arrives twice is harmless.
 *
 * Sizes are checked on the base64 text before a byte is decoded: an update
 * may not decode to more than the shard's state limit. (A client's updates
 * stay base64 in JSON: the server's door checks one kind of frame, and the
 * profile found the late join's cost in SyncStep2, not in them.)
 */
import { isCount, isId } from './frame-guards.js';

/** Default largest shard state, in bytes of its merged Yjs update (1 MiB). */
export const DEFAULT_MAX_STATE_BYTES = 1024 * 1024;
/** Largest state vector a client may send (base64 characters): a vector is a few bytes per client that ever wrote. */
export const MAX_STATE_VECTOR_CHARS = 64 * 1024;
/** Most events `connect({ history })` may ask for. */
export const MAX_HISTORY_EVENTS = 100;

/** Client → server: an update of the shard's state (answered `ok`, or an error with `id`). */
export interface StateUpdateMessage {
  readonly type: 'state';
  readonly id: number;
  /** The Yjs update (v1 encoding), base64. */
  readonly update: string;
}
/** Client → server: SyncStep1 after the join (a state attached after `connect()`). */
export interface StateSyncRequest {
  readonly type: 'stateSync';
  readonly id: number;
  /** The client's state vector, base64. */
  readonly sv: string;
}
/** SyncStep2 as its JSON frame carries it (in `joined` and {@link StateSyncedMessage}): the diff itself is the binary frame before it. */
export interface StateSyncWire {
  /** The server's state vector, base64: the client sends back the diff against it. */
  readonly sv: string;
  /** Length of the diff the client lacks: the binary frame sent right before this JSON frame. */
  readonly updateBytes: number;
}
/** SyncStep2 as the server means it and the client receives it: the JSON part and the diff, joined by the client's door ({@link withSyncUpdate}). */
export interface StateSyncReply extends StateSyncWire {
  /** The diff the client lacks (an empty Yjs update when it lacks nothing). Never in the JSON: the binary frame. */
  readonly update: Uint8Array;
}
/** Server → client: the answer to {@link StateSyncRequest}. */
export interface StateSyncedMessage extends StateSyncReply {
  readonly type: 'stateSynced';
  readonly id: number;
}
/** Server → client: another member's update (or the backend's), relayed. */
export interface StateRelayMessage {
  readonly type: 'state';
  /** The sender's client id (set by the server). */
  readonly from: string;
  readonly update: string;
}

/**
 * Server → client: the server's copy was lost (Redis restarted empty) while this client holds the
 * state: it syncs again (SyncStep1), and what the server lacks, everything, goes back.
 */
export interface StateResyncMessage {
  readonly type: 'stateResync';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Base64 characters that decode to at most `bytes` bytes. */
export function base64CharsFor(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** True for a base64 text (standard alphabet, padded) of at most `maxChars` characters. */
export function isBase64(value: unknown, maxChars: number): value is string {
  return typeof value === 'string' && value.length <= maxChars && value.length % 4 === 0 && BASE64.test(value);
}

/** Bytes → base64, in chunks (a 1 MiB update would overflow `String.fromCharCode(...all)`). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** Base64 → bytes. Check the text with {@link isBase64} first: this throws on anything else. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The client's state frames. `maxUpdateChars` is the server's ceiling (the base64 of its
 * largest state): the door has already checked the frame's size, this bounds the field.
 */
export function parseStateClientFrame(value: Record<string, unknown>, maxUpdateChars: number): StateUpdateMessage | StateSyncRequest | null {
  if (value['type'] === 'state') {
    return isCount(value['id']) && isBase64(value['update'], maxUpdateChars) ? (value as unknown as StateUpdateMessage) : null;
  }
  if (value['type'] === 'stateSync') {
    return isCount(value['id']) && isBase64(value['sv'], MAX_STATE_VECTOR_CHARS) ? (value as unknown as StateSyncRequest) : null;
  }
  return null;
}

/** True for a {@link StateSyncWire}: the JSON part of SyncStep2, with no `update` of its own (the server is trusted with sizes, not with shapes). */
export function isStateSyncWire(value: unknown): value is StateSyncWire {
  if (typeof value !== 'object' || value === null) return false;
  const reply = value as Record<string, unknown>;
  return isBase64(reply['sv'], Number.MAX_SAFE_INTEGER) && isCount(reply['updateBytes']) && reply['update'] === undefined;
}

/**
 * Joins SyncStep2's JSON part to the binary frame that came right before it: the reply with its
 * `update`, or null when no binary frame came or its length is not the one announced (a frame
 * lost or out of order is refused, never applied as another reply's diff).
 */
export function withSyncUpdate<T extends StateSyncWire>(reply: T, attachment: Uint8Array | null): (T & StateSyncReply) | null {
  if (attachment === null || attachment.length !== reply.updateBytes) return null;
  return { ...reply, update: attachment };
}

/** A binary frame's bytes as the WebSocket gives them (an ArrayBuffer in a browser, a Buffer or an ArrayBuffer in Node); null for a text frame. */
export function binaryFrameBytes(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

/** The server's state frames. */
export function parseStateServerFrame(value: Record<string, unknown>, attachment: Uint8Array | null): StateSyncedMessage | StateRelayMessage | StateResyncMessage | null {
  if (value['type'] === 'stateResync') return { type: 'stateResync' };
  if (value['type'] === 'state') {
    return isId(value['from']) && isBase64(value['update'], Number.MAX_SAFE_INTEGER) ? (value as unknown as StateRelayMessage) : null;
  }
  if (value['type'] === 'stateSynced') return isCount(value['id']) && isStateSyncWire(value) ? withSyncUpdate(value as unknown as StateSyncedMessage, attachment) : null;
  return null;
}
