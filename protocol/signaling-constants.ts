/**
 * The signaling wire's constants: its version, paths, close codes, default
 * and hard limits (and {@link WireLimits}, the limits a client learns in
 * `joined`), and the names it accepts (events, shards, projects).
 */
// The wire's version, its control path and the project id's pattern live in signaling-endpoint.ts,
// which a guest's first load imports alone (a module's every used constant is fetched with it).

export { CONTROL_PATH, PROJECT_ID_PATTERN, SIGNALING_VERSION } from './signaling-endpoint.js';
/** Oldest version a server still speaks: v1 clients join by frame and get presence one change per frame. */
export const MIN_SIGNALING_VERSION = 1;

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

/** The server's defaults of {@link WireLimits}: what it sends unless configured otherwise, and what a client assumes before its first `joined`. */
export const DEFAULT_WIRE_LIMITS: WireLimits = {
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  maxEventsPerSecond: DEFAULT_MAX_EVENTS_PER_SECOND,
  maxUserInfoBytes: MAX_USER_INFO_BYTES,
  meshMaxMembers: 16,
  reconnectGraceMs: 30_000,
  heartbeatIntervalMs: 10_000,
};
