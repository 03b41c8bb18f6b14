/**
 * The Redis {@link ShardStore}: shard state shared by N signaling nodes.
 *
 * Requirements, written down:
 * - Capacity holds across nodes: `join`, `leave` and `update` are each ONE Lua
 *   script (capacity check + placement + shard count + name collision + insert),
 *   so concurrent joins on any number of nodes never overfill a shard and the
 *   shard count never passes `maxShards`.
 * - Members carry the node that holds their socket. Every node renews a lease
 *   key (`lease:<node>`, PX `leaseMs`) each `leaseMs / 3`, on a path of its
 *   own (never behind a sweep or a rebuild); a node whose lease expired
 *   (killed, stalled, partitioned) is swept by any live node: its members are
 *   removed and a presence `remove` is published for each, by the sweep
 *   script itself (redis-scripts.ts: a notice published after the answer is
 *   lost with a lost answer, and a sweep queued while Redis hung runs when it
 *   resumes, answer or not; so do leave and restore). Within the lease a
 *   client of the dead node may resume on another node and keep its id: the
 *   resume's `update({ online: true })` moves the member to the new node.
 * - Fencing (redis-scripts.ts): the lease key holds the node's epoch, and
 *   every write names it; a write with a lease that lapsed is refused, so a
 *   node that wakes from a stall cannot put back members whose places were
 *   given away. The node also fences itself: past `leaseMs - margin` since
 *   its last renewal was sent, it refuses joins (UNAVAILABLE) without asking.
 *   On a new epoch it re-registers what it holds through the capacity check;
 *   a member whose place is gone (or that resumed elsewhere) has its socket
 *   closed here, and the client resumes through ordinary placement.
 * - A node removes or changes only members it holds (`leave`, `update`), so a
 *   node whose grace timer fires after its client resumed elsewhere does nothing.
 * - Messages: one PUBLISH per message on a channel per shard; each node keeps
 *   one subscriber connection, subscribed to the shards it holds members of.
 *   Listeners on the publishing node are called at once (same-node traffic
 *   never waits for Redis); other nodes get it from the channel. What a
 *   script publishes (a member removed or put back) every node, the
 *   script's caller too, gets from the channel.
 * - Redis down: commands fail at once with `UNAVAILABLE` (no offline queue, so
 *   nothing waits unbounded); ioredis reconnects. Redis that hangs: every
 *   command is bounded by `commandTimeoutMs` and then fails `UNAVAILABLE`
 *   too. Redis back and empty (a restart without persistence): the node
 *   notices at its next renewal (the cluster marker is gone or new), and no
 *   join is admitted anywhere for one lease while every live node puts back
 *   the members it holds (capacity-checked all the same), publishing them as
 *   presence `add`s: the state is rebuilt from the live nodes.
 * - A write whose answer never came (timed out, connection lost) may still
 *   have happened: a member this node does not know it holds is an orphan,
 *   removed when two maintenance rounds in a row find it.
 * - Rate limits: `takeJoin` is one Lua script per join (never per event); a
 *   member's buckets are saved in `{P}:rl:<shard>` through `update` (guarded by
 *   node like the rest of the record) and read back by `member()` on a resume.
 *   Redis down: `takeJoin` rejects with `UNAVAILABLE` and the server admits
 *   (fails open); saved buckets lost with a Redis restart mean one full bucket.
 *
 * The parts: redis-scripts.ts (the Lua scripts), redis-keys.ts (the key
 * layout and the records under it), redis-pubsub.ts (the shard channels),
 * redis-connection.ts and redis-lease.ts (the connections, the lease),
 * redis-rebuild.ts (putting back what the node holds under a new epoch).
 *
 * ioredis is imported lazily, when a Redis store is created: the embedded
 * default never loads it.
 */
