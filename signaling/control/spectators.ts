/**
 * Spectators: clients that watch a shard without playing in it
 * (`connect({ spectator: true })`, or `spectateWhenFull` at a full named
 * shard). What holds for them, and where:
 *
 * - They are no members: the store never sees them, so they never count
 *   toward `maxConnectionsPerShard` and never open a shard. They sit in their
 *   shard's hub on the node they joined (`hub.spectators`), which subscribes
 *   to the shard like any hub: a spectator on any node hears what the players
 *   on every node broadcast, through the relay only (they have no peer id, so
 *   no player's mesh ever links them).
 * - They hear broadcasts (relay.ts), the players' presence (presence.ts), how
 *   many watch (below) and that a seat is free (`seat`, published when a
 *   player leaves for good). Events with recipients never reach them, and an
 *   event they send is refused `FORBIDDEN` (handlers/emit.ts).
 * - How many watch: each node counts its own spectators per hub and, on a
 *   shared store, publishes that count on the shard's channel; every node adds
 *   up the counts it heard and tells its players and spectators the total, at
 *   most once per {@link WATCHERS_INTERVAL_MS} (1,000 spectators joining in a
 *   burst cost each listener a few frames, not 1,000). A node holding
 *   spectators of a shard publishes its count again every
 *   {@link WATCHERS_REFRESH_MS}: a node that came to the shard later learns it
 *   within that, and the count of a node that died (and says nothing more)
 *   is forgotten after three of them. Hubs without spectators publish nothing.
 * - Bounded: SignalingLimits.maxSpectatorsPerShard over the total a node
 *   knows; every frame of a spectator passes the door's rate limits as a
 *   player's does.
 * - The shard's state (Yjs state sync, branch `state`, not in main when this
 *   was written): the hook is where a player gets it. A state update fanned
 *   out to a hub must reach `hub.spectators` as broadcasts do (relay.ts), and
 *   a spectator's `joined` (handlers/join.ts answerJoined, which a spectator
 *   goes through too) must carry the snapshot a player's carries. A
 *   spectator's own state updates are refused as its events are (FORBIDDEN).
 */
import type { Connection } from './control-socket.js';
import type { Hub, ServerContext, Watchers } from './context.js';
import { sendRaw } from './outbox.js';

/** Longest a change of the spectator count waits to be told: changes within it leave as one frame. */
export const WATCHERS_INTERVAL_MS = 100;
/** A node with spectators of a shard publishes its count this often (a shared store only); silent three times as long, it is forgotten. */
export const WATCHERS_REFRESH_MS = 5_000;

/** How many spectators watch the hub's shard, as far as this node knows. */
export function totalWatchers(hub: Hub): number {
  let total = hub.spectators.size;
  if (!hub.watchers) return total;
  const forgotten = performance.now() - 3 * WATCHERS_REFRESH_MS;
  for (const [node, heard] of hub.watchers.remote) {
    if (heard.at < forgotten) hub.watchers.remote.delete(node);
    else total += heard.count;
  }
  return total;
}

/** Whether one more spectator would pass SignalingLimits.maxSpectatorsPerShard. */
export function spectatorsFull(ctx: ServerContext, hub: Hub | undefined): boolean {
  return hub !== undefined && totalWatchers(hub) >= ctx.limits.maxSpectatorsPerShard;
}

/** Adds a joined spectator to its hub. */
export function attachSpectator(ctx: ServerContext, hub: Hub, connection: Connection): void {
  hub.spectators.set(connection.clientId, connection);
  countChanged(ctx, hub);
}

/** After a spectator left its hub (relay.ts detach). */
export function detachSpectator(ctx: ServerContext, hub: Hub): void {
  countChanged(ctx, hub);
}

/** Another node's count for this hub's shard. */
export function onWatchers(ctx: ServerContext, hub: Hub, node: string, count: number): void {
  if (node === ctx.nodeId || node === '') return; // our own, heard back
  const watchers = (hub.watchers ??= newWatchers());
  const previous = watchers.remote.get(node)?.count ?? 0;
  if (count > 0) watchers.remote.set(node, { count, at: performance.now() });
  else watchers.remote.delete(node);
  if (count !== previous) schedule(ctx, hub, watchers);
}

/** A player left for good: this hub's spectators hear that a seat may be free. */
export function tellSeat(ctx: ServerContext, hub: Hub): void {
  if (hub.spectators.size === 0) return;
  const frame = Buffer.from('{"type":"seat"}');
  for (const c of hub.spectators.values()) sendRaw(ctx, c, frame);
}

/** The hub goes (nobody left on this node): its timer stops, and the other nodes stop counting its spectators. */
export function dropWatchers(ctx: ServerContext, hub: Hub): void {
  const watchers = hub.watchers;
  if (!watchers) return;
  clearTimeout(watchers.timer);
  clearInterval(watchers.refresh);
  watchers.timer = undefined;
  watchers.refresh = undefined;
  if (ctx.nodeId !== null && watchers.published > 0) publishCount(ctx, hub, 0);
}

function newWatchers(): Watchers {
  return { remote: new Map(), told: 0, published: -1, timer: undefined, refresh: undefined };
}

function countChanged(ctx: ServerContext, hub: Hub): void {
  schedule(ctx, hub, (hub.watchers ??= newWatchers()));
}

function schedule(ctx: ServerContext, hub: Hub, watchers: Watchers): void {
  if (watchers.timer !== undefined) return;
  watchers.timer = setTimeout(() => flush(ctx, hub, watchers), WATCHERS_INTERVAL_MS);
  watchers.timer.unref?.();
}

function flush(ctx: ServerContext, hub: Hub, watchers: Watchers): void {
  watchers.timer = undefined;
  if (ctx.hubs.get(hub.key) !== hub) return; // gone meanwhile
  const own = hub.spectators.size;
  if (ctx.nodeId !== null) {
    if (watchers.published !== own) publishCount(ctx, hub, own);
    if (own > 0 && watchers.refresh === undefined) {
      watchers.refresh = setInterval(() => publishCount(ctx, hub, hub.spectators.size), WATCHERS_REFRESH_MS);
      watchers.refresh.unref?.();
    } else if (own === 0 && watchers.refresh !== undefined) {
      clearInterval(watchers.refresh);
      watchers.refresh = undefined;
    }
  }
  const total = totalWatchers(hub);
  if (total === watchers.told) return;
  watchers.told = total;
  const frame = Buffer.from(`{"type":"watchers","count":${total}}`);
  for (const c of hub.locals.values()) sendRaw(ctx, c, frame);
  for (const c of hub.spectators.values()) sendRaw(ctx, c, frame);
}

function publishCount(ctx: ServerContext, hub: Hub, count: number): void {
  const at = hub.key.indexOf('\u0000');
  if (hub.watchers) hub.watchers.published = count;
  ctx.store.publish(hub.key.slice(0, at), hub.key.slice(at + 1), { kind: 'watchers', node: ctx.nodeId ?? '', count });
}
