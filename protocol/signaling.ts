/**
 * The client ↔ signaling server wire (Dispatch), and the member ↔ member
 * frame sent over WebRTC data channels. Both the server (signaling/) and the
 * clients (guest/dispatch/, signaling/backend-dispatch.ts) import this file;
 * nothing else crosses that boundary.
 *
 * Every frame is one JSON text WebSocket message whose `type` is a string
 * literal (readable in devtools). Guards take `unknown` (or the raw text) and
 * return a typed value or `null`; the server answers `null` with an
 * `INVALID_MESSAGE` error and never throws.
 *
 * The handshake, written down:
 * 1. The client opens `ws(s)://server/dispatch` (no secret in the URL) and
 *    joins, in one of two ways:
 *    - in the WebSocket handshake (v2, one round trip): it offers the
 *      subprotocols {@link CONTROL_SUBPROTOCOL} and `platform-kit.join.<the
 *      join message, JSON, base64url>` ({@link encodeHandshakeJoin}); the
 *      server selects the first and answers `joined` right behind its 101,
 *      in the same write, as PeerServer answers `OPEN`. Why a subprotocol: it
 *      is the one header a browser lets a page set, and a header, unlike the
 *      URL, is not written to access logs (Kubernetes carries bearer tokens
 *      the same way). A join too large for a header, or one carrying a
 *      project token (a long-lived secret), goes the other way;
 *    - as the first frame, once the socket is open (v1, and v2 when the join
 *      did not fit in the handshake). A backend client puts its project
 *      token in that frame; a browser client names only its project.
 * 2. The server places the client in a shard atomically (named, or one with
 *    room, or a new one), answers `joined` with the client id, the shard, the
 *    whole presence list, the limits and a resume token, then tells the other
 *    members with a `presence` frame. Presence is coalesced: the changes of
 *    one shard within one turn of the server's event loop leave as one frame
 *    (`op: 'batch'`, v2 clients; a v1 client gets them one frame each), and
 *    always before any later event of that shard, so a member is listed
 *    before its first event arrives.
 * 3. The client syncs its clock with `ping`/`pong` (NTP style: the sample with
 *    the smallest round trip wins) and keeps pinging as a heartbeat.
 * 4. A client whose socket dropped sends `join` again with `resume`; within
 *    the grace period it keeps its client id and shard, and the server tells
 *    it the last event sequence number it received so nothing is sent twice.
 */
import { isErrorCode, type SerializedError } from './errors.js';
import type { PlainData } from './data.js';

/**
 * Version of this wire. v2 adds the join in the WebSocket handshake and
 * batched presence (`op: 'batch'`). A server refuses a `join` of a version
 * outside {@link MIN_SIGNALING_VERSION}..{@link SIGNALING_VERSION} with `UNSUPPORTED`.
 */
export const SIGNALING_VERSION = 2;
/** Oldest version a server still speaks: v1 clients join by frame and get presence one change per frame. */
export const MIN_SIGNALING_VERSION = 1;
/** The subprotocol a v2 server selects when a client joins in the handshake. */
export const CONTROL_SUBPROTOCOL = 'platform-kit.v2';
/** Prefix of the subprotocol that carries the join message (base64url of its JSON). */
export const JOIN_SUBPROTOCOL_PREFIX = 'platform-kit.join.';
/**
 * Longest join subprotocol, in characters. Node servers refuse request
 * headers over 16 KiB in all; a join larger than this (a large `userInfo`)
 * is sent as the first frame instead.
 */
export const MAX_HANDSHAKE_JOIN_CHARS = 6 * 1024;

/**
 * Close codes the server ends a control or PeerJS socket with (4000–4999 are
 * the application's own in RFC 6455). The reason text starts with the
 * {@link ErrorCode} that says why.
 * - `REFUSED`: the join was refused for good (unknown project, a backend
 *   without its token, over the join limit, `requireUserToken` without one).
 * - `ORIGIN_REFUSED`: a browser join from an origin the project does not allow.
 * - `JOIN_TIMEOUT`: no join within the server's `joinTimeoutMs`.
 * - `TOO_MANY_REFUSALS`: the client kept sending what the server refuses
 *   (over a rate, malformed, too deep, before joining): answering it forever
 *   would let it grow the server's memory, so it is disconnected.
 */
