/**
 * Client → server frames on the control socket: their types
 * ({@link ClientMessage}) and their guard, {@link parseClientMessage}.
 */
import { unreachable } from './exhaustive.js';
import { isCount, isId, isObject, isPayload, isTime } from './frame-guards.js';
import { isEventName, MAX_RECIPIENTS, PROJECT_ID_PATTERN } from './signaling-constants.js';
import { isMeshSignalMessage, type MeshSignalMessage } from './mesh-signal-frames.js';
import { isPresenceState, type EventPayload, type PresenceState } from './signaling-members.js';
import {
  base64CharsFor,
  DEFAULT_MAX_STATE_BYTES,
  isBase64,
  MAX_HISTORY_EVENTS,
  MAX_STATE_VECTOR_CHARS,
  parseStateClientFrame,
  type StateSyncRequest,
  type StateUpdateMessage,
} from './state-frames.js';

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
  /** Joins `'away'` (a template preloaded in a feed): the others list it once it says `'here'`. Absent: here. */
  readonly state?: PresenceState;
  /** Watches the shard instead of playing in it (see DispatchConfigurationInput.spectator). */
  readonly spectator?: true;
  /** A full named shard makes this client a spectator instead of answering SHARD_FULL. */
  readonly spectateWhenFull?: true;
  /**
   * The client's state vector (base64), when it holds the shard's state (`platform-kit/guest/state`):
   * `joined` then carries what it lacks (state-frames.ts, SyncStep1 and 2).
   */
  readonly stateVector?: string;
  /** The shard's last this-many events, replayed after `joined` (at most {@link MAX_HISTORY_EVENTS}). */
  readonly history?: number;
  /**
   * A browser client's mesh signals on this socket (`signal` frames, mesh-signal-frames.ts) rather
   * than on a PeerJS socket; `joined.peer.control` says whether the server agreed.
   */
  readonly meshSignaling?: 'control';
  /**
   * `false`: a browser client that makes no peer connections (relay only: `mesh: false`, or a page
   * without WebRTC, as in a Discord Activity). The server issues it no peer id, so no member offers
   * it a data channel that could never open, and it signals nothing. Absent: the client takes part
   * in the mesh. Optional and ignored by servers that predate it (they issue a peer id nobody
   * answers for, as before), so the protocol version stays 2. Never with `meshSignaling`.
   */
  readonly mesh?: false;
}
/** Tells the shard whether this member is looked at ({@link PresenceState}); answered `ok`. */
export interface FocusMessage {
  readonly type: 'focus';
  readonly id: number;
  readonly state: PresenceState;
}
/** A spectator asks for a seat among the players; answered `joined` (now a player) or SHARD_FULL. */
export interface TakeSeatMessage {
  readonly type: 'takeSeat';
  readonly id: number;
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
export type ClientMessage =
  | JoinMessage
  | IdentifyMessage
  | UserInfoMessage
  | EmitMessage
  | InfoRequest
  | PingMessage
  | LeaveMessage
  | FocusMessage
  | TakeSeatMessage
  | StateUpdateMessage
  | StateSyncRequest
  | MeshSignalMessage;

function isRecipients(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.length <= MAX_RECIPIENTS && value.every((item) => isId(item, 256));
}

/** Every client frame type, each once: a type added to {@link ClientMessage} and not here does not compile. */
const CLIENT_FRAME_TYPES: { readonly [Type in ClientMessage['type']]: true } = {
  join: true,
  identify: true,
  userInfo: true,
  emit: true,
  info: true,
  ping: true,
  leave: true,
  focus: true,
  takeSeat: true,
  state: true,
  stateSync: true,
  signal: true,
};

function isClientFrameType(value: unknown): value is ClientMessage['type'] {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CLIENT_FRAME_TYPES, value);
}

/**
 * Checks a client frame (already parsed). `null` when it is not a valid {@link ClientMessage}.
 * `maxStateBytes` bounds a state update (the server's largest shard state).
 */
export function parseClientMessage(value: unknown, maxStateBytes = DEFAULT_MAX_STATE_BYTES): ClientMessage | null {
  if (!isObject(value)) return null;
  const type = value['type'];
  if (!isClientFrameType(type)) return null;
  // One case per frame type: a type without its guard is a compile error at `unreachable`.
  switch (type) {
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
      const { v, id, projectId, projectToken, kind, shardName, maxConnectionsPerShard, authorization, userInfo, resume, state, spectator, spectateWhenFull } = value;
      if (!isCount(v) || !isCount(id) || typeof projectId !== 'string' || !PROJECT_ID_PATTERN.test(projectId)) return null;
      if (kind !== 'browser' && kind !== 'backend') return null;
      if (projectToken !== undefined && !isId(projectToken, 1024)) return null;
      if (shardName !== undefined && typeof shardName !== 'string') return null;
      if (maxConnectionsPerShard !== undefined && !isCount(maxConnectionsPerShard)) return null;
      if (authorization !== undefined && !isId(authorization, 8192)) return null;
      if (userInfo !== undefined && !isPayload(userInfo)) return null;
      if (resume !== undefined && !(isObject(resume) && isId(resume['clientId']) && isId(resume['resumeToken'], 512))) return null;
      if (state !== undefined && !isPresenceState(state)) return null;
      if ((spectator !== undefined && spectator !== true) || (spectateWhenFull !== undefined && spectateWhenFull !== true)) return null;
      if (value['stateVector'] !== undefined && !isBase64(value['stateVector'], MAX_STATE_VECTOR_CHARS)) return null;
      const history = value['history'];
      if (history !== undefined && !(isCount(history) && history <= MAX_HISTORY_EVENTS)) return null;
      if (value['meshSignaling'] !== undefined && value['meshSignaling'] !== 'control') return null;
      // Relay only and a mesh's signalling at once says two things: refused rather than guessed.
      if (value['mesh'] !== undefined && (value['mesh'] !== false || value['meshSignaling'] !== undefined)) return null;
      return value as unknown as JoinMessage;
    }
    case 'identify':
      return isCount(value['id']) && isId(value['token'], 8192) ? (value as unknown as IdentifyMessage) : null;
    case 'userInfo':
      return isCount(value['id']) && isPayload(value['userInfo']) ? (value as unknown as UserInfoMessage) : null;
    case 'focus':
      return isCount(value['id']) && isPresenceState(value['state']) ? (value as unknown as FocusMessage) : null;
    case 'state':
    case 'stateSync':
      return parseStateClientFrame(value, base64CharsFor(maxStateBytes));
    case 'signal':
      return isMeshSignalMessage(value) ? value : null;
    case 'info':
    case 'leave':
    case 'takeSeat':
      return isCount(value['id']) ? (value as unknown as InfoRequest | LeaveMessage | TakeSeatMessage) : null;
    default:
      return unreachable(type, 'client frame type');
  }
}
