/**
 * Presence: who is in a shard, told to its members. A change is published
 * through the store (every node holding a member hears it), then coalesced
 * per hub on each node (see SignalingServerOptions.presenceIntervalMs): a
 * shard's changes wait in its hub and leave as one frame, at the end of the
 * turn (leading edge: a lone change is not delayed) or, within
 * presenceIntervalMs of the shard's last presence frame, when the window
 * timer fires (a burst). A hub's waiting changes leave before any event of
 * that shard (relay.ts), so order per shard is unchanged: a member is always
 * listed before its first event arrives.
 */
import type { MemberWire, ServerMessage } from '../../protocol/signaling.js';
import type { MemberRecord } from '../store/store.js';
import type { Connection } from './control-socket.js';
import type { Hub, PendingPresence, ServerContext } from './context.js';
import { scheduleEndOfTurn, sendRaw, uncorkAll } from './outbox.js';

/** A member as the wire lists it (`online` and `kind` stay on the server). */
export const toWire = (member: MemberRecord): MemberWire => ({
  clientId: member.clientId,
  userInfo: member.userInfo,
  userId: member.userId,
  connectedAt: member.connectedAt,
  state: member.state,
  peerId: member.peerId,
});

/** Publishes a presence change of the connection's shard to every node holding a member; `except` does not hear it. */
export function publishPresence(ctx: ServerContext, connection: Connection, frame: ServerMessage, except: string | null): void {
  ctx.store.publish(connection.projectId, connection.shardName, { kind: 'presence', frame: JSON.stringify(frame), except });
}

/** Queues a change that arrived for the hub's shard until the end of the turn, or of the window. */
export function queuePresence(ctx: ServerContext, hub: Hub, change: PendingPresence): void {
  if (hub.presence === null) {
    hub.presence = [];
    if (ctx.settings.presenceIntervalMs === 0 || performance.now() >= hub.quietUntil) {
      ctx.dueHubs.add(hub);
      scheduleEndOfTurn(ctx);
    } else {
      ctx.windowedHubs.add(hub);
      ctx.presenceTimer ??= setTimeout(ctx.flushWindowedHubs, ctx.settings.presenceIntervalMs);
    }
  }
  hub.presence.push(change);
}

/** The window timer: the hubs whose changes waited for it. */
export function flushWindowedHubs(ctx: ServerContext): void {
  ctx.presenceTimer = undefined;
  for (const hub of ctx.windowedHubs) flushPresence(ctx, hub);
  ctx.windowedHubs.clear();
}

/** The end of a turn: the presence due now leaves, then every socket written to in the turn is uncorked. */
export function endOfTurn(ctx: ServerContext): void {
  for (const hub of ctx.dueHubs) flushPresence(ctx, hub);
  ctx.dueHubs.clear();
  uncorkAll(ctx);
  // Reset last: flushing corks sockets, and they are uncorked just above, not one turn later.
  ctx.endOfTurnScheduled = false;
}

/** Sends the hub's waiting changes to its local members: one batch frame to each v2 member that hears them all. */
export function flushPresence(ctx: ServerContext, hub: Hub): void {
  const changes = hub.presence;
  if (changes === null) return;
  hub.presence = null;
  const presenceIntervalMs = ctx.settings.presenceIntervalMs;
  if (presenceIntervalMs > 0) hub.quietUntil = performance.now() + presenceIntervalMs;
  const first = changes[0]!;
  if (changes.length === 1) {
    const frame = Buffer.from(first.frame);
    for (const c of hub.locals.values()) if (c.attachedAt < first.at && c.clientId !== first.except) sendRaw(ctx, c, frame);
    for (const c of hub.spectators.values()) if (c.attachedAt < first.at && c.clientId !== first.except) sendRaw(ctx, c, frame);
    return;
  }
  let batch: Buffer | undefined;
  const singles: (Buffer | undefined)[] = [];
  const excepted = new Set<string | null>();
  for (const change of changes) excepted.add(change.except);
  // Spectators hear the players' presence as players do (a seat taken is an `add` like a join).
  for (const c of listeners(hub)) {
    if (c.version >= 2 && c.attachedAt < first.at && !excepted.has(c.clientId)) {
      // The common case: every change is for this member; one frame serialized once for all.
      batch ??= batchFrame(changes);
      sendRaw(ctx, c, batch);
      continue;
    }
    // The joiner or leaver itself, a member attached within this turn, or a v1 client.
    const mine = changes.filter((change) => c.attachedAt < change.at && c.clientId !== change.except);
    if (mine.length === 0) continue;
    if (c.version >= 2 && mine.length > 1) {
      sendRaw(ctx, c, batchFrame(mine));
      continue;
    }
    for (const change of mine) {
      const index = changes.indexOf(change);
      sendRaw(ctx, c, (singles[index] ??= Buffer.from(change.frame)));
    }
  }
}

function* listeners(hub: Hub): Generator<Connection> {
  yield* hub.locals.values();
  yield* hub.spectators.values();
}

function batchFrame(changes: readonly PendingPresence[]): Buffer {
  // The single-change frames are already JSON: joined, not parsed and serialized again.
  return Buffer.from(`{"type":"presence","op":"batch","changes":[${changes.map((change) => change.frame).join(',')}]}`);
}
