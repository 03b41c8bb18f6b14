/**
 * Server → client frames on the control socket: their types
 * ({@link ServerMessage}) and their guard, {@link parseServerMessage}.
 */
import { isErrorCode, type SerializedError } from './errors.js';
import { unreachable } from './exhaustive.js';
import { isCount, isId, isObject, isPayload, isTime } from './frame-guards.js';
import { isMeshSignalFrame, type MeshSignalFrame } from './mesh-signal-frames.js';
import { isShardName, type WireLimits } from './signaling-constants.js';
import { isPresenceState, type EventPayload, type MemberWire, type ShardInfo } from './signaling-members.js';
import {
  isStateSyncWire,
  parseStateServerFrame,
  withSyncUpdate,
  type StateRelayMessage,
  type StateResyncMessage,
  type StateSyncedMessage,
  type StateSyncReply,
} from './state-frames.js';

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
  /**
   * This client's peer id and the token that binds it (browser clients). `control`: its mesh signals
   * on the control socket, as its join asked (mesh-signal-frames.ts); absent: on a PeerJS socket.
   */
  readonly peer: { readonly id: string; readonly token: string; readonly control?: true } | null;
  readonly members: readonly MemberWire[];
  readonly limits: WireLimits;
  /** The verified user id when `authorization` was valid. */
  readonly userId: string | null;
  /** Why `authorization` was refused; the client is connected anyway, unidentified. */
  readonly identifyError: SerializedError | null;
  /** Server clock at send. */
  readonly s: number;
  /** True when this client watches the shard (a spectator): it is in no member list and sends no event. */
  readonly spectator?: true;
  /** How many spectators watch the shard now. */
  readonly watchers?: number;
  /** SyncStep2 of the shard's state, when the join carried a state vector (state-frames.ts). */
  readonly state?: StateSyncReply;
  /** The shard's recent events (oldest first), when the join asked for `history`. */
  readonly history?: readonly EventMessage[];
}
/** How many spectators watch the shard: sent to players and spectators when it changes (coalesced). */
export interface WatchersMessage {
  readonly type: 'watchers';
  readonly count: number;
}
/** To spectators: a player left the shard for good, so a seat may be free (ask for it with a `takeSeat` request). */
export interface SeatMessage {
  readonly type: 'seat';
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
  { readonly type: 'presence'; readonly op: 'add' | 'update'; readonly member: MemberWire } | { readonly type: 'presence'; readonly op: 'remove'; readonly clientId: string };
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
export type ServerMessage =
  | JoinedMessage
  | OkMessage
  | ErrorMessage
  | EventMessage
  | PresenceMessage
  | InfoMessage
  | PongMessage
  | WatchersMessage
  | SeatMessage
  | StateSyncedMessage
  | StateRelayMessage
  | StateResyncMessage
  | MeshSignalFrame;

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
    // Absent from a server of an earlier version: the member is here (guest/dispatch/membership.ts).
    (value['state'] === undefined || isPresenceState(value['state'])) &&
    (value['peerId'] === null || isId(value['peerId']))
  );
}

function isPresenceChange(value: unknown): value is PresenceChange {
  if (!isObject(value) || value['type'] !== 'presence') return false;
  const op = value['op'];
  if (op === 'remove') return isId(value['clientId']);
  return (op === 'add' || op === 'update') && isMember(value['member']);
}

/** True for a relayed {@link EventMessage} (also each one of `joined`'s `history`). */
function isEventMessage(value: unknown): value is EventMessage {
  return (
    isObject(value) &&
    value['type'] === 'event' &&
    isId(value['from']) &&
    (value['userId'] === null || isId(value['userId'], 256)) &&
    isCount(value['seq']) &&
    typeof value['name'] === 'string' &&
    isPayload(value['payload']) &&
    isTime(value['ts'])
  );
}

/** Every server frame type, each once: a type added to {@link ServerMessage} and not here does not compile. */
const SERVER_FRAME_TYPES: { readonly [Type in ServerMessage['type']]: true } = {
  joined: true,
  watchers: true,
  seat: true,
  ok: true,
  error: true,
  event: true,
  presence: true,
  info: true,
  pong: true,
  stateSynced: true,
  state: true,
  stateResync: true,
  signal: true,
};

function isServerFrameType(value: unknown): value is ServerMessage['type'] {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(SERVER_FRAME_TYPES, value);
}

/**
 * Checks a server frame (already parsed). Clients trust their server less
 * than fully: a malformed frame is dropped, not acted on. `attachment` is the
 * binary frame that came right before this one, if any: SyncStep2's diff
 * (state-frames.ts), joined here to the `joined` or `stateSynced` that
 * announces it.
 */
export function parseServerMessage(value: unknown, attachment: Uint8Array | null = null): ServerMessage | null {
  if (!isObject(value)) return null;
  const type = value['type'];
  if (!isServerFrameType(type)) return null;
  // One case per frame type: a type without its guard is a compile error at `unreachable`.
  switch (type) {
    case 'event':
      return isEventMessage(value) ? value : null;
    case 'state':
    case 'stateSynced':
    case 'stateResync':
      return parseStateServerFrame(value, attachment);
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
        (peer === null || (isObject(peer) && isId(peer['id']) && isId(peer['token']) && (peer['control'] === undefined || peer['control'] === true))) &&
        Array.isArray(value['members']) &&
        value['members'].every(isMember) &&
        isObject(limits) &&
        ['maxPayloadBytes', 'maxEventsPerSecond', 'maxUserInfoBytes', 'meshMaxMembers', 'reconnectGraceMs', 'heartbeatIntervalMs'].every((key) => isCount(limits[key])) &&
        (value['userId'] === null || isId(value['userId'], 256)) &&
        (value['identifyError'] === null || isSerializedError(value['identifyError'])) &&
        isTime(value['s']) &&
        (value['spectator'] === undefined || value['spectator'] === true) &&
        (value['watchers'] === undefined || isCount(value['watchers'])) &&
        (value['state'] === undefined || isStateSyncWire(value['state'])) &&
        (value['history'] === undefined || (Array.isArray(value['history']) && value['history'].every(isEventMessage)));
      if (!ok) return null;
      const joined = value as unknown as JoinedMessage;
      if (joined.state === undefined) return joined;
      const state = withSyncUpdate(joined.state, attachment);
      return state ? { ...joined, state } : null;
    }
    case 'ok':
      return isCount(value['id']) ? (value as unknown as OkMessage) : null;
    case 'watchers':
      return isCount(value['count']) ? (value as unknown as WatchersMessage) : null;
    case 'seat':
      return { type: 'seat' };
    case 'signal':
      return isMeshSignalFrame(value) ? value : null;
    case 'error':
      return isSerializedError(value['error']) && (value['id'] === undefined || isCount(value['id'])) && (value['seq'] === undefined || isCount(value['seq']))
        ? (value as unknown as ErrorMessage)
        : null;
    case 'info':
      return isCount(value['id']) &&
        Array.isArray(value['shards']) &&
        value['shards'].every((shard) => isObject(shard) && isShardName(shard['shardName']) && isCount(shard['numConnectedClients']))
        ? (value as unknown as InfoMessage)
        : null;
    default:
      return unreachable(type, 'server frame type');
  }
}