import type { RedisOptions } from 'ioredis';
import { PlatformError } from '../../protocol/errors.js';
import type { ShardInfo } from '../../protocol/signaling.js';
import { joinSteps } from './join-limit.js';
import { decodeBuckets, decodeRecord, decodeRecords, encodeBuckets, encodeTail, memberRef, RedisKeys, splitMemberRef } from './redis-keys.js';
import { RedisConnection, unavailable } from './redis-connection.js';
import { NodeLease } from './redis-lease.js';
import { rebuild, type Held } from './redis-rebuild.js';
import { createRedisStateStore } from './redis-state.js';
import { ShardChannels } from './redis-pubsub.js';
import { SCRIPTS } from './redis-scripts.js';
import type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, ShardBroadcastListener, ShardBroadcast, ShardStateStore, ShardStore } from './store.js';

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /** `redis://[:password@]host:port[/db]`, or ioredis options. */
  readonly redis: string | RedisOptions;
  /** This node's id: 1 to 64 of `A-Z a-z 0-9 _ -`, unique among the nodes sharing the Redis. */
  readonly nodeId: string;
  /** Lease of this node's members: a node silent this long is swept by the others. Default 30,000 ms. */
  readonly leaseMs?: number;
  /**
   * Longest wait for one Redis command: a Redis that hangs is then answered like one that is
   * down (UNAVAILABLE), never waited on. Default 1,000 ms, at most a quarter of the lease.
   */
  readonly commandTimeoutMs?: number;
  /** Prefix of every key. Default `pk:`. */
  readonly keyPrefix?: string;
  /** Where diagnostic lines go. Default: nowhere. */
  readonly log?: (line: string) => void;
}

/** A Redis store; {@link ShardStore} plus a way to force a lease round (tests). */
export interface RedisShardStore extends ShardStore {
  readonly nodeId: string;
  readonly ready: Promise<void>;
  /** Renews the lease, then a maintenance round: rebuilds when the registration was lost, sweeps expired nodes, removes orphans. */
  heartbeat(): Promise<void>;
  /** True while Redis answers. */
  readonly available: boolean;
}

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Members one sweep script removes at most (see LUA_SWEEP). */
const SWEEP_BATCH = 500;
/** Longest a join waits for the cluster's recovery before it is answered UNAVAILABLE (within the server's join timeout). */
const MAX_RECOVERY_WAIT_MS = 5_000;

/**
 * Creates a Redis store for node `nodeId`. Connects at once (two
 * connections: commands and the subscriber); `ready` resolves once both are
 * connected and this node's previous run (same id) is cleared.
 */
export function createRedisStore(options: RedisStoreOptions): RedisShardStore {
  if (!NODE_ID.test(options.nodeId)) throw new PlatformError('INVALID_CONFIG', 'nodeId is 1 to 64 of A-Z a-z 0-9 _ -');
  return new RedisStore(options);
}

class RedisStore implements RedisShardStore {
  readonly nodeId: string;
  readonly ready: Promise<void>;
  readonly #keys: RedisKeys;
  /** The shards' state and history, in Redis (redis-state.ts). */
  readonly state: ShardStateStore;
  readonly #leaseMs: number;
  readonly #log: (line: string) => void;
  readonly #redis: RedisConnection;
  readonly #lease: NodeLease;
  readonly #channels: ShardChannels;
  /** What this node holds, by {@link memberRef}. */
  readonly #held = new Map<string, Held>();
  /** Leaves Redis missed while out of reach (or while this node was fenced). */
  readonly #pendingLeaves = new Set<string>();
  /** Client ids whose join or update is on its way: not orphans, whatever Redis says meanwhile. */
  readonly #inflight = new Set<string>();
  /** Members Redis lists for this node that it does not hold, as the last maintenance round found them. */
  #orphans = new Set<string>();
  #closed = false;
  #maintainTimer: ReturnType<typeof setInterval> | undefined;
  #maintaining: Promise<void> | null = null;