export const CLOSE_CODES = Object.freeze({
  REFUSED: 4001,
  ORIGIN_REFUSED: 4003,
  JOIN_TIMEOUT: 4008,
  TOO_MANY_REFUSALS: 4029,
} as const);

/** Path of the control WebSocket. */
export const CONTROL_PATH = '/dispatch';
/** The `path` option a peerjs client is given; its socket then opens `/peerjs/peerjs`. */
export const PEERJS_PATH = '/peerjs/';
/** The peerjs `key`; fixed, since peer ids are bound to authenticated clients anyway. */
export const PEERJS_KEY = 'peerjs';

/** Default and hard limits. Servers may lower the defaults; clients learn the values in `joined`. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;
/** Default events a client may emit per second (sustained; the burst is twice that). */
export const DEFAULT_MAX_EVENTS_PER_SECOND = 100;
/** Largest `userInfo`, in UTF-8 bytes of JSON. */
export const MAX_USER_INFO_BYTES = 4 * 1024;
/** Default capacity of a shard. */
export const DEFAULT_MAX_CONNECTIONS_PER_SHARD = 100;
/** Largest capacity a client may ask for. */
export const MAX_CONNECTIONS_PER_SHARD_LIMIT = 1_000;
/** Most recipients one event may list. */
export const MAX_RECIPIENTS = 1_000;
/** Room for everything around the payload in an `emit` frame (name, recipients, numbers). */
export const FRAME_ENVELOPE_BYTES = 40 * 1024;

/** Event names: 1 to 64 of `A-Z a-z 0-9 _ . : / -`, starting with a letter or digit; `platform:` is reserved. */
export const EVENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$/;
/** Shard names: 1 to 64 of `A-Z a-z 0-9 _ -`, starting with a letter or digit. */
export const SHARD_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** Project ids: 1 to 128 of `A-Z a-z 0-9 _ . -`. */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Event names beginning with this are the library's own. */
export const RESERVED_EVENT_PREFIX = 'platform:';

/** True for a valid, non-reserved event name. */
export function isEventName(value: unknown): value is string {
  return typeof value === 'string' && EVENT_NAME_PATTERN.test(value) && !value.startsWith(RESERVED_EVENT_PREFIX);
}
/** True for a valid shard name. */
export function isShardName(value: unknown): value is string {
  return typeof value === 'string' && SHARD_NAME_PATTERN.test(value);
}

/** An event payload: a plain object of JSON values. */
export type EventPayload = { [key: string]: PlainData };

/**
 * One member of a shard as every member sees it. `userId` is set only by the
 * server, from a verified user token; `userInfo` is what the client set.
 */
export interface ConnectedClient {
  /** Id the server gave the client; stable across reconnections within the grace period. */
  readonly clientId: string;
  /** What the client set with `setUserInfo` (JSON, at most 4 KB); `{}` when nothing. */
  readonly userInfo: EventPayload;
  /** Verified user id from an identity token, or null while unidentified. */
  readonly userId: string | null;
  /** When the client joined (server clock, ms since the epoch). */
  readonly connectedAt: number;
}

/** A member on the wire: {@link ConnectedClient} plus its peer id (browser members only) for the mesh. */
export interface MemberWire extends ConnectedClient {
  /** Peer id for WebRTC (peerjs), or null for backend clients. */
  readonly peerId: string | null;
}

/** One active shard of a project. */
export interface ShardInfo {
  readonly shardName: string;
  readonly numConnectedClients: number;
}

/** Limits a client must respect, sent in `joined`. */
export interface WireLimits {
  readonly maxPayloadBytes: number;
  readonly maxEventsPerSecond: number;
  readonly maxUserInfoBytes: number;
  /** Above this many browser members a shard relays every event instead of a WebRTC mesh. */
  readonly meshMaxMembers: number;
  /** How long the server keeps a dropped client's id and place. */
  readonly reconnectGraceMs: number;
  /** Heartbeat interval the server expects. */
  readonly heartbeatIntervalMs: number;
}

// ─── client → server ───────────────────────────────────────────────────────

