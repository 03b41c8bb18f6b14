/**
 * The Redis {@link ShardStore}: shard state shared by N signaling nodes.
 *
 * Requirements, written down:
 * - Capacity holds across nodes: `join`, `leave` and `update` are each ONE Lua
 *   script (capacity check + placement + shard count + name collision + insert),
 *   so concurrent joins on any number of nodes never overfill a shard and the
 *   shard count never passes `maxShards`.
 * - Members carry the node that holds their socket. Every node renews a lease
 *   key (`lease:<node>`, PX `leaseMs`) each `leaseMs / 3`; a node whose lease
 *   expired (killed, partitioned) is swept by any live node: its members are
 *   removed and a presence `remove` is published for each. Within the lease a
 *   client of the dead node may resume on another node and keep its id: the
 *   resume's `update({ online: true })` moves the member to the new node.
 * - A node removes or changes only members it holds (`leave`, `update`), so a
 *   node whose grace timer fires after its client resumed elsewhere does nothing.
 * - Messages: one PUBLISH per message on a channel per shard; each node keeps
 *   one subscriber connection, subscribed to the shards it holds members of.
 *   Listeners on the publishing node are called at once (same-node traffic
 *   never waits for Redis); other nodes get it from the channel.
 * - Redis down: commands fail at once with `UNAVAILABLE` (no offline queue, so
 *   nothing waits unbounded); ioredis reconnects. Redis back and empty (a
 *   restart without persistence), or this node swept while cut off: the node
 *   notices at its next lease renewal (its registration marker is gone) and
 *   re-registers every member it holds, then publishes them as presence
 *   `add`s: the state is rebuilt from the live nodes.
 * - Rate limits: `takeJoin` is one Lua script per join (never per event); a
 *   member's buckets are saved in `{P}:rl:<shard>` through `update` (guarded by
 *   node like the rest of the record) and read back by `member()` on a resume.
 *   Redis down: `takeJoin` rejects with `UNAVAILABLE` and the server admits
 *   (fails open); saved buckets lost with a Redis restart mean one full bucket.
 *
 * The parts: redis-scripts.ts (the Lua scripts), redis-keys.ts (the key
 * layout and the records under it), redis-pubsub.ts (the shard channels).
 *
 * ioredis is imported lazily, when a Redis store is created: the embedded
 * default never loads it.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { PlatformError } from '../../protocol/errors.js';
import type { ShardInfo } from '../../protocol/signaling.js';
import { joinSteps } from './join-limit.js';
import { decodeBuckets, decodeRecord, decodeRecords, encodeBuckets, encodeTail, memberRef, RedisKeys, splitMemberRef } from './redis-keys.js';
import { ShardChannels } from './redis-pubsub.js';
import { SCRIPTS, type Script } from './redis-scripts.js';
import type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, ShardListener, ShardMessage, ShardStore } from './store.js';

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /** `redis://[:password@]host:port[/db]`, or ioredis options. */
  readonly redis: string | RedisOptions;
  /** This node's id: 1 to 64 of `A-Z a-z 0-9 _ -`, unique among the nodes sharing the Redis. */
  readonly nodeId: string;
  /** Lease of this node's members: a node silent this long is swept by the others. Default 30,000 ms. */
  readonly leaseMs?: number;
  /** Prefix of every key. Default `pk:`. */
  readonly keyPrefix?: string;
  /** Where diagnostic lines go. Default: nowhere. */
  readonly log?: (line: string) => void;
}

