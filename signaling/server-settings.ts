/**
 * The server's options resolved once, at {@link resolveSettings}: every
 * default applied and every value checked, so a bad configuration fails at
 * `createSignalingServer` with `INVALID_CONFIG` instead of misbehaving later.
 * The handlers read these settings, never the raw options.
 */
import { DEFAULT_MAX_JSON_DEPTH } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import {
  DEFAULT_MAX_EVENTS_PER_SECOND,
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_MAX_STATE_BYTES,
  DEFAULT_WIRE_LIMITS,
  MAX_HISTORY_EVENTS,
  MAX_USER_INFO_BYTES,
  type WireLimits,
} from '../protocol/signaling.js';
import type { SignalingLimits, SignalingServerOptions } from './server-options.js';

/** The default of every limit (documented on {@link SignalingLimits}). */
export const DEFAULT_LIMITS: SignalingLimits = {
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  maxEventsPerSecond: DEFAULT_MAX_EVENTS_PER_SECOND,
  maxMessagesPerSecond: 50,
  maxJoinsPerAddressPerMinute: 3_000,
  maxShardsPerProject: 10_000,
  maxUserInfoBytes: MAX_USER_INFO_BYTES,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
  maxRefusals: 30,
  maxPeerMessagesPerSecond: 200,
  maxShardsPerAddressPerMinute: 100,
  maxSpectatorsPerShard: 10_000,
  maxInfoShards: 100,
  maxUnjoinedSocketsPerAddress: 256,
  maxStateBytes: DEFAULT_MAX_STATE_BYTES,
  historyEvents: MAX_HISTORY_EVENTS,
};

/** The options of a server with their defaults, checked. */
export interface ServerSettings {
  readonly limits: SignalingLimits;
  /** Whether {@link SignalingLimits.maxJoinsPerAddressPerMinute} is on (neither 0 nor Infinity). */
  readonly joinLimited: boolean;
  /** Whether {@link SignalingLimits.maxShardsPerAddressPerMinute} is on. */
  readonly shardsLimited: boolean;
  /** Whether {@link SignalingLimits.maxUnjoinedSocketsPerAddress} is on. */
  readonly unjoinedLimited: boolean;
  /** Whether a socket's address is read at all (it costs a header parse per upgrade). */
  readonly addressNeeded: boolean;
  readonly trustProxy: number;
  readonly heartbeatIntervalMs: number;
  readonly reconnectGraceMs: number;
  readonly joinTimeoutMs: number;
  readonly presenceIntervalMs: number;
  readonly meshMaxMembers: number;
  /** What `joined` tells every client of the limits: one object for all. */
  readonly wireLimits: WireLimits;
}

/** A per-address allowance: a whole number, 0 or Infinity meaning none. */
function checkAllowance(value: number, name: string): boolean {
  if (!(value === Infinity || (Number.isInteger(value) && value >= 0))) {
    throw new PlatformError('INVALID_CONFIG', `${name} is a whole number (0 or Infinity: no limit)`);
  }
  return value > 0 && value !== Infinity;
}

/** Applies the defaults to `options` and checks them; throws `INVALID_CONFIG` on the first bad value. */
export function resolveSettings(options: SignalingServerOptions): ServerSettings {
  const limits: SignalingLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (limits.maxUserInfoBytes > MAX_USER_INFO_BYTES) throw new PlatformError('INVALID_CONFIG', `maxUserInfoBytes is at most ${MAX_USER_INFO_BYTES}`);
  const joinLimited = checkAllowance(limits.maxJoinsPerAddressPerMinute, 'maxJoinsPerAddressPerMinute');
  const shardsLimited = checkAllowance(limits.maxShardsPerAddressPerMinute, 'maxShardsPerAddressPerMinute');
  const unjoinedLimited = checkAllowance(limits.maxUnjoinedSocketsPerAddress, 'maxUnjoinedSocketsPerAddress');
  for (const key of ['maxJsonDepth', 'maxRefusals', 'maxPeerMessagesPerSecond', 'maxInfoShards', 'maxSpectatorsPerShard'] as const) {
    const value = limits[key];
    if (!(value === Infinity || (Number.isInteger(value) && value >= 1))) throw new PlatformError('INVALID_CONFIG', `${key} is a whole number of at least 1 (or Infinity)`);
  }
  if (!(Number.isInteger(limits.maxStateBytes) && limits.maxStateBytes >= 1024 && limits.maxStateBytes <= 64 * 1024 * 1024)) {
    throw new PlatformError('INVALID_CONFIG', 'maxStateBytes is a whole number of bytes, 1,024 to 64 MiB');
  }
  if (!(Number.isInteger(limits.historyEvents) && limits.historyEvents >= 0 && limits.historyEvents <= MAX_HISTORY_EVENTS)) {
    throw new PlatformError('INVALID_CONFIG', `historyEvents is a whole number, 0 to ${MAX_HISTORY_EVENTS}`);
  }
  const trustProxy = options.trustProxy ?? 0;
  if (!(Number.isInteger(trustProxy) && trustProxy >= 0)) throw new PlatformError('INVALID_CONFIG', 'trustProxy is a number of proxies (0: none)');
  const presenceIntervalMs = options.presenceIntervalMs ?? 25;
  if (!(presenceIntervalMs >= 0 && presenceIntervalMs <= 60_000)) throw new PlatformError('INVALID_CONFIG', 'presenceIntervalMs is 0 to 60,000 ms');
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? DEFAULT_WIRE_LIMITS.heartbeatIntervalMs;
  const reconnectGraceMs = options.reconnectGraceMs ?? DEFAULT_WIRE_LIMITS.reconnectGraceMs;
  const meshMaxMembers = options.meshMaxMembers ?? DEFAULT_WIRE_LIMITS.meshMaxMembers;
  return {
    limits,
    joinLimited,
    shardsLimited,
    unjoinedLimited,
    addressNeeded: joinLimited || shardsLimited || unjoinedLimited,
    trustProxy,
    heartbeatIntervalMs,
    reconnectGraceMs,
    joinTimeoutMs: options.joinTimeoutMs ?? 10_000,
    presenceIntervalMs,
    meshMaxMembers,
    wireLimits: {
      maxPayloadBytes: limits.maxPayloadBytes,
      maxEventsPerSecond: limits.maxEventsPerSecond,
      maxUserInfoBytes: limits.maxUserInfoBytes,
      meshMaxMembers,
      reconnectGraceMs,
      heartbeatIntervalMs,
    },
  };
}
