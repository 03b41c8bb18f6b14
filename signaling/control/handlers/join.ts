/**
 * `join` (a frame, or the join offered in the handshake): admission
 * (join-admission.ts), placement or resume (placement.ts), then the member
 * enters its shard's hub on this node (relay.ts), is answered `joined` (its
 * ids, resume token, peer credentials, the members, the limits, the server's
 * clock) and announced to the others (presence.ts).
 */
import { isPlatformError, type ErrorCode } from '../../../protocol/errors.js';
import { preciseNow, type EventMessage, type JoinedMessage, type JoinMessage, type MemberWire, type StateSyncReply } from '../../../protocol/signaling.js';
import type { MemberRecord } from '../../store/store.js';
import type { Connection } from '../control-socket.js';
import { shardKey, type ServerContext } from '../context.js';
import { admitJoin, checkJoin, verifyJoinUser, type JoinIdentity } from '../join-admission.js';
import { send, sendRaw, sendWithUpdate } from '../outbox.js';
import { fallback, placeNew, resume, spectate } from '../placement.js';
import { publishPresence, toWire } from '../presence.js';
import { clock } from '../rate-buckets.js';
import { fail, refuse } from '../refusals.js';
import { attach, detach } from '../relay.js';
import { finalize } from '../member-session.js';
import { totalWatchers } from '../spectators.js';
import { controlLine } from './signal.js';
import { syncReply } from './state.js';

/** Handles a join; a failure of the store or of the server itself is answered, never thrown. */
export function onJoinFrame(ctx: ServerContext, connection: Connection, message: JoinMessage): void {
  void onJoin(ctx, connection, message).catch((error: unknown) => {
    ctx.log(`platform-kit: join failed: ${String(error)}`);
    if (connection.state === 'joining') connection.state = 'new';
    // UNAVAILABLE (Redis out of reach) tells the client to retry; anything else is a bug here.
    const code: ErrorCode = isPlatformError(error) && error.code === 'UNAVAILABLE' ? 'UNAVAILABLE' : 'INTERNAL';
    fail(ctx, connection, code, code === 'UNAVAILABLE' ? 'the server cannot reach its state store; retry shortly' : 'join failed', { id: message.id });
  });
}

async function onJoin(ctx: ServerContext, connection: Connection, message: JoinMessage): Promise<void> {
  const id = message.id;
  const checked = checkJoin(ctx, connection, message);
  if (checked === null) return;
  const turn = ctx.joinGate.enter();
  if (turn === null) {
    return fail(ctx, connection, 'UNAVAILABLE', 'this server has too many joins waiting; retry shortly', { id });
  }
  connection.state = 'joining';
  const release = await turn;
  // Closed while it waited (the close found no turn to give back): the turn goes to the next join.
  if (connection.state !== 'joining' || connection.socket.readyState !== connection.socket.OPEN) return release();
  connection.joinTurnAt = clock();
  connection.releaseJoinTurn = release;
  try {
    await joinInTurn(ctx, connection, message, checked);
  } finally {
    release();
    connection.releaseJoinTurn = undefined;
    connection.joinTurnAt = -1;
  }
}

/** The join itself, in its turn (join-gate.ts). */
async function joinInTurn(ctx: ServerContext, connection: Connection, message: JoinMessage, checked: NonNullable<ReturnType<typeof checkJoin>>): Promise<void> {
  const id = message.id;
  connection.version = message.v;
  connection.projectId = message.projectId;
  connection.kind = message.kind;
  connection.maxConnectionsPerShard = checked.maxConnectionsPerShard;
  // Counted on every node at once (the store's allowance); 'joining' already refuses a second join meanwhile.
  if (ctx.settings.joinLimited && !(await admitJoin(ctx, connection))) {
    ctx.counters.joinsRateLimited++;
    const perMinute = ctx.limits.maxJoinsPerAddressPerMinute;
    return refuse(ctx, connection, 'RATE_LIMITED', `more than ${perMinute} joins per minute from this address; retry later`, id);
  }
  const identity = await verifyJoinUser(ctx, connection, message, checked.project);
  if (identity === null) return;

  connection.away = message.state === 'away';
  connection.mesh = message.mesh === false ? 'none' : message.meshSignaling === 'control' && message.kind === 'browser' ? 'control' : 'peerjs';
  // A spectator is never resumed: it holds no place to take back (spectators.ts).
  const resumed = message.resume && message.spectator !== true ? await resume(ctx, connection, message, identity.userId, checked.userInfo) : false;
  if (connection.state !== 'joining') return; // the socket closed meanwhile (resume cleaned up)
  if (!resumed) {
    const placed = message.spectator === true ? 'spectate' : await placeNew(ctx, connection, message, identity.userId, checked.userInfo);
    if (placed === false) return;
    if (placed === 'spectate' && !(await spectate(ctx, connection, message, identity.userId))) return;
  }
  if (connection.socket.readyState !== connection.socket.OPEN) {
    // Closed while joining: nobody will ever resume this one.
    connection.state = 'joined';
    detach(ctx, connection);
    return void finalize(ctx, connection, false);
  }
  ctx.counters.joins++;
  connection.state = 'joined';
  // Listen to the shard first, then read its members: a change made after the read arrives through
  // the hub, one made before it is in the list, and none falls between (a join on another node just
  // after this one's placement would otherwise be missed for good). What the hub delivers meanwhile
  // waits in `held` and follows the `joined` answer, in order.
  connection.held = [];
  // The hub's key is the peer's scope: one string per shard, not one per client.
  const scope = attach(ctx, connection);
  if (connection.peerId) ctx.peers.register(connection.peerId, connection.peerToken, scope, connection.mesh === 'control' ? controlLine(ctx, connection) : null);
  let members: readonly MemberRecord[];
  let extras: JoinExtras;
  try {
    [members, extras] = await Promise.all([ctx.store.members(connection.projectId, connection.shardName), readExtras(ctx, connection, message)]);
  } catch (error) {
    connection.held = null;
    if (connection.state === 'joined') {
      // Placed but not told whom it is with: out again, and the client retries the join.
      detach(ctx, connection);
      if (connection.peerId) ctx.peers.revoke(connection.peerId);
      await ctx.store.leave(connection.projectId, connection.shardName, connection.clientId).catch(ctx.storeError);
      fallback(connection);
      connection.state = 'joining'; // onJoinFrame's catch makes it 'new' and answers UNAVAILABLE
    }
    throw error;
  }
  // The socket closed while the list was read: the close already took the member out of the hub (member-session.ts).
  if (connection.state !== 'joined') {
    connection.held = null;
    return;
  }
  answerJoined(ctx, connection, id, members, resumed, identity, extras);
}

