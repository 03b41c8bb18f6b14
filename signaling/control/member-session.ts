/**
 * A member's session beyond its socket: when the socket closes, presence
 * follows at once but the client keeps its id and place for the grace period
 * (SignalingServerOptions.reconnectGraceMs), its rate buckets saved with it;
 * it resumes (placement.ts) or is removed for good ({@link finalize}).
 */
import type { Connection } from './control-socket.js';
import { leaveUnjoined, memberKey, type ServerContext } from './context.js';
import { publishPresence } from './presence.js';
import { bucketLevels, clock } from './rate-buckets.js';
import { detach } from './relay.js';

/** A client that drops this soon after its socket opened, having sent no event, keeps its place only {@link SHORT_VISIT_GRACE_MS}. */
const SHORT_VISIT_MS = 10_000;
/**
 * The grace of such a short visit (at most the server's reconnectGraceMs): a
 * join-and-drop costs the project a shard slot for seconds, not the whole grace
 * period, while a client whose first socket dies at once can still resume.
 */
const SHORT_VISIT_GRACE_MS = 5_000;

/**
 * Close code a browser sends when its page goes away (a tab closed, a navigation): that page
 * cannot resume, so its member leaves at once instead of lingering for the grace period as a
 * "reconnecting" ghost in everyone's presence. A socket that dies without a goodbye (1006: a
 * network drop, a phone put to sleep) keeps its place.
 */
const GOING_AWAY = 1001;

/** A control socket closed (ws emits `close` once per socket) with the client's close `code`. */
export function onClose(ctx: ServerContext, connection: Connection, code: number): void {
  // A join in progress gives its turn to the next one now (join-gate.ts): it may never end (a store that hangs).
  connection.releaseJoinTurn?.();
  leaveUnjoined(ctx, connection);
  ctx.connectionCount--;
  if (connection.spectator) {
    // No place to keep and nobody to tell but the count (spectators.ts): a spectator that comes back watches anew.
    detach(ctx, connection);
    connection.state = 'closed';
    return;
  }
  if (connection.state !== 'joined') {
    if (connection.state !== 'offline') connection.state = 'closed';
    return;
  }
  detach(ctx, connection);
  if (connection.leaving || code === GOING_AWAY) {
    void finalize(ctx, connection, true);
    return;
  }
  // Presence follows the socket at once; the id and place are kept for the grace period.
  connection.state = 'offline';
  ctx.offline.set(memberKey(connection), connection);
  // The buckets go with the session: a resume anywhere continues from them (SignalingLimits).
  const rateBuckets = bucketLevels(connection, ctx.limits, clock());
  void ctx.store.update(connection.projectId, connection.shardName, connection.clientId, rateBuckets ? { online: false, rateBuckets } : { online: false }).catch(ctx.storeError);
  publishPresence(ctx, connection, { type: 'presence', op: 'remove', clientId: connection.clientId }, connection.clientId);
  // A short visit (a join and a drop within seconds, no event sent: what a shard-spamming loop
  // does) holds its place only briefly, so such joins cannot keep the project's shards taken.
  const shortVisit = connection.lastSeq === 0 && clock() - connection.openedAt < SHORT_VISIT_MS;
  const reconnectGraceMs = ctx.settings.reconnectGraceMs;
  connection.graceTimer = setTimeout(
    () => {
      if (connection.state === 'offline') void finalize(ctx, connection, false);
    },
    shortVisit ? Math.min(reconnectGraceMs, SHORT_VISIT_GRACE_MS) : reconnectGraceMs,
  );
  connection.graceTimer.unref?.();
}

/** Removes a client for good: from the store, its peer id, and (when still listed) from presence. */
export async function finalize(ctx: ServerContext, connection: Connection, announce: boolean): Promise<void> {
  clearTimeout(connection.graceTimer);
  ctx.offline.delete(memberKey(connection));
  connection.state = 'closed';
  if (connection.peerId) ctx.peers.revoke(connection.peerId);
  // Redis out of reach: the member stays until this node's lease runs out and another node sweeps it.
  const removed = await ctx.store.leave(connection.projectId, connection.shardName, connection.clientId).catch(ctx.storeError);
  if (removed && announce) publishPresence(ctx, connection, { type: 'presence', op: 'remove', clientId: connection.clientId }, connection.clientId);
  // The seat is free now (not while the member was within its grace period): spectators may take it.
  if (removed) ctx.store.publish(connection.projectId, connection.shardName, { kind: 'seat' });
}

/**
 * Saves a limited client's buckets with its session, at most once a second:
 * only refusals pay for it, never an admitted event. So a resume after
 * kill -9 of this node (no goodbye, no save on close) still starts nearly
 * empty; a save more than the refill time (2 s) old would be a full bucket
 * anyway, which is why nothing is saved on a timer.
 */
export function saveBuckets(ctx: ServerContext, connection: Connection, now: number): void {
  if (connection.state !== 'joined' || now - connection.bucketsSavedAt < 1000) return;
  connection.bucketsSavedAt = now;
  const rateBuckets = bucketLevels(connection, ctx.limits, now);
  if (rateBuckets) void ctx.store.update(connection.projectId, connection.shardName, connection.clientId, { rateBuckets }).catch(ctx.storeError);
}