/** First frame: join (or resume). */
export interface JoinMessage {
  readonly type: 'join';
  readonly v: number;
  readonly id: number;
  readonly projectId: string;
  /** Backend clients only; never in a URL. */
  readonly projectToken?: string;
  readonly kind: 'browser' | 'backend';
  readonly shardName?: string;
  readonly maxConnectionsPerShard?: number;
  readonly authorization?: string;
  readonly userInfo?: EventPayload;
  readonly resume?: { readonly clientId: string; readonly resumeToken: string };
}
/** Identify with a user token. */
export interface IdentifyMessage {
  readonly type: 'identify';
  readonly id: number;
  readonly token: string;
}
/** Replace this client's user info. */
export interface UserInfoMessage {
  readonly type: 'userInfo';
  readonly id: number;
  readonly userInfo: EventPayload;
}
/**
 * Relay an event. `seq` counts this client's events (1, 2, …) and lets the
 * server and receivers drop duplicates; `ts` is the send time on the synced
 * clock; `to` names client ids or user ids (absent: every other member).
 */
export interface EmitMessage {
  readonly type: 'emit';
  readonly seq: number;
  readonly name: string;
  readonly payload: EventPayload;
  readonly ts: number;
  readonly to?: readonly string[];
  /**
   * True on an event that first went over a data channel which died before
   * the receiver acknowledged it ({@link PeerAckFrame}), now sent again by the
   * relay to that receiver (`to` is then required). The server relays it
   * although its `seq` is not above the last it relayed for this client (the
   * event went by the mesh, not through the server); receivers drop it when
   * they had it already.
   */
  readonly re?: true;
}
/** Ask for the project's active shards. */
export interface InfoRequest {
  readonly type: 'info';
  readonly id: number;
}
/** Clock sync and heartbeat; `c` is the client's local clock at send. */
export interface PingMessage {
  readonly type: 'ping';
  readonly id: number;
  readonly c: number;
}
/** Leave for good (no grace period). */
export interface LeaveMessage {
  readonly type: 'leave';
  readonly id: number;
}

/** Everything a client may send. */
export type ClientMessage = JoinMessage | IdentifyMessage | UserInfoMessage | EmitMessage | InfoRequest | PingMessage | LeaveMessage;

// ─── server → client ───────────────────────────────────────────────────────

/** Answer to `join`. */
export interface JoinedMessage {
  readonly type: 'joined';
  readonly id: number;
  readonly clientId: string;
  readonly shardName: string;
  readonly resumeToken: string;
  /** True when an earlier client id and place were kept. */
  readonly resumed: boolean;
  /** Highest event `seq` the server has from this client (0 when it knows none): resend only later ones. */
  readonly lastSeq: number;
  /** This client's peer id and the token that binds it (browser clients). */
  readonly peer: { readonly id: string; readonly token: string } | null;
  readonly members: readonly MemberWire[];
  readonly limits: WireLimits;
  /** The verified user id when `authorization` was valid. */
  readonly userId: string | null;
  /** Why `authorization` was refused; the client is connected anyway, unidentified. */
  readonly identifyError: SerializedError | null;
  /** Server clock at send. */
  readonly s: number;
}
/** A plain success answer. */
export interface OkMessage {
  readonly type: 'ok';
  readonly id: number;
  readonly userId?: string | null;
}
/** An error answer: to a request (`id`), to an event (`seq`), or about the connection. */
export interface ErrorMessage {
  readonly type: 'error';
  readonly id?: number;
  readonly seq?: number;
  readonly error: SerializedError;
}
/** A relayed event. `from` and `userId` are set by the server, never by the sender. */
export interface EventMessage {
  readonly type: 'event';
  readonly from: string;
  readonly userId: string | null;
  readonly seq: number;
  readonly name: string;
  readonly payload: EventPayload;
  readonly ts: number;
}
/** One presence change in the shard. */
export type PresenceChange =
  | { readonly type: 'presence'; readonly op: 'add' | 'update'; readonly member: MemberWire }
  | { readonly type: 'presence'; readonly op: 'remove'; readonly clientId: string };
/**
 * Presence: one change, or (v2) several changes of one turn of the server's
 * event loop, to apply in order; the client notifies its listeners once,
 * with the list after the last one.
 */
export type PresenceMessage = PresenceChange | { readonly type: 'presence'; readonly op: 'batch'; readonly changes: readonly PresenceChange[] };
/** Answer to `info`. */
export interface InfoMessage {
  readonly type: 'info';
  readonly id: number;
  readonly shards: readonly ShardInfo[];
}
/** Answer to `ping`: `c` echoed, `s` the server clock. */
export interface PongMessage {
  readonly type: 'pong';
  readonly id: number;
  readonly c: number;
  readonly s: number;
}