/** What a join may ask for beside its place: the shard's state (SyncStep2) and its recent events. */
interface JoinExtras {
  readonly state?: StateSyncReply;
  readonly history?: readonly EventMessage[];
}

/** Read after the hub listens (as the members are): an update or event that comes meanwhile is in the read or follows `joined`. */
async function readExtras(ctx: ServerContext, connection: Connection, message: JoinMessage): Promise<JoinExtras> {
  const store = ctx.store.state;
  if (!store) return {};
  if (message.stateVector !== undefined) connection.wantsState = true;
  const [state, frames] = await Promise.all([
    message.stateVector !== undefined ? syncReply(ctx, store, connection.projectId, connection.shardName, message.stateVector) : undefined,
    message.history ? store.recent(connection.projectId, connection.shardName, message.history) : undefined,
  ]);
  // The frames are the server's own texts of relayed events: parsed back for the one `joined` frame.
  const history = frames?.map((frame) => JSON.parse(frame) as EventMessage);
  return { ...(state ? { state } : {}), ...(history && history.length > 0 ? { history } : {}) };
}

/** Answers `joined` and announces the new member to the others (a spectator is announced by the count only). */
export function answerJoined(
  ctx: ServerContext,
  connection: Connection,
  id: number,
  members: readonly MemberRecord[],
  resumed: boolean,
  identity: JoinIdentity,
  extras: JoinExtras = {},
): void {
  // One pass: the wire list (online members and this one) and this client's own record.
  let self: MemberRecord | undefined;
  const list: MemberWire[] = [];
  for (const member of members) {
    const own = member.clientId === connection.clientId;
    if (own) self = member;
    if (own || member.online) list.push(toWire(member));
  }
  const joined: JoinedMessage = {
    type: 'joined',
    id,
    clientId: connection.clientId,
    shardName: connection.shardName,
    resumeToken: connection.spectator ? '' : ctx.running().resumeTokens.issue(ctx.bootId, connection.projectId, connection.shardName, connection.clientId),
    resumed,
    lastSeq: connection.lastSeq,
    peer: connection.peerId ? { id: connection.peerId, token: connection.peerToken, ...(connection.mesh === 'control' ? { control: true } : {}) } : null,
    members: list,
    limits: ctx.settings.wireLimits,
    userId: connection.userId,
    identifyError: identity.identifyError,
    s: preciseNow(),
    ...(connection.spectator ? { spectator: true } : {}),
    watchers: watchersOf(ctx, connection),
    ...extras,
  };
  const held = connection.held;
  connection.held = null;
  if (extras.state) sendWithUpdate(ctx, connection, joined, extras.state.update);
  else send(ctx, connection, joined);
  if (held) for (const frame of held) sendRaw(ctx, connection, frame);
  // toWire leaves `online` out: the record as stored (online) is what the others see.
  if (self) publishPresence(ctx, connection, { type: 'presence', op: 'add', member: toWire(self) }, connection.clientId);
}

function watchersOf(ctx: ServerContext, connection: Connection): number {
  const hub = ctx.hubs.get(shardKey(connection.projectId, connection.shardName));
  return hub ? totalWatchers(hub) : 0;
}
