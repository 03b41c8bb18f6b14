/**
 * Placement: where an admitted join goes. A fresh join gets a new client id
 * and a member record in the shard it named, or (without a name) in one with
 * room, within the shard's capacity and the project's shard count; a join
 * that opens a shard pays for it from its address's allowance
 * (SignalingLimits.maxShardsPerAddressPerMinute). A resume takes back an
 * earlier id and place, from this node, another node, or a restart.
 */
import type { ErrorCode } from '../../protocol/errors.js';
import type { EventPayload, JoinMessage } from '../../protocol/signaling.js';
import { randomId, readableShardName } from '../names.js';
import type { MemberRecord, ShardStore } from '../store/store.js';
import type { Connection } from './control-socket.js';
import { memberKey, shardKey, type ServerContext } from './context.js';
import { publishPresence } from './presence.js';
import { clock, restoreBuckets } from './rate-buckets.js';
import { fail } from './refusals.js';
import { detach } from './relay.js';
import { spectatorsFull } from './spectators.js';

/**
 * Places a fresh member: a new client id (and peer id) in the shard the join
 * names, or in one with room. Returns false once the join was refused
 * (answered; the connection is 'new' again).
 */
export async function placeNew(ctx: ServerContext, connection: Connection, message: JoinMessage, userId: string | null, userInfo: EventPayload): Promise<boolean | 'spectate'> {
  const id = message.id;
  connection.clientId = randomId();
  connection.userId = userId;
  issuePeerId(connection);
  const outcome = await joinStore(ctx, connection, message.shardName, userInfo);
  if (!outcome.ok) {
    // A full named shard, for a client that would rather watch than be turned away.
    if (outcome.reason === 'SHARD_FULL' && message.spectateWhenFull === true) return 'spectate';
    connection.state = 'new';
    const code: ErrorCode = outcome.reason === 'CLIENT_ID_TAKEN' ? 'INTERNAL' : outcome.reason;
    fail(ctx, connection, code, code === 'SHARD_FULL' ? `shard "${message.shardName ?? ''}" is full` : 'the project has too many shards', { id });
    return false;
  }
  // This join opened the shard, and pays for it from its address's allowance.
  if (ctx.settings.shardsLimited && outcome.opened && !(await admitNewShard(ctx, connection))) {
    await ctx.store.leave(connection.projectId, outcome.shardName, connection.clientId).catch(ctx.storeError);
    fallback(connection);
    ctx.counters.shardsRateLimited++;
    connection.state = 'new';
    const perMinute = ctx.limits.maxShardsPerAddressPerMinute;
    fail(ctx, connection, 'RATE_LIMITED', `more than ${perMinute} new shards per minute from this address; join an existing shard or retry later`, { id });
    return false;
  }
  connection.shardName = outcome.shardName;
  return true;
}

/**
 * Takes one new shard from the connection's address allowance
 * (SignalingLimits.maxShardsPerAddressPerMinute), counted like joins and in
 * the same place (the store's GCRA under its own key), so it holds across nodes.
 */
async function admitNewShard(ctx: ServerContext, connection: Connection): Promise<boolean> {
  const key = `shard ${connection.address}`;
  const perMinute = ctx.limits.maxShardsPerAddressPerMinute;
  try {
    return ctx.localJoins ? ctx.localJoins.take(key, perMinute) : await ctx.store.takeJoin!(key, perMinute);
  } catch {
    return true; // fails open with the join limit, for the same reason (join-admission.ts admitJoin)
  }
}

/** A browser client's peer id and the token that registers it (backend and relay-only clients have none). */
function issuePeerId(connection: Connection): void {
  if (connection.kind !== 'browser' || connection.mesh === 'none') return;
  connection.peerId = randomId(true);
  connection.peerToken = randomId();
}

/** Places the connection's member in `shardName` (or, without one, in a shard with room) within its limits. */
function joinStore(ctx: ServerContext, connection: Connection, shardName: string | undefined, userInfo: EventPayload): ReturnType<ShardStore['join']> {
  return ctx.store.join({
    projectId: connection.projectId,
    shardName,
    maxConnectionsPerShard: connection.maxConnectionsPerShard,
    maxShards: ctx.limits.maxShardsPerProject,
    member: memberRecord(connection, userInfo),
    newShardName: readableShardName,
  });
}

function memberRecord(connection: Connection, userInfo: EventPayload): MemberRecord {
  return {
    clientId: connection.clientId,
    userInfo,
    userId: connection.userId,
    connectedAt: Date.now(),
    peerId: connection.peerId,
    kind: connection.kind,
    online: true,
    state: connection.away ? 'away' : 'here',
  };
}