/** Everything the server may send. */
export type ServerMessage = JoinedMessage | OkMessage | ErrorMessage | EventMessage | PresenceMessage | InfoMessage | PongMessage;

// ─── member ↔ member (WebRTC data channel) ─────────────────────────────────

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

// ─── guards ────────────────────────────────────────────────────────────────

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isId = (value: unknown, max = 128): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const isPayload = (value: unknown): value is EventPayload => isObject(value);

/** Parses a text frame; `null` for anything that is not a JSON object. Never throws. */
export function parseJsonObject(text: unknown): Obj | null {
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    // Not JSON (or nested too deep for the parser): the caller answers INVALID_MESSAGE.
    return null;
  }
}

function isRecipients(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.length <= MAX_RECIPIENTS && value.every((item) => isId(item, 256));
}

/** Checks a client frame (already parsed). `null` when it is not a valid {@link ClientMessage}. */
export function parseClientMessage(value: unknown): ClientMessage | null {
  if (!isObject(value)) return null;
  switch (value['type']) {
    case 'emit': {
      const { seq, name, payload, ts, to } = value;
      if (!isCount(seq) || seq === 0 || !isEventName(name) || !isPayload(payload) || !isTime(ts)) return null;
      if (to !== undefined && !isRecipients(to)) return null;
      // A resend names its receiver: it never goes to every member again.
      if (value['re'] !== undefined && (value['re'] !== true || to === undefined)) return null;
      return value as unknown as EmitMessage;
    }
    case 'ping':
      return isCount(value['id']) && isTime(value['c']) ? (value as unknown as PingMessage) : null;
    case 'join': {
      const { v, id, projectId, projectToken, kind, shardName, maxConnectionsPerShard, authorization, userInfo, resume } = value;
      if (!isCount(v) || !isCount(id) || typeof projectId !== 'string' || !PROJECT_ID_PATTERN.test(projectId)) return null;
      if (kind !== 'browser' && kind !== 'backend') return null;
      if (projectToken !== undefined && !isId(projectToken, 1024)) return null;
      if (shardName !== undefined && typeof shardName !== 'string') return null;
      if (maxConnectionsPerShard !== undefined && !isCount(maxConnectionsPerShard)) return null;
      if (authorization !== undefined && !isId(authorization, 8192)) return null;
      if (userInfo !== undefined && !isPayload(userInfo)) return null;
      if (resume !== undefined && !(isObject(resume) && isId(resume['clientId']) && isId(resume['resumeToken'], 512))) return null;
      return value as unknown as JoinMessage;
    }
    case 'identify':
      return isCount(value['id']) && isId(value['token'], 8192) ? (value as unknown as IdentifyMessage) : null;
    case 'userInfo':
      return isCount(value['id']) && isPayload(value['userInfo']) ? (value as unknown as UserInfoMessage) : null;
    case 'info':
    case 'leave':
      return isCount(value['id']) ? (value as unknown as InfoRequest | LeaveMessage) : null;
    default:
      return null;
  }
}

function isSerializedError(value: unknown): value is SerializedError {
  return isObject(value) && isErrorCode(value['code']) && typeof value['message'] === 'string';
}

function isMember(value: unknown): value is MemberWire {
  return (
    isObject(value) &&
    isId(value['clientId']) &&
    isPayload(value['userInfo']) &&
    (value['userId'] === null || isId(value['userId'], 256)) &&
    isTime(value['connectedAt']) &&
    (value['peerId'] === null || isId(value['peerId']))
  );
}

function isPresenceChange(value: unknown): value is PresenceChange {
  if (!isObject(value) || value['type'] !== 'presence') return false;
  const op = value['op'];
  if (op === 'remove') return isId(value['clientId']);
  return (op === 'add' || op === 'update') && isMember(value['member']);
}

/**
 * Checks a server frame (already parsed). Clients trust their server less
 * than fully: a malformed frame is dropped, not acted on.
 */
