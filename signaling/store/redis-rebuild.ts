/**
 * Putting back what a node holds when its lease has a new epoch (Redis
 * restarted empty, or the node was swept while it was stalled): every member,
 * oldest first, through the same capacity check as a join (LUA_RESTORE in
 * redis-scripts.ts), fenced by the new epoch.
 *
 * - In batches of {@link RESTORE_BATCH} members per script: one round trip
 *   per member held a node's rebuild of ~16,000 members for far longer than
 *   its lease (the cluster-scale bench), and one script for all of them
 *   would hold Redis (every other node's renewal) as long. Between two
 *   batches Redis serves the others.
 * - A member whose place was given away (`FULL`) or that resumed on another
 *   node (`MOVED`) is let go: its socket closes here as for a takeover, and
 *   the client resumes through ordinary placement.
 * - A member put back (`ADDED`) is announced to its shard (presence `add`)
 *   by the restore script itself, so the announcement is never lost with a
 *   lost answer (redis-scripts.ts); this node listens to the shard's channel
 *   again first.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { RedisConnection } from './redis-connection.js';
import { decodeRecord, memberRef, type RedisKeys } from './redis-keys.js';
import type { NodeLease } from './redis-lease.js';
import type { ShardChannels } from './redis-pubsub.js';
import { SCRIPTS } from './redis-scripts.js';

/** Members one restore script puts back at most: short enough that the others' renewals never wait long behind one. */
export const RESTORE_BATCH = 250;

/** What this node holds, to re-register after Redis lost it. */
export interface Held {
  readonly projectId: string;
  readonly shardName: string;
  readonly clientId: string;
  order: number;
  tail: string;
  online: boolean;
  /** The shard's "capacity:automatic:seq" when this node last wrote the member. */
  meta: string;
  /** The capacity the member joined with (a named shard's check is each member's own). */
  capacity: number;
}

/** What LUA_RESTORE did with one member. */
type RestoreOutcome = 'KEPT' | 'ADDED' | 'FULL' | 'MOVED';

/** The parts of the store a rebuild uses. */
export interface RebuildContext {
  readonly nodeId: string;
  /** What the node holds, by memberRef: members let go are deleted from it. */
  readonly held: Map<string, Held>;
  readonly keys: RedisKeys;
  readonly redis: RedisConnection;
  readonly lease: NodeLease;
  readonly channels: ShardChannels;
  readonly log: (line: string) => void;
}

/** Puts back every member `context.held` holds; throws UNAVAILABLE (and asks for another rebuild) when the lease is fenced meanwhile. */
export async function rebuild(context: RebuildContext): Promise<void> {
  const { held, keys, channels } = context;
  const items = [...held.values()].sort((a, b) => a.order - b.order);
  const subscribed = new Set<string>();
  let restored = 0;
  let released = 0;
  for (let from = 0; from < items.length; from += RESTORE_BATCH) {
    // Not those that left or changed since the rebuild began.
    const batch = items.slice(from, from + RESTORE_BATCH).filter((item) => held.get(memberRef(item.projectId, item.shardName, item.clientId)) === item);
    if (batch.length === 0) continue;
    // Listening again before the batch is put back: the restore script announces each member it adds (LUA_RESTORE), and
    // this node's own members hear it from Redis like the others'. A batch's subscriptions pipelined, not one round trip each.
    const resubscribe: Promise<void>[] = [];
    for (const item of batch) {
      const channel = keys.channel(item.projectId, item.shardName);
      if (subscribed.has(channel)) continue;
      subscribed.add(channel);
      resubscribe.push(channels.wantAgain(channel));
    }
    await Promise.all(resubscribe);
    const outcomes = await restore(context, batch);
    batch.forEach((item, i) => {
      const ref = memberRef(item.projectId, item.shardName, item.clientId);
      const channel = keys.channel(item.projectId, item.shardName);
      const outcome = outcomes[i];
      if (outcome === 'FULL' || outcome === 'MOVED') {
        released++;
        if (held.get(ref) !== item) return; // left (or changed) while the script ran
        held.delete(ref);
        // Local only: the relay closes the client's socket here as for a takeover (relay.ts).
        channels.deliverLocal(channel, { kind: 'takeover', clientId: item.clientId, node: '' });
        return;
      }
      if (outcome === 'ADDED') restored++;
    });
  }
  context.log(
    `platform-kit: node ${context.nodeId} re-registered ${restored} of ${items.length} members in Redis${released > 0 ? `; ${released} had lost their place and are placed anew` : ''}`,
  );
}

/** The presence `add` that announces a member put back (published by LUA_RESTORE, only if it is). */
function addFrame(item: Held): string {
  const record = decodeRecord(item.clientId, `0\n${item.tail}`).record;
  const member = { clientId: record.clientId, userInfo: record.userInfo, userId: record.userId, connectedAt: record.connectedAt, state: record.state, peerId: record.peerId };
  return JSON.stringify({ type: 'presence', op: 'add', member });
}

/** One restore script for `batch` (LUA_RESTORE): an outcome per member, in order. */
async function restore(context: RebuildContext, batch: readonly Held[]): Promise<RestoreOutcome[]> {
  const args: (string | number)[] = [context.keys.prefix, context.nodeId, context.lease.epoch];
  for (const item of batch) {
    // An automatic shard keeps its own capacity; a named one is checked with each member's own, as a join is.
    const [cap = '', auto = '0'] = item.meta.split(':');
    args.push(item.projectId, item.shardName, item.clientId, item.tail, item.online ? '1' : '0', auto === '1' ? Number(cap) : item.capacity, auto, addFrame(item));
  }
  const reply = (await context.redis.run(SCRIPTS.restore, args)) as RestoreOutcome[] | 'FENCED';
  if (reply === 'FENCED') {
    context.lease.mustRebuild = true;
    throw context.lease.fenced();
  }
  if (reply.length !== batch.length) throw new PlatformError('INTERNAL', `Redis restored ${reply.length} of ${batch.length} members`);
  return reply;
}