/** Takes back an earlier client id and place; true when it did, false for a fresh join. */
export async function resume(ctx: ServerContext, connection: Connection, message: JoinMessage, userId: string | null, userInfo: EventPayload): Promise<boolean> {
  const { clientId, resumeToken } = message.resume!;
  const checked = ctx.running().resumeTokens.check(resumeToken, message.projectId, clientId);
  if (!checked) return false; // forged or from another secret: a fresh join, never someone else's id
  const existing = await ctx.store.member(message.projectId, checked.shardName, clientId);
  connection.clientId = clientId;
  connection.shardName = checked.shardName;
  if (existing) {
    // Within the grace period, or the old socket is half open and not noticed yet: take over from it.
    const key = memberKey(connection);
    const previous = ctx.offline.get(key) ?? ctx.hubs.get(shardKey(connection.projectId, connection.shardName))?.locals.get(clientId);
    if (previous && previous !== connection) {
      takeOver(ctx, connection, previous, key);
    } else if (!previous) {
      // From another node (or after kill -9 of it): the buckets saved with the session.
      if (existing.rateBuckets) restoreBuckets(connection, existing.rateBuckets, ctx.limits, clock());
      // Held by another node (Redis): a fresh peer id, and the receivers' duplicate check covers resent events.
      issuePeerId(connection);
      // That node may still hold a half-open socket of this client: it drops it (no presence, no store change).
      if (ctx.nodeId !== null) ctx.store.publish(message.projectId, checked.shardName, { kind: 'takeover', clientId, node: ctx.nodeId });
    }
    connection.userId = userId ?? existing.userId;
    const member = await ctx.store.update(message.projectId, checked.shardName, clientId, {
      online: true,
      state: connection.away ? 'away' : 'here',
      userId: connection.userId,
      ...(message.userInfo ? { userInfo } : {}),
      ...(connection.peerId !== existing.peerId ? { peerId: connection.peerId } : {}),
    });
    if (member) return true;
    // Gone between the read and the move: the node that held it was swept meanwhile (a resume racing
    // the sweep of a dead node). Its place is taken back below, as after a restart, not given away.
    if (checked.bootId === ctx.bootId || ctx.nodeId === null) return fallback(connection);
    return rejoin(ctx, connection, checked.shardName, connection.userId, userInfo);
  }
  if (checked.bootId === ctx.bootId) return fallback(connection); // the grace period ran out: a new id
  // The server restarted and lost its state: the client takes its old id and shard back if there is room.
  return rejoin(ctx, connection, checked.shardName, userId, userInfo);
}

/** Takes a client's old id and shard back through the capacity check (after a restart or its node's sweep); false: a fresh join. */
async function rejoin(ctx: ServerContext, connection: Connection, shardName: string, userId: string | null, userInfo: EventPayload): Promise<boolean> {
  connection.userId = userId;
  issuePeerId(connection);
  const outcome = await joinStore(ctx, connection, shardName, userInfo);
  return outcome.ok ? true : fallback(connection);
}

/** The new socket of a client takes over from its previous one on this node: its session, seq and buckets. */
function takeOver(ctx: ServerContext, connection: Connection, previous: Connection, key: string): void {
  clearTimeout(previous.graceTimer);
  ctx.offline.delete(key);
  if (previous.state === 'joined') {
    detach(ctx, previous);
    publishPresence(ctx, previous, { type: 'presence', op: 'remove', clientId: previous.clientId }, previous.clientId);
  }
  previous.state = 'closed';
  previous.socket.terminate();
  connection.lastSeq = previous.lastSeq;
  // A resume that now says relay only (mesh: false) leaves its peer id behind: nobody may offer to it.
  connection.peerId = connection.mesh === 'none' ? null : previous.peerId;
  connection.peerToken = connection.mesh === 'none' ? '' : previous.peerToken;
  // Its buckets as they stand (one clock in this process): a reconnection never refills them.
  connection.eventMilliTokens = previous.eventMilliTokens;
  connection.eventStamp = previous.eventStamp;
  connection.messageMilliTokens = previous.messageMilliTokens;
  connection.messageStamp = previous.messageStamp;
}

/** Undoes a placement that did not happen: the connection holds no id or place. Returns false (a fresh join). */
export function fallback(connection: Connection): false {
  connection.clientId = '';
  connection.shardName = '';
  connection.peerId = null;
  connection.peerToken = '';
  connection.lastSeq = 0;
  return false;
}

/**
 * Makes the connection a spectator of the shard the join names, or without a
 * name of the project's shard with the most players (spectators.ts). Returns
 * false once refused: no such shard (`NOT_FOUND`), or its spectators at their
 * limit (`SHARD_FULL`).
 */
export async function spectate(ctx: ServerContext, connection: Connection, message: JoinMessage, userId: string | null): Promise<boolean> {
  const id = message.id;
  let shardName = message.shardName;
  if (shardName === undefined) {
    let most = 0;
    for (const shard of await ctx.store.shards(message.projectId)) {
      if (shard.numConnectedClients > most) [most, shardName] = [shard.numConnectedClients, shard.shardName];
    }
    if (connection.state !== 'joining') return false;
    if (shardName === undefined) {
      connection.state = 'new';
      fail(ctx, connection, 'NOT_FOUND', 'the project has no shard to watch', { id });
      return false;
    }
  }
  if (spectatorsFull(ctx, ctx.hubs.get(shardKey(message.projectId, shardName)))) {
    fallback(connection);
    connection.state = 'new';
    fail(ctx, connection, 'SHARD_FULL', `shard "${shardName}" is full, and so are its spectators`, { id });
    return false;
  }
  if (connection.clientId === '') connection.clientId = randomId();
  connection.shardName = shardName;
  connection.userId = userId;
  connection.peerId = null; // served by the relay, never by the players' mesh
  connection.peerToken = '';
  connection.spectator = true;
  return true;
}