export function parseServerMessage(value: unknown): ServerMessage | null {
  if (!isObject(value)) return null;
  switch (value['type']) {
    case 'event':
      return isId(value['from']) &&
        (value['userId'] === null || isId(value['userId'], 256)) &&
        isCount(value['seq']) &&
        typeof value['name'] === 'string' &&
        isPayload(value['payload']) &&
        isTime(value['ts'])
        ? (value as unknown as EventMessage)
        : null;
    case 'pong':
      return isCount(value['id']) && isTime(value['c']) && isTime(value['s']) ? (value as unknown as PongMessage) : null;
    case 'presence': {
      if (value['op'] === 'batch') {
        const changes = value['changes'];
        return Array.isArray(changes) && changes.length > 0 && changes.every(isPresenceChange) ? (value as unknown as PresenceMessage) : null;
      }
      return isPresenceChange(value) ? value : null;
    }
    case 'joined': {
      const limits = value['limits'];
      const peer = value['peer'];
      const ok =
        isCount(value['id']) &&
        isId(value['clientId']) &&
        isShardName(value['shardName']) &&
        typeof value['resumeToken'] === 'string' &&
        typeof value['resumed'] === 'boolean' &&
        isCount(value['lastSeq']) &&
        (peer === null || (isObject(peer) && isId(peer['id']) && isId(peer['token']))) &&
        Array.isArray(value['members']) &&
        value['members'].every(isMember) &&
        isObject(limits) &&
        ['maxPayloadBytes', 'maxEventsPerSecond', 'maxUserInfoBytes', 'meshMaxMembers', 'reconnectGraceMs', 'heartbeatIntervalMs'].every((key) =>
          isCount(limits[key]),
        ) &&
        (value['userId'] === null || isId(value['userId'], 256)) &&
        (value['identifyError'] === null || isSerializedError(value['identifyError'])) &&
        isTime(value['s']);
      return ok ? (value as unknown as JoinedMessage) : null;
    }
    case 'ok':
      return isCount(value['id']) ? (value as unknown as OkMessage) : null;
    case 'error':
      return isSerializedError(value['error']) &&
        (value['id'] === undefined || isCount(value['id'])) &&
        (value['seq'] === undefined || isCount(value['seq']))
        ? (value as unknown as ErrorMessage)
        : null;
    case 'info':
      return isCount(value['id']) &&
        Array.isArray(value['shards']) &&
        value['shards'].every((shard) => isObject(shard) && isShardName(shard['shardName']) && isCount(shard['numConnectedClients']))
        ? (value as unknown as InfoMessage)
        : null;
    default:
      return null;
  }
}

/** Checks a frame from another member's data channel. */
export function parsePeerFrame(text: unknown): PeerEventFrame | null {
  const value = parseJsonObject(text);
  if (value === null || value['type'] !== 'event') return null;
  const { seq, prev, name, payload, ts } = value;
  return isCount(seq) && seq > 0 && isCount(prev) && prev < seq && isEventName(name) && isPayload(payload) && isTime(ts)
    ? (value as unknown as PeerEventFrame)
    : null;
}

// ─── event frames, serialized once ─────────────────────────────────────────

/**
 * The members every frame of one event shares, `"seq":…,"name":…,"payload":…,"ts":…`,
 * from the payload's JSON text (the sender serializes the payload once, for
 * its size check and every path and recipient). `name` must pass
 * {@link isEventName}: none of its characters needs escaping in JSON.
 */
export function eventFrameBody(seq: number, name: string, payloadJson: string, ts: number): string {
  // A finite number prints as JSON.stringify prints it.
  return `"seq":${seq},"name":"${name}","payload":${payloadJson},"ts":${ts}`;
}

/** Start of every `emit` frame {@link emitFrame} makes; the server splices what follows it. */
export const EMIT_FRAME_PREFIX = '{"type":"emit",';

/** The {@link EmitMessage} text of an event body, to `to` (or to every other member when null). */
export function emitFrame(body: string, to: readonly string[] | null): string {
  return to === null ? `${EMIT_FRAME_PREFIX}${body}}` : `${EMIT_FRAME_PREFIX}${body},"to":${JSON.stringify(to)}}`;
}