  constructor(options: RedisStoreOptions) {
    this.nodeId = options.nodeId;
    this.#keys = new RedisKeys(options.keyPrefix ?? 'pk:');
    this.#leaseMs = Math.max(300, options.leaseMs ?? 30_000);
    this.#log = options.log ?? (() => {});
    const commandTimeoutMs = Math.max(50, Math.min(options.commandTimeoutMs ?? 1_000, Math.floor(this.#leaseMs / 4)));
    this.#redis = new RedisConnection(this.nodeId, commandTimeoutMs, this.#log);
    this.#lease = new NodeLease(
      this.#redis,
      this.#keys.prefix,
      this.#leaseMs,
      () => this.#held.size,
      () => void this.heartbeat(),
    );
    this.#channels = new ShardChannels(this.nodeId, this.#log);
    this.state = createRedisStateStore(this.#redis, this.#keys.prefix, this.nodeId, this.#lease, this.#log);
    this.ready = this.#connect(options.redis);
    this.ready.catch(() => undefined);
  }

  get available(): boolean {
    return this.#redis.available;
  }

  get #prefix(): string {
    return this.#keys.prefix;
  }

  async #connect(options: string | RedisOptions): Promise<void> {
    const { command, lease, subscriber } = await this.#redis.make(options);
    this.#channels.attach(command, subscriber);
    const reconnected = (): void => {
      if (this.#maintainTimer) void this.heartbeat(); // reconnected: renew (and rebuild) now, not at the next tick
    };
    command.on('ready', reconnected);
    lease.on('ready', reconnected);
    await Promise.all([command.connect(), lease.connect(), subscriber.connect()]);
    // A previous run of this node id (killed, restarted at once) left members no socket holds any more.
    await this.#sweepNode(this.nodeId, true);
    await this.heartbeat();
    this.#lease.start();
    this.#maintainTimer = setInterval(() => void this.#maintain(), Math.max(100, Math.floor(this.#leaseMs / 3)));
    this.#maintainTimer.unref();
  }

  // ─── the lease: renewal, rebuild, sweeping dead nodes ─────────────────────

  /**
   * A seat freed: the shard's spectators hear it (a member swept or an orphan; a member that left
   * through `leave` is told by the server, member-session.ts finalize). The member's removal itself is
   * announced by the script that removed it (redis-scripts.ts `tell`); this notice comes after its answer, so a
   * lost answer loses it, and a spectator learns of the seat at the next one.
   */
  #seatFreed(projectId: string, shardName: string): void {
    this.#channels.publish(this.#keys.channel(projectId, shardName), { kind: 'seat' });
  }

  #remember(projectId: string, shardName: string, clientId: string, value: string, meta: string, capacity?: number): void {
    const decoded = decodeRecord(clientId, value);
    const tail = value.slice(value.indexOf('\n') + 1);
    const ref = memberRef(projectId, shardName, clientId);
    const shardCapacity = Number(meta.split(':')[0]) || 100;
    this.#held.set(ref, {
      projectId,
      shardName,
      clientId,
      order: decoded.order,
      tail,
      online: decoded.record.online,
      meta,
      capacity: capacity ?? this.#held.get(ref)?.capacity ?? shardCapacity,
    });
  }

  /** Puts back every member this node holds, through the capacity check (redis-rebuild.ts). */
  async #rebuild(): Promise<void> {
    this.#lease.mustRebuild = false;
    try {
      await rebuild({ nodeId: this.nodeId, held: this.#held, keys: this.#keys, redis: this.#redis, lease: this.#lease, channels: this.#channels, log: this.#log });
    } catch (error) {
      // Not done (the command connection not back yet while the lease's is, Redis gone again): the next round tries again.
      this.#lease.mustRebuild = true;
      throw error;
    }
  }

  async #sweepNode(dead: string, force: boolean): Promise<void> {
    let removed = 0;
    // In batches: Redis serves the other nodes (their renewals) between two of them. The script tells each shard
    // (a takeover, so that a stalled node that wakes drops the socket it still holds, and the presence remove):
    // a sweep that ran in Redis is heard even when its answer is lost here (redis-scripts.ts).
    for (let done = false; !done;) {
      const reply = (await this.#redis.run(SCRIPTS.sweep, [this.#prefix, dead, force ? '1' : '0', SWEEP_BATCH, this.nodeId])) as string[];
      done = reply.pop() !== '0';
      const freed = new Set<string>();
      for (const ref of reply) {
        const [projectId, shardName] = splitMemberRef(ref);
        const shard = `${projectId}\n${shardName}`;
        if (freed.has(shard)) continue;
        freed.add(shard);
        this.#seatFreed(projectId, shardName);
      }
      removed += reply.length;
    }
    if (removed > 0) this.#log(`platform-kit: node ${this.nodeId} removed ${removed} members of ${force ? 'its previous run' : `expired node ${dead}`}`);
  }

  /** Removes a member this node holds no socket for (a leave Redis missed, an orphan); true when it was there. The script tells the shard. */
  async #leaveNow(ref: string, seat = true): Promise<boolean> {
    const [projectId, shardName, clientId] = splitMemberRef(ref);
    const removed = (await this.#redis.run(SCRIPTS.leave, [this.#prefix, projectId, shardName, clientId, this.nodeId, this.#lease.epoch])) as number;
    if (removed === -1) throw this.#lease.fenced();
    if (removed === 1 && seat) this.#seatFreed(projectId, shardName);
    return removed === 1;
  }

  /** Members Redis lists for this node that it does not hold (a join or update whose answer was lost), removed once seen twice. */
  async #removeOrphans(): Promise<void> {
    const listed = this.#keys.nodeMembers(this.nodeId);
    if ((await this.#redis.read((redis) => redis.scard(listed))) <= this.#held.size && this.#orphans.size === 0) return;
    const found = new Set<string>();
    for (const ref of await this.#redis.read((redis) => redis.smembers(listed))) {
      if (this.#held.has(ref) || this.#inflight.has(splitMemberRef(ref)[2])) continue;
      if (this.#orphans.has(ref)) await this.#leaveNow(ref);
      else found.add(ref);
    }
    this.#orphans = found;
  }

  /** One maintenance round: missed leaves, a rebuild when the lease was new, sweeps of expired nodes, orphans. */
  #maintain(): Promise<void> {
    this.#maintaining ??= (async () => {
      for (const ref of [...this.#pendingLeaves]) {
        if (!this.#held.has(ref)) await this.#leaveNow(ref);
        this.#pendingLeaves.delete(ref);
      }
      if (this.#lease.mustRebuild) await this.#rebuild();
      const nodes = await this.#redis.read((redis) => redis.smembers(this.#keys.nodes));
      for (const other of nodes) if (other !== this.nodeId) await this.#sweepNode(other, false);
      await this.#removeOrphans();
      this.#channels.pruneUnwanted();
    })()
      .catch((error: unknown) => this.#log(`platform-kit: node ${this.nodeId} maintenance: ${String(error)}`))
      .finally(() => {
        this.#maintaining = null;
      });
    return this.#maintaining;
  }

  async heartbeat(): Promise<void> {
    await this.#lease.renew();
    await this.#maintain();
  }

  // ─── ShardStore ───────────────────────────────────────────────────────────

  async join(request: JoinRequest): Promise<JoinOutcome> {
    await this.#lease.ensure();
    const member = request.member;
    const tail = encodeTail(this.nodeId, member);
    const started = performance.now();
    this.#inflight.add(member.clientId);
    try {
      for (let attempt = 0; attempt <= 100; attempt++) {
        const reply = (await this.#redis.run(SCRIPTS.join, [
          this.#prefix,
          request.projectId,
          request.shardName ?? '',
          request.maxConnectionsPerShard,
          request.maxShards,
          member.clientId,
          tail,
          member.online ? '1' : '0',
          request.shardName === undefined ? request.newShardName() : '',
          this.nodeId,
          this.#lease.epoch,
        ])) as string[];
        const status = reply[0];
        if (status === 'COLLISION') continue; // the generated name is taken: another one
        if (status === 'FENCED') throw this.#lease.fenced();
        if (status === 'RECOVERING') {
          // Held, not refused: the window is short (see #recoveryMs), and a client's first connect() should not fail for it.
          if (performance.now() - started > Math.min(this.#lease.recoveryMs, MAX_RECOVERY_WAIT_MS))
            throw unavailable('the cluster is putting back its members after Redis lost them');
          await new Promise((resolve) => setTimeout(resolve, 100));
          await this.#lease.ensure();
          attempt--;
          continue;
        }
        if (status !== 'OK') return { ok: false, reason: status as 'SHARD_FULL' | 'TOO_MANY_SHARDS' | 'CLIENT_ID_TAKEN' };
        const [, shardName = '', meta = '', own = '', opened = '0'] = reply;
        this.#remember(request.projectId, shardName, member.clientId, own, meta, request.maxConnectionsPerShard);
        await this.#channels.want(this.#keys.channel(request.projectId, shardName));
        return { ok: true, shardName, opened: opened === '1' };
      }
      throw new PlatformError('INTERNAL', 'no free shard name after 100 attempts');
    } finally {
      this.#inflight.delete(member.clientId);
    }
  }

  async leave(projectId: string, shardName: string, clientId: string): Promise<boolean> {
    const ref = memberRef(projectId, shardName, clientId);
    this.#held.delete(ref);
    try {
      return await this.#leaveNow(ref, false);
    } catch (error) {
      // Redis out of reach, or this node fenced: the next maintenance round that gets through removes it (else it would stay, as this node lives on).
      if (error instanceof PlatformError && error.code === 'UNAVAILABLE') this.#pendingLeaves.add(ref);
      throw error;
    }
  }

  async update(projectId: string, shardName: string, clientId: string, patch: MemberPatch): Promise<MemberRecord | null> {
    const mask = [patch.online, patch.peerId, patch.userId, patch.userInfo, patch.rateBuckets, patch.state].map((field) => (field === undefined ? '0' : '1')).join('');
    this.#inflight.add(clientId);
    let reply: [string, string] | 'FENCED' | null;
    try {
      reply = (await this.#redis.run(SCRIPTS.update, [
        this.#prefix,
        projectId,
        shardName,
        clientId,
        this.nodeId,
        mask,
        patch.online ? '1' : '0',
        patch.peerId ?? '',
        JSON.stringify(patch.userId ?? null),
        JSON.stringify(patch.userInfo ?? {}),
        patch.rateBuckets ? encodeBuckets(patch.rateBuckets) : '',
        this.#lease.epoch,
        patch.state ?? 'here',
      ])) as [string, string] | 'FENCED' | null;
    } finally {
      this.#inflight.delete(clientId);
    }
    if (reply === 'FENCED') throw this.#lease.fenced();
    if (!reply) {
      this.#held.delete(memberRef(projectId, shardName, clientId)); // gone, or held by another node now
      return null;
    }
    this.#remember(projectId, shardName, clientId, reply[0], reply[1]);
    if (patch.online) await this.#channels.want(this.#keys.channel(projectId, shardName));
    return decodeRecord(clientId, reply[0]).record;
  }
  async member(projectId: string, shardName: string, clientId: string): Promise<MemberRecord | null> {
    // Both replies in one round trip (ioredis writes both commands before either answer).
    const [value, buckets] = await this.#redis.read((redis) =>
      Promise.all([redis.hget(this.#keys.members(projectId, shardName), clientId), redis.hget(this.#keys.buckets(projectId, shardName), clientId)]),
    );
    if (value === null) return null;
    const record = decodeRecord(clientId, value).record;
    const rateBuckets = decodeBuckets(buckets);
    return rateBuckets ? { ...record, rateBuckets } : record;
  }

  async members(projectId: string, shardName: string): Promise<MemberRecord[]> {
    const pairs = await this.#redis.read((redis) => redis.hgetall(this.#keys.members(projectId, shardName)));
    return decodeRecords(Object.entries(pairs).flat());
  }

  async shards(projectId: string): Promise<readonly ShardInfo[]> {
    const online = await this.#redis.read((redis) => redis.hgetall(this.#keys.online(projectId)));
    const list: ShardInfo[] = [];
    for (const [shardName, count] of Object.entries(online)) {
      const numConnectedClients = Number(count);
      if (numConnectedClients > 0) list.push({ shardName, numConnectedClients });
    }
    return list.sort((a, b) => (a.shardName < b.shardName ? -1 : a.shardName > b.shardName ? 1 : 0));
  }

  async takeJoin(address: string, perMinute: number): Promise<boolean> {
    const steps = joinSteps(perMinute);
    if (!steps) return true;
    return (await this.#redis.run(SCRIPTS.takeJoin, [this.#keys.join(address), steps.emissionUs, steps.toleranceUs])) === 1;
  }

  publish(projectId: string, shardName: string, message: ShardBroadcast, undelivered?: () => void): void {
    this.#channels.publish(this.#keys.channel(projectId, shardName), message, undelivered);
  }

  subscribe(projectId: string, shardName: string, listener: ShardBroadcastListener): () => void {
    return this.#channels.listen(this.#keys.channel(projectId, shardName), (message) => {
      // Another node took the member (a resume there, or a sweep of this node): this node holds it no more,
      // and must not put it back in a rebuild, where it would stay with no socket.
      if (message.kind === 'takeover' && message.node !== this.nodeId) this.#held.delete(memberRef(projectId, shardName, message.clientId));
      listener(message);
    });
  }

  stats(): { readonly shards: number; readonly members: number; readonly dropped: number } {
    const shards = new Set<string>();
    for (const item of this.#held.values()) shards.add(`${item.projectId}\n${item.shardName}`);
    return { shards: shards.size, members: this.#held.size, dropped: this.#channels.dropped };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.ready.catch(() => undefined);
    clearInterval(this.#maintainTimer);
    await Promise.all([this.#lease.stop(), this.#maintaining]);
    this.#closed = true;
    this.#channels.clear();
    this.#held.clear();
    await this.#redis.close();
  }
}
