/**
 * `takeSeat`: a spectator asks to play. Its seat goes through the store's
 * atomic join (the capacity check holds across nodes, as for any join); on
 * success the connection leaves its hub's spectators for its players under
 * the same client id, gets a peer id, and is answered `joined` as a join is
 * (the members, its peer credentials); the others hear an `add`. A shard
 * still full answers `SHARD_FULL` and the client watches on.
 */
import { randomId, readableShardName } from '../../names.js';
import type { MemberRecord } from '../../store/store.js';
import type { TakeSeatMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { fail, storeFailed } from '../refusals.js';
import { seat } from '../relay.js';
import { answerJoined } from './join.js';
import { controlLine } from './signal.js';

/** Handles a spectator's request for a seat. */
export function onTakeSeat(ctx: ServerContext, connection: Connection, message: TakeSeatMessage): void {
  if (!connection.spectator) return fail(ctx, connection, 'INVALID_MESSAGE', 'only a spectator takes a seat', { id: message.id });
  void takeSeat(ctx, connection, message.id).catch((error: unknown) => {
    if (connection.state === 'joining') connection.state = 'joined';
    storeFailed(ctx, connection, message.id, error);
  });
}

async function takeSeat(ctx: ServerContext, connection: Connection, id: number): Promise<void> {
  // 'joining' refuses a second request meanwhile (door.ts: NOT_CONNECTED); the hub still serves it.
  connection.state = 'joining';
  // A relay-only client (its join said mesh: false) plays without a peer id, as it joined.
  const peerId = connection.kind === 'browser' && connection.mesh !== 'none' ? randomId(true) : null;
  const member: MemberRecord = {
    clientId: connection.clientId,
    userInfo: {},
    userId: connection.userId,
    connectedAt: Date.now(),
    peerId,
    kind: connection.kind,
    online: true,
    state: connection.away ? 'away' : 'here',
  };
  const outcome = await ctx.store.join({
    projectId: connection.projectId,
    shardName: connection.shardName,
    maxConnectionsPerShard: connection.maxConnectionsPerShard,
    maxShards: ctx.limits.maxShardsPerProject,
    member,
    newShardName: readableShardName,
  });
  if (connection.state !== 'joining') {
    // The socket closed meanwhile (member-session.ts let the spectator go): the seat goes back.
    if (outcome.ok) await ctx.store.leave(connection.projectId, connection.shardName, connection.clientId).catch(ctx.storeError);
    return;
  }
  if (!outcome.ok) {
    connection.state = 'joined';
    const why = outcome.reason === 'SHARD_FULL' ? 'no seat is free: keep watching' : 'the project has too many shards';
    return fail(ctx, connection, outcome.reason === 'CLIENT_ID_TAKEN' ? 'INTERNAL' : outcome.reason, why, { id });
  }
  // From the spectators to the players, under the same id: the hub is the same, the lists differ.
  connection.peerId = peerId;
  connection.peerToken = peerId === null ? '' : randomId();
  connection.state = 'joined';
  connection.held = [];
  const scope = seat(ctx, connection);
  if (connection.peerId) ctx.peers.register(connection.peerId, connection.peerToken, scope, connection.mesh === 'control' ? controlLine(ctx, connection) : null);
  const members = await ctx.store.members(connection.projectId, connection.shardName).catch((error: unknown) => {
    connection.held = null;
    throw error;
  });
  if (connection.state !== 'joined') {
    connection.held = null;
    return;
  }
  answerJoined(ctx, connection, id, members, false, { userId: connection.userId, identifyError: null });
}
