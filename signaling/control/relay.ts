/**
 * The relay: the shards with members on this node (hubs), their one store
 * subscription each, and what arrives on it fanned out to the local members:
 * relayed events, presence (to presence.ts), PeerJS frames from other nodes,
 * and the takeover of a client that resumed elsewhere. The event path is the
 * hot one: a frame serialized once, written to each receiver (outbox.ts).
 */
import type { ShardMessage } from '../store/store.js';
import type { Connection } from './connection.js';
import { leaveUnjoined, shardKey, type Hub, type ServerContext } from './context.js';
import { sendRaw } from './outbox.js';
import { flushPresence, queuePresence } from './presence.js';

/** What the store delivers on a shard's channel, for the members of the hub on this node. */
export function onShardMessage(ctx: ServerContext, hub: Hub, message: ShardMessage): void {
  if (message.kind === 'peer') return ctx.peers.deliverRemote(hub.key, message.dst, message.frame);
  if (message.kind === 'takeover') {
    if (message.node === ctx.nodeId) return;
    // The client resumed on another node: a socket of it here is half open and must go without a trace.
    const stale = hub.locals.get(message.clientId);
    if (stale) {
      detach(ctx, stale);
      stale.state = 'closed';
      if (stale.peerId) ctx.peers.revoke(stale.peerId);
      stale.socket.terminate();
    }
    return;
  }
  if (message.kind === 'presence') return queuePresence(ctx, hub, { frame: message.frame, except: message.except, at: ++ctx.presenceClock });
  // An event never overtakes a presence change published before it.
  if (hub.presence !== null) flushPresence(ctx, hub);
  const frame = Buffer.from(message.frame);
  if (message.kind === 'state') {
    // An update (not a resync request, which has no sender): the shard holds state (handlers/state.ts noteState).
    if (message.from !== '') hub.stateSeen = true;
    // Every member but the sender: those it reached over the mesh too (Yjs drops what it has).
    for (const c of hub.locals.values()) if (c.clientId !== message.from && c.wantsState) sendRaw(ctx, c, frame);
    return;
  }
  const { from, to } = message;
  if (to === null) {
    for (const c of hub.locals.values()) if (c.clientId !== from) sendRaw(ctx, c, frame);
    return;
  }
  // Recipients name client ids or verified user ids; a sender never receives its own event.
  const names = to.length > 8 ? new Set(to) : null;
  const has = (name: string): boolean => (names ? names.has(name) : to.includes(name));
  for (const c of hub.locals.values()) {
    if (c.clientId !== from && (has(c.clientId) || (c.userId !== null && has(c.userId)))) sendRaw(ctx, c, frame);
  }
}

/** Adds a joined connection to its shard's hub (made on first use); returns the hub's key. */
export function attach(ctx: ServerContext, connection: Connection): string {
  const key = shardKey(connection.projectId, connection.shardName);
  let hub = ctx.hubs.get(key);
  if (!hub) {
    // One subscription per shard and node, not per socket.
    const created: Hub = { key, locals: new Map(), unsubscribe: () => {}, presence: null, quietUntil: 0 };
    created.unsubscribe = ctx.store.subscribe(connection.projectId, connection.shardName, (message) => onShardMessage(ctx, created, message));
    ctx.hubs.set(key, created);
    hub = created;
  }
  connection.attachedAt = ++ctx.presenceClock;
  leaveUnjoined(ctx, connection);
  hub.locals.set(connection.clientId, connection);
  return hub.key;
}

/** Takes a connection out of its hub, if it is still the one listed; the last one out ends the subscription. */
export function detach(ctx: ServerContext, connection: Connection): void {
  const key = shardKey(connection.projectId, connection.shardName);
  const hub = ctx.hubs.get(key);
  if (!hub || hub.locals.get(connection.clientId) !== connection) return;
  hub.locals.delete(connection.clientId);
  if (hub.locals.size === 0) {
    hub.unsubscribe();
    ctx.hubs.delete(key);
  }
}
