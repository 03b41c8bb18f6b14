/**
 * The relay: the shards with members on this node (hubs), their one store
 * subscription each, and what arrives on it fanned out to the local members:
 * relayed events, presence (to presence.ts), PeerJS frames from other nodes,
 * and the takeover of a client that resumed elsewhere. The event path is the
 * hot one: a frame serialized once, written to each receiver (outbox.ts).
 */
import { unreachable } from '../../protocol/exhaustive.js';
import type { ShardBroadcast } from '../store/store.js';
import type { Connection } from './control-socket.js';
import { leaveUnjoined, shardKey, type Hub, type ServerContext } from './context.js';
import { sendRaw } from './outbox.js';
import { flushPresence, queuePresence } from './presence.js';
import { attachSpectator, detachSpectator, dropWatchers, onWatchers, tellSeat } from './spectators.js';

/** What the store delivers on a shard's channel, for the members of the hub on this node. */
export function onShardBroadcast(ctx: ServerContext, hub: Hub, message: ShardBroadcast): void {
  // One case per store message kind: a kind added to ShardBroadcast is a compile error at `unreachable`.
  switch (message.kind) {
    case 'peer':
      return ctx.peers.deliverRemote(hub.key, message.dst, message.frame);
    case 'takeover':
      return onTakeover(ctx, hub, message.clientId, message.node);
    case 'presence':
      return queuePresence(ctx, hub, { frame: message.frame, except: message.except, at: ++ctx.presenceClock });
    case 'event':
      return fanOutEvent(ctx, hub, message.frame, message.from, message.to);
    case 'watchers':
      return onWatchers(ctx, hub, message.node, message.count);
    case 'seat':
      return tellSeat(ctx, hub);
    case 'state':
      return fanOutState(ctx, hub, message.frame, message.from);
    default:
      return unreachable(message, 'shard message');
  }
}

/**
 * A state update or a resync request (`from` empty: no sender) to every member and spectator on this node that
 * holds the state, but the sender: also those the sender reached over the mesh (Yjs drops what it has).
 */
function fanOutState(ctx: ServerContext, hub: Hub, text: string, from: string): void {
  // An update (not a resync request, which has no sender): the shard holds state (handlers/state.ts noteState).
  if (from !== '') hub.stateSeen = true;
  // After the presence published before it, as an event.
  if (hub.presence !== null) flushPresence(ctx, hub);
  const frame = Buffer.from(text);
  for (const c of hub.locals.values()) if (c.clientId !== from && c.wantsState) sendRaw(ctx, c, frame);
  for (const c of hub.spectators.values()) if (c.wantsState) sendRaw(ctx, c, frame);
}

/** `clientId` resumed on `node`: a socket of it here, if another node took it, goes without a trace. */
function onTakeover(ctx: ServerContext, hub: Hub, clientId: string, node: string): void {
  if (node === ctx.nodeId) return;
  // The client resumed on another node: a socket of it here is half open and must go without a trace.
  const stale = hub.locals.get(clientId);
  if (stale) {
    detach(ctx, stale);
    stale.state = 'closed';
    if (stale.peerId) ctx.peers.revoke(stale.peerId);
    stale.socket.terminate();
  }
}

/** A relayed event, to each of its recipients on this node (`to` null: every member but the sender). */
function fanOutEvent(ctx: ServerContext, hub: Hub, text: string, from: string, to: readonly string[] | null): void {
  // An event never overtakes a presence change published before it.
  if (hub.presence !== null) flushPresence(ctx, hub);
  const frame = Buffer.from(text);
  if (to === null) {
    for (const c of hub.locals.values()) if (c.clientId !== from) sendRaw(ctx, c, frame);
    // Spectators hear every broadcast (through this relay: they are in no player's mesh), never an event with
    // recipients. Shard state updates must reach them the same way (spectators.ts, the hook for it).
    for (const c of hub.spectators.values()) sendRaw(ctx, c, frame);
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
  const hub = hubOf(ctx, connection);
  connection.attachedAt = ++ctx.presenceClock;
  leaveUnjoined(ctx, connection);
  if (connection.spectator) attachSpectator(ctx, hub, connection);
  else hub.locals.set(connection.clientId, connection);
  return hub.key;
}

/** The hub of the connection's shard on this node, made (and subscribed) on first use. */
function hubOf(ctx: ServerContext, connection: Connection): Hub {
  const key = shardKey(connection.projectId, connection.shardName);
  const hub = ctx.hubs.get(key);
  if (hub) return hub;
  // One subscription per shard and node, not per socket.
  const created: Hub = { key, locals: new Map(), spectators: new Map(), watchers: null, unsubscribe: () => {}, presence: null, quietUntil: 0 };
  created.unsubscribe = ctx.store.subscribe(connection.projectId, connection.shardName, (message) => onShardBroadcast(ctx, created, message));
  ctx.hubs.set(key, created);
  return created;
}

/**
 * A spectator that took a seat moves to its hub's players under the same id, without leaving the
 * hub (a hub left empty would end its subscription and miss what comes until it subscribed again).
 */
export function seat(ctx: ServerContext, connection: Connection): string {
  const hub = hubOf(ctx, connection);
  if (hub.spectators.get(connection.clientId) === connection) {
    hub.spectators.delete(connection.clientId);
    detachSpectator(ctx, hub);
  }
  connection.spectator = false;
  connection.attachedAt = ++ctx.presenceClock;
  hub.locals.set(connection.clientId, connection);
  return hub.key;
}

/** Takes a connection out of its hub, if it is still the one listed; the last one out ends the subscription. */
export function detach(ctx: ServerContext, connection: Connection): void {
  const key = shardKey(connection.projectId, connection.shardName);
  const hub = ctx.hubs.get(key);
  if (!hub) return;
  const list = connection.spectator ? hub.spectators : hub.locals;
  if (list.get(connection.clientId) !== connection) return;
  list.delete(connection.clientId);
  if (connection.spectator) detachSpectator(ctx, hub);
  if (hub.locals.size === 0 && hub.spectators.size === 0) {
    hub.unsubscribe();
    dropWatchers(ctx, hub);
    ctx.hubs.delete(key);
  }
}