/** The {@link EmitMessage} text that resends by the relay an event a dead data channel did not deliver to `to`. */
export function resendFrame(body: string, to: string): string {
  return `${EMIT_FRAME_PREFIX}${body},"to":${JSON.stringify([to])},"re":true}`;
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

/** How many members an `emit` without `to` has: type, seq, name, payload and ts. */
const EMIT_MEMBERS = 5;

/**
 * The {@link EventMessage} text the server relays for a checked `emit`.
 *
 * Spliced from the sender's `text` when that is safe, so the payload is
 * neither serialized again nor walked: the text starts with
 * {@link EMIT_FRAME_PREFIX} and its object has no member besides type, seq,
 * name, payload and ts. Every member of the text is a member of the parsed
 * `message`, so counting the latter's proves that no `from`, `userId` or `to`
 * hides in the text; a repeated member parses to the same last value at the
 * server and at every receiver, which is what the server checked (a repeated
 * `type` would only make receivers drop that sender's own event). Otherwise
 * (`to`, other members, other spacing) the frame is serialized from the
 * checked fields, as before: recipients never see `to` or unknown members.
 */
export function relayedEventFrame(text: string, message: EmitMessage, from: string, userId: string | null): string {
  const head = `{"type":"event","from":${JSON.stringify(from)},"userId":${userId === null ? 'null' : JSON.stringify(userId)},`;
  if (text.startsWith(EMIT_FRAME_PREFIX) && message.to === undefined) {
    let members = 0;
    for (const key in message) if (Object.prototype.hasOwnProperty.call(message, key)) members++;
    if (members === EMIT_MEMBERS) return head + text.slice(EMIT_FRAME_PREFIX.length);
  }
  return head + `"seq":${message.seq},"name":${JSON.stringify(message.name)},"payload":${JSON.stringify(message.payload)},"ts":${message.ts}}`;
}

// ─── join in the handshake (v2) ────────────────────────────────────────────

/**
 * The subprotocols that carry `join` in the WebSocket handshake
 * (`[CONTROL_SUBPROTOCOL, 'platform-kit.join.<base64url JSON>']`), or `null`
 * when this join must go as the first frame instead: it carries a project
 * token (a long-lived secret stays out of every header), or it is longer
 * than {@link MAX_HANDSHAKE_JOIN_CHARS}.
 */
export function encodeHandshakeJoin(join: JoinMessage): readonly string[] | null {
  if (join.projectToken !== undefined) return null;
  const bytes = new TextEncoder().encode(JSON.stringify(join));
  if (bytes.length > (MAX_HANDSHAKE_JOIN_CHARS / 4) * 3) return null;
  return [CONTROL_SUBPROTOCOL, JOIN_SUBPROTOCOL_PREFIX + base64Url(bytes)];
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * base64url without padding. Written out because btoa needs a binary string
 * first and three regex passes after, and Node's btoa is a slow JavaScript
 * loop: this is 2.7× faster there (1.2 against 3.4 µs for a join) and
 * needs no Buffer, so it is the same code in the browser.
 */
function base64Url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64URL_ALPHABET[n >>> 18]! + BASE64URL_ALPHABET[(n >>> 12) & 63]! + BASE64URL_ALPHABET[(n >>> 6) & 63]! + BASE64URL_ALPHABET[n & 63]!;
  }
  if (i < bytes.length) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += BASE64URL_ALPHABET[n >>> 18]! + BASE64URL_ALPHABET[(n >>> 12) & 63]!;
    if (i + 1 < bytes.length) out += BASE64URL_ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}

/**
 * The join a client offered in its handshake (`Sec-WebSocket-Protocol`):
 * `undefined` when it offered none, `null` when the offer is malformed (not
 * base64url JSON, not a valid `join`). Never throws. `decodeBase64Url` turns
 * base64url into text (the server passes Node's Buffer: `atob` costs more
 * than the rest of a join).
 */
export function parseHandshakeJoin(header: unknown, decodeBase64Url: (encoded: string) => string): JoinMessage | null | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || header.length > MAX_HANDSHAKE_JOIN_CHARS + 256) return null;
  const at = header.indexOf(JOIN_SUBPROTOCOL_PREFIX);
  if (at < 0) return undefined;
  const end = header.indexOf(',', at);
  const offered = header.slice(at + JOIN_SUBPROTOCOL_PREFIX.length, end < 0 ? header.length : end).trim();
  if (!BASE64URL_PATTERN.test(offered)) return null;
  let text: string;
  try {
    text = decodeBase64Url(offered);
  } catch {
    // Not base64url: the caller answers INVALID_MESSAGE, like a malformed frame.
    return null;
  }
  const message = parseClientMessage(parseJsonObject(text));
  return message?.type === 'join' ? message : null;
}

const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Read once: it never changes within a page or process, and reading it costs
 * more than `performance.now()` itself in Chrome (a DOM attribute), on a clock
 * read three times per event.
 */
const TIME_ORIGIN = performance.timeOrigin;

/** The clock both sides use: ms since the epoch with sub-ms resolution, monotonic within a page or process. */
export function preciseNow(): number {
  return TIME_ORIGIN + performance.now();
}