/** A Redis store; {@link ShardStore} plus a way to force a lease round (tests). */
export interface RedisShardStore extends ShardStore {
  readonly nodeId: string;
  readonly ready: Promise<void>;
  /** Renews the lease, rebuilds when the registration was lost, sweeps expired nodes. */
  heartbeat(): Promise<void>;
  /** True while Redis answers. */
  readonly available: boolean;
}

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What this node holds, to re-register after Redis lost it. */
interface Held {
  readonly projectId: string;
  readonly shardName: string;
  readonly clientId: string;
  order: number;
  tail: string;
  online: boolean;
  meta: string;
}

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
  readonly #leaseMs: number;
  readonly #log: (line: string) => void;
  readonly #channels: ShardChannels;
  /** What this node holds, by {@link memberRef}. */
  readonly #held = new Map<string, Held>();
  /** Leaves Redis missed while out of reach. */
  readonly #pendingLeaves = new Set<string>();
  #command: Redis | undefined;
  #subscriber: Redis | undefined;
  #closed = false;
  #heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  #beating: Promise<void> | null = null;

  constructor(options: RedisStoreOptions) {
    this.nodeId = options.nodeId;
    this.#keys = new RedisKeys(options.keyPrefix ?? 'pk:');
    this.#leaseMs = Math.max(300, options.leaseMs ?? 30_000);
    this.#log = options.log ?? (() => {});
    this.#channels = new ShardChannels(this.nodeId, this.#log);
    this.ready = this.#connect(options.redis);
    this.ready.catch(() => undefined);
  }

  get available(): boolean {
    return this.#command?.status === 'ready';
  }

  get #prefix(): string {
    return this.#keys.prefix;
  }

  async #connect(options: string | RedisOptions): Promise<void> {
    const { Redis } = await import('ioredis');
    const base: RedisOptions = typeof options === 'string' ? {} : options;
    const make = (): Redis => {
      const redis =
        typeof options === 'string'
          ? new Redis(options, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true })
          : new Redis({ ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      redis.on('error', (error: Error) => this.#log(`platform-kit: Redis (${this.nodeId}): ${error.message}`));
      return redis;
    };
    const command = (this.#command = make());
    const subscriber = (this.#subscriber = make());
    this.#channels.attach(command, subscriber);
    command.on('ready', () => {
      if (this.#heartbeatTimer) void this.heartbeat(); // reconnected: renew (and rebuild) now, not at the next tick
    });
    await Promise.all([command.connect(), subscriber.connect()]);
    // A previous run of this node id (killed, restarted at once) left members no socket holds any more.
    await this.#sweepNode(this.nodeId, true);
    await this.heartbeat();
    this.#heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(100, Math.floor(this.#leaseMs / 3)));
    this.#heartbeatTimer.unref();
  }

  // ─── commands ─────────────────────────────────────────────────────────────

  #client(): Redis {
    if (this.#closed) throw new PlatformError('NOT_CONNECTED', 'the Redis store is closed');
    if (!this.#command || this.#command.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'Redis is out of reach; retry shortly');
    return this.#command;
  }

  /** Runs a script (EVALSHA, EVAL when Redis does not know it: first use, or after a restart). */
  async #run(which: Script, args: readonly (string | number)[]): Promise<unknown> {
    const redis = this.#client();
    try {
      try {
        return await redis.evalsha(which.sha, 0, ...args);
      } catch (error) {
        if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
        return await redis.eval(which.lua, 0, ...args);
      }
    } catch (error) {
      if (error instanceof PlatformError) throw error;
      // A connection that dropped mid-command: the caller may retry; a script error is a bug.
      if (redis.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'Redis is out of reach; retry shortly', { cause: error });
      throw new PlatformError('INTERNAL', `Redis: ${(error as Error).message}`, { cause: error });
    }
  }

  async #read<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = this.#client();
    try {
      return await call(redis);
    } catch (error) {
      if (redis.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'Redis is out of reach; retry shortly', { cause: error });
      throw error;
    }
  }

  // ─── the lease: renewal, rebuild, sweeping dead nodes ─────────────────────

  #presenceRemove(projectId: string, shardName: string, clientId: string): void {
    this.#channels.publish(this.#keys.channel(projectId, shardName), { kind: 'presence', frame: JSON.stringify({ type: 'presence', op: 'remove', clientId }), except: clientId });
  }

  #remember(projectId: string, shardName: string, clientId: string, value: string, meta: string): void {
    const decoded = decodeRecord(clientId, value);
    const tail = value.slice(value.indexOf('\n') + 1);
    this.#held.set(memberRef(projectId, shardName, clientId), { projectId, shardName, clientId, order: decoded.order, tail, online: decoded.record.online, meta });
  }

  /** Puts back every member this node holds (Redis restarted empty, or this node was swept while cut off). */
  async #rebuild(): Promise<void> {
    const items = [...this.#held.values()].sort((a, b) => a.order - b.order);
    let restored = 0;
    for (const item of items) {
      const [cap = '100', auto = '0'] = item.meta.split(':');
      const added = await this.#run(SCRIPTS.restore, [this.#prefix, item.projectId, item.shardName, item.clientId, item.tail, item.online ? '1' : '0', cap, auto, this.nodeId]);
      if (added === 1) restored++;
      const channel = this.#keys.channel(item.projectId, item.shardName);
      await this.#channels.wantAgain(channel);
      if (item.online) {
        const record = decodeRecord(item.clientId, `0\n${item.tail}`).record;
        const member = { clientId: record.clientId, userInfo: record.userInfo, userId: record.userId, connectedAt: record.connectedAt, peerId: record.peerId };
        this.#channels.publish(channel, { kind: 'presence', frame: JSON.stringify({ type: 'presence', op: 'add', member }), except: item.clientId });
      }
    }
    this.#log(`platform-kit: node ${this.nodeId} re-registered ${restored} of ${items.length} members in Redis`);
  }

  async #sweepNode(dead: string, force: boolean): Promise<void> {
    const refs = (await this.#run(SCRIPTS.sweep, [this.#prefix, dead, force ? '1' : '0'])) as string[];
    for (const ref of refs) this.#presenceRemove(...splitMemberRef(ref));
    if (refs.length > 0) this.#log(`platform-kit: node ${this.nodeId} removed ${refs.length} members of ${force ? 'its previous run' : `expired node ${dead}`}`);
  }

  async #beat(): Promise<void> {
    const missing = (await this.#run(SCRIPTS.renew, [this.#prefix, this.nodeId, this.#leaseMs])) === 1;
    for (const ref of [...this.#pendingLeaves]) {
      const [projectId, shardName, clientId] = splitMemberRef(ref);
      if (!this.#held.has(ref) && (await this.#run(SCRIPTS.leave, [this.#prefix, projectId, shardName, clientId, this.nodeId])) === 1) this.#presenceRemove(projectId, shardName, clientId);
      this.#pendingLeaves.delete(ref);
    }
    if (missing && this.#held.size > 0) await this.#rebuild();
    const nodes = await this.#read((redis) => redis.smembers(this.#keys.nodes));
    for (const other of nodes) if (other !== this.nodeId) await this.#sweepNode(other, false);
    this.#channels.pruneUnwanted();
  }

  heartbeat(): Promise<void> {
    this.#beating ??= this.#beat()
      .catch((error: unknown) => this.#log(`platform-kit: node ${this.nodeId} heartbeat: ${String(error)}`))
      .finally(() => {
        this.#beating = null;
      });
    return this.#beating;
  }

  // ─── ShardStore ───────────────────────────────────────────────────────────

  async join(request: JoinRequest): Promise<JoinOutcome> {
    const member = request.member;
    const tail = encodeTail(this.nodeId, member);
    for (let attempt = 0; attempt <= 100; attempt++) {
      const reply = (await this.#run(SCRIPTS.join, [
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
      ])) as string[];
      const status = reply[0];
      if (status === 'COLLISION') continue; // the generated name is taken: another one
      if (status !== 'OK') return { ok: false, reason: status as 'SHARD_FULL' | 'TOO_MANY_SHARDS' | 'CLIENT_ID_TAKEN' };
      const shardName = reply[1]!;
      const meta = reply[2] ?? '';
      // The shard's members as the script saw them (field, record pairs): one atomic snapshot.
      const pairs = reply.slice(3);
      const members = decodeRecords(pairs);
      const own = pairs[pairs.indexOf(member.clientId) + 1];
      if (own !== undefined) this.#remember(request.projectId, shardName, member.clientId, own, meta);
      await this.#channels.want(this.#keys.channel(request.projectId, shardName));
      return { ok: true, shardName, members };
    }
    throw new PlatformError('INTERNAL', 'no free shard name after 100 attempts');
  }

  async leave(projectId: string, shardName: string, clientId: string): Promise<boolean> {
    const ref = memberRef(projectId, shardName, clientId);
    this.#held.delete(ref);
    try {
      return (await this.#run(SCRIPTS.leave, [this.#prefix, projectId, shardName, clientId, this.nodeId])) === 1;
    } catch (error) {
      // Redis out of reach: the next lease renewal that gets through removes it (else it would stay, as this node lives on).
      if (error instanceof PlatformError && error.code === 'UNAVAILABLE') this.#pendingLeaves.add(ref);
      throw error;
    }
  }

  async update(projectId: string, shardName: string, clientId: string, patch: MemberPatch): Promise<MemberRecord | null> {
    const mask = [patch.online, patch.peerId, patch.userId, patch.userInfo, patch.rateBuckets].map((field) => (field === undefined ? '0' : '1')).join('');
    const reply = (await this.#run(SCRIPTS.update, [
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
    ])) as [string, string] | null;
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
    const [value, buckets] = await this.#read((redis) => Promise.all([redis.hget(this.#keys.members(projectId, shardName), clientId), redis.hget(this.#keys.buckets(projectId, shardName), clientId)]));
    if (value === null) return null;
    const record = decodeRecord(clientId, value).record;
    const rateBuckets = decodeBuckets(buckets);
    return rateBuckets ? { ...record, rateBuckets } : record;
  }

  async members(projectId: string, shardName: string): Promise<MemberRecord[]> {
    const pairs = await this.#read((redis) => redis.hgetall(this.#keys.members(projectId, shardName)));
    return decodeRecords(Object.entries(pairs).flat());
  }

  async shards(projectId: string): Promise<readonly ShardInfo[]> {
    const online = await this.#read((redis) => redis.hgetall(this.#keys.online(projectId)));
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
    return (await this.#run(SCRIPTS.takeJoin, [this.#keys.join(address), steps.emissionUs, steps.toleranceUs])) === 1;
  }

  publish(projectId: string, shardName: string, message: ShardMessage): void {
    this.#channels.publish(this.#keys.channel(projectId, shardName), message);
  }

  subscribe(projectId: string, shardName: string, listener: ShardListener): () => void {
    return this.#channels.listen(this.#keys.channel(projectId, shardName), listener);
  }

  stats(): { readonly shards: number; readonly members: number; readonly dropped: number } {
    const shards = new Set<string>();
    for (const item of this.#held.values()) shards.add(`${item.projectId}\n${item.shardName}`);
    return { shards: shards.size, members: this.#held.size, dropped: this.#channels.dropped };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.ready.catch(() => undefined);
    clearInterval(this.#heartbeatTimer);
    await this.#beating;
    this.#closed = true;
    this.#channels.clear();
    this.#held.clear();
    await Promise.all([this.#command?.quit().catch(() => this.#command?.disconnect()), this.#subscriber?.quit().catch(() => this.#subscriber?.disconnect())]);
  }
}
