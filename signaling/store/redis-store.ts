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
 * Keys (one Redis, or a primary with replicas/Sentinel; not Redis Cluster:
 * the scripts name keys they compute), all under `keyPrefix` (default `pk:`),
 * per project `P` under `{P}:`:
 *   {P}:shards  HASH shard → "capacity:automatic:seq"
 *   {P}:size    HASH shard → members (online or within grace)
 *   {P}:online  HASH shard → online members
 *   {P}:open:<capacity>  ZSET automatic shards with room, by creation (oldest first)
 *   {P}:m:<shard>        HASH clientId → member record (see `encode`)
 *   {P}:rl:<shard>       HASH clientId → saved rate-limit buckets "event:message:savedAtMs"
 *                        (written on disconnect and while a client is limited, never per
 *                        event; removed with the member)
 *   {P}:ch:<shard>       pub/sub channel of the shard
 *   {P}:seq     counter (join order, shard creation order)
 *   lease:<node> (PX), node:<node> (registration marker), nodes (SET), nm:<node> (SET of the node's members)
 *   join:<address> (PX) the address's join allowance: its GCRA arrival time in µs of Redis's
 *                        clock (TIME, one clock for every node); expires when the allowance is full
 *
 * ioredis is imported lazily, when a Redis store is created: the embedded
 * default never loads it.
 */
import { createHash } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { PlatformError } from '../../protocol/errors.js';
import type { EventPayload, ShardInfo } from '../../protocol/signaling.js';
import { joinSteps } from './join-limit.js';
import type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, RateBuckets, ShardListener, ShardMessage, ShardStore } from './store.js';

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

// ─── Lua ────────────────────────────────────────────────────────────────────

// A member record: "order\nnode\nonline\nkind\nconnectedAt\npeerId\nuserIdJSON\nuserInfoJSON"
// (JSON never holds a raw newline, so the last field may be split off safely).
const LUA_COMMON = `
local function split(v)
  local f = {}
  local pos = 1
  for i = 1, 7 do
    local nl = string.find(v, '\\n', pos, true)
    f[i] = string.sub(v, pos, nl - 1)
    pos = nl + 1
  end
  f[8] = string.sub(v, pos)
  return f
end
local function removeMember(prefix, P, shard, clientId, f)
  local base = prefix .. '{' .. P .. '}:'
  redis.call('HDEL', base .. 'm:' .. shard, clientId)
  redis.call('HDEL', base .. 'rl:' .. shard, clientId)
  redis.call('SREM', prefix .. 'nm:' .. f[2], P .. '\\n' .. shard .. '\\n' .. clientId)
  local size = redis.call('HINCRBY', base .. 'size', shard, -1)
  if f[3] == '1' then redis.call('HINCRBY', base .. 'online', shard, -1) end
  local meta = redis.call('HGET', base .. 'shards', shard) or ''
  local cap, auto, seq = string.match(meta, '^(%d+):(%d):(%d+)$')
  if size <= 0 then
    redis.call('HDEL', base .. 'shards', shard)
    redis.call('HDEL', base .. 'size', shard)
    redis.call('HDEL', base .. 'online', shard)
    if cap then redis.call('ZREM', base .. 'open:' .. cap, shard) end
  elseif auto == '1' and size < tonumber(cap) then
    redis.call('ZADD', base .. 'open:' .. cap, tonumber(seq), shard)
  end
end
`;

// ARGV: prefix, P, named ('' = automatic), capacity, maxShards, clientId, record tail (from node on), online, candidate name, node
const LUA_JOIN = `${LUA_COMMON}
local prefix, P, named, cap, maxShards = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local clientId, tail, online, candidate, node = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local base = prefix .. '{' .. P .. '}:'
local function add(shard, capacity, auto)
  local mkey = base .. 'm:' .. shard
  if redis.call('HEXISTS', mkey, clientId) == 1 then return {'CLIENT_ID_TAKEN'} end
  local order = redis.call('INCR', base .. 'seq')
  redis.call('HSET', mkey, clientId, order .. '\\n' .. tail)
  local size = redis.call('HINCRBY', base .. 'size', shard, 1)
  if online == '1' then redis.call('HINCRBY', base .. 'online', shard, 1) end
  if auto and size >= capacity then redis.call('ZREM', base .. 'open:' .. capacity, shard) end
  redis.call('SADD', prefix .. 'nm:' .. node, P .. '\\n' .. shard .. '\\n' .. clientId)
  local out = {'OK', shard, redis.call('HGET', base .. 'shards', shard)}
  local pairs = redis.call('HGETALL', mkey)
  for i = 1, #pairs do out[#out + 1] = pairs[i] end
  return out
end
if named == '' then
  local open = redis.call('ZRANGE', base .. 'open:' .. cap, 0, 0)
  if open[1] then return add(open[1], cap, true) end
  if redis.call('HLEN', base .. 'shards') >= maxShards then return {'TOO_MANY_SHARDS'} end
  if redis.call('HEXISTS', base .. 'shards', candidate) == 1 then return {'COLLISION'} end
  local seq = redis.call('INCR', base .. 'seq')
  redis.call('HSET', base .. 'shards', candidate, cap .. ':1:' .. seq)
  redis.call('ZADD', base .. 'open:' .. cap, seq, candidate)
  return add(candidate, cap, true)
end
local meta = redis.call('HGET', base .. 'shards', named)
if meta then
  local c, a = string.match(meta, '^(%d+):(%d)')
  c = tonumber(c)
  local size = tonumber(redis.call('HGET', base .. 'size', named) or '0')
  -- each joiner's own capacity, not the first joiner's (no one can make a named shard full for others)
  if size >= cap then return {'SHARD_FULL'} end
  return add(named, c, a == '1')
end
if redis.call('HLEN', base .. 'shards') >= maxShards then return {'TOO_MANY_SHARDS'} end
local seq = redis.call('INCR', base .. 'seq')
redis.call('HSET', base .. 'shards', named, cap .. ':0:' .. seq)
return add(named, cap, false)
`;

// ARGV: prefix, P, shard, clientId, node
const LUA_LEAVE = `${LUA_COMMON}
local prefix, P, shard, clientId, node = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local v = redis.call('HGET', prefix .. '{' .. P .. '}:m:' .. shard, clientId)
if not v then return 0 end
local f = split(v)
if f[2] ~= node then return 0 end
removeMember(prefix, P, shard, clientId, f)
return 1
`;

// ARGV: prefix, P, shard, clientId, node, mask ("oppir": online, peerId, userId, userInfo, rate buckets), online, peerId, userIdJSON, userInfoJSON, buckets
const LUA_UPDATE = `${LUA_COMMON}
local prefix, P, shard, clientId, node, mask = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local base = prefix .. '{' .. P .. '}:'
local mkey = base .. 'm:' .. shard
local v = redis.call('HGET', mkey, clientId)
if not v then return false end
local f = split(v)
local setsOnline = string.sub(mask, 1, 1) == '1'
if f[2] ~= node then
  if not (setsOnline and ARGV[7] == '1') then return false end
  local ref = P .. '\\n' .. shard .. '\\n' .. clientId
  redis.call('SREM', prefix .. 'nm:' .. f[2], ref)
  redis.call('SADD', prefix .. 'nm:' .. node, ref)
  f[2] = node
end
if setsOnline and f[3] ~= ARGV[7] then
  redis.call('HINCRBY', base .. 'online', shard, ARGV[7] == '1' and 1 or -1)
  f[3] = ARGV[7]
end
if string.sub(mask, 2, 2) == '1' then f[6] = ARGV[8] end
if string.sub(mask, 3, 3) == '1' then f[7] = ARGV[9] end
if string.sub(mask, 4, 4) == '1' then f[8] = ARGV[10] end
if string.sub(mask, 5, 5) == '1' then redis.call('HSET', base .. 'rl:' .. shard, clientId, ARGV[11]) end
local nv = table.concat(f, '\\n')
redis.call('HSET', mkey, clientId, nv)
return {nv, redis.call('HGET', base .. 'shards', shard) or ''}
`;

// ARGV: prefix, dead node, force ('1': sweep even with a live lease; a node clearing its previous run)
const LUA_SWEEP = `${LUA_COMMON}
local prefix, dead, force = ARGV[1], ARGV[2], ARGV[3]
if force ~= '1' and redis.call('EXISTS', prefix .. 'lease:' .. dead) == 1 then return {} end
local refs = redis.call('SMEMBERS', prefix .. 'nm:' .. dead)
local out = {}
for i = 1, #refs do
  local P, shard, clientId = string.match(refs[i], '^([^\\n]*)\\n([^\\n]*)\\n(.*)$')
  if P then
    local v = redis.call('HGET', prefix .. '{' .. P .. '}:m:' .. shard, clientId)
    if v then
      local f = split(v)
      if f[2] == dead then
        removeMember(prefix, P, shard, clientId, f)
        out[#out + 1] = refs[i]
      end
    end
  end
end
redis.call('DEL', prefix .. 'nm:' .. dead)
if force ~= '1' then
  redis.call('DEL', prefix .. 'node:' .. dead)
  redis.call('SREM', prefix .. 'nodes', dead)
end
return out
`;

// ARGV: prefix, node, leaseMs. Returns 1 when the registration marker was missing (first start, or state lost).
const LUA_RENEW = `
local prefix, node, lease = ARGV[1], ARGV[2], ARGV[3]
redis.call('SET', prefix .. 'lease:' .. node, '1', 'PX', lease)
redis.call('SADD', prefix .. 'nodes', node)
return redis.call('SETNX', prefix .. 'node:' .. node, '1')
`;

// ARGV: prefix, P, shard, clientId, record tail (from node on), online, capacity, automatic ('1'/'0'), node
const LUA_RESTORE = `
local prefix, P, shard, clientId, tail, online, cap, auto, node = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local base = prefix .. '{' .. P .. '}:'
local meta = redis.call('HGET', base .. 'shards', shard)
local seq
if meta then
  cap, auto, seq = string.match(meta, '^(%d+):(%d):(%d+)$')
else
  seq = redis.call('INCR', base .. 'seq')
  redis.call('HSET', base .. 'shards', shard, cap .. ':' .. auto .. ':' .. seq)
end
local mkey = base .. 'm:' .. shard
if redis.call('HEXISTS', mkey, clientId) == 1 then return 0 end
redis.call('HSET', mkey, clientId, redis.call('INCR', base .. 'seq') .. '\\n' .. tail)
local size = redis.call('HINCRBY', base .. 'size', shard, 1)
if online == '1' then redis.call('HINCRBY', base .. 'online', shard, 1) end
redis.call('SADD', prefix .. 'nm:' .. node, P .. '\\n' .. shard .. '\\n' .. clientId)
if auto == '1' then
  if size < tonumber(cap) then redis.call('ZADD', base .. 'open:' .. cap, tonumber(seq), shard)
  else redis.call('ZREM', base .. 'open:' .. cap, shard) end
end
return 1
`;

// ARGV: key, emission interval (µs), burst tolerance (µs); see join-limit.ts. 1: admitted, 0: over.
// TIME: every node's joins are measured on Redis's one clock (scripts replicate their effects).
const LUA_TAKE_JOIN = `
local key, emission, tolerance = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local arrival = math.max(tonumber(redis.call('GET', key) or '0'), now) + emission
if arrival - now > tolerance then return 0 end
redis.call('SET', key, string.format('%.0f', arrival), 'PX', math.ceil((arrival - now) / 1000))
return 1
`;

interface Script {
  readonly lua: string;
  readonly sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const SCRIPTS = {
  join: script(LUA_JOIN),
  leave: script(LUA_LEAVE),
  update: script(LUA_UPDATE),
  sweep: script(LUA_SWEEP),
  renew: script(LUA_RENEW),
  restore: script(LUA_RESTORE),
  takeJoin: script(LUA_TAKE_JOIN),
};

// ─── records ────────────────────────────────────────────────────────────────

/** The record from `node` on (the script puts the join order in front). */
function encodeTail(node: string, member: MemberRecord): string {
  return [node, member.online ? '1' : '0', member.kind, String(member.connectedAt), member.peerId ?? '', JSON.stringify(member.userId), JSON.stringify(member.userInfo)].join('\n');
}

interface Decoded {
  readonly order: number;
  readonly node: string;
  readonly record: MemberRecord;
}

function decode(clientId: string, value: string): Decoded {
  const f = value.split('\n');
  const rest = f.slice(7).join('\n');
  return {
    order: Number(f[0]),
    node: f[1] ?? '',
    record: {
      clientId,
      online: f[2] === '1',
      kind: f[3] === 'backend' ? 'backend' : 'browser',
      connectedAt: Number(f[4]),
      peerId: f[5] ? f[5] : null,
      userId: JSON.parse(f[6] ?? 'null') as string | null,
      userInfo: JSON.parse(rest || '{}') as EventPayload,
    },
  };
}

/** Decodes HGETALL of a shard (client id, record, …) into members in join order. */
function decodeAll(pairs: readonly string[]): MemberRecord[] {
  const list: Decoded[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) list.push(decode(pairs[i]!, pairs[i + 1]!));
  return list.sort((a, b) => a.order - b.order).map((item) => item.record);
}

/** Saved rate-limit buckets as stored: "event:message:savedAtMs". */
function encodeBuckets(buckets: RateBuckets): string {
  return `${Math.floor(buckets.eventMilliTokens)}:${Math.floor(buckets.messageMilliTokens)}:${Math.floor(buckets.savedAtMs)}`;
}

function decodeBuckets(value: string | null): RateBuckets | undefined {
  if (value === null) return undefined;
  const [eventMilliTokens, messageMilliTokens, savedAtMs] = value.split(':').map(Number);
  if (!Number.isFinite(eventMilliTokens) || !Number.isFinite(messageMilliTokens) || !Number.isFinite(savedAtMs)) return undefined;
  return { eventMilliTokens: eventMilliTokens!, messageMilliTokens: messageMilliTokens!, savedAtMs: savedAtMs! };
}

// Pub/sub envelope: "node\nkind\n…": a header of short fields, then the frame (JSON, no raw newline).
function encodeMessage(node: string, message: ShardMessage): string {
  switch (message.kind) {
    case 'event':
      return `${node}\ne\n${message.from}\n${message.to ? JSON.stringify(message.to) : ''}\n${message.frame}`;
    case 'presence':
      return `${node}\np\n${message.except ?? ''}\n${message.frame}`;
    case 'peer':
      return `${node}\nr\n${message.dst}\n${message.frame}`;
    case 'takeover':
      return `${node}\nt\n${message.clientId}\n${message.node}`;
  }
}

function decodeMessage(text: string): { node: string; message: ShardMessage } | null {
  const cut = (from: number): [string, number] => {
    const at = text.indexOf('\n', from);
    return at < 0 ? [text.slice(from), text.length] : [text.slice(from, at), at + 1];
  };
  const [node, a] = cut(0);
  const [kind, b] = cut(a);
  const [first, c] = cut(b);
  switch (kind) {
    case 'e': {
      const [to, d] = cut(c);
      return { node, message: { kind: 'event', from: first, to: to ? (JSON.parse(to) as string[]) : null, frame: text.slice(d) } };
    }
    case 'p':
      return { node, message: { kind: 'presence', except: first || null, frame: text.slice(c) } };
    case 'r':
      return { node, message: { kind: 'peer', dst: first, frame: text.slice(c) } };
    case 't':
      return { node, message: { kind: 'takeover', clientId: first, node: text.slice(c) } };
    default:
      return null;
  }
}

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

// ─── the store ──────────────────────────────────────────────────────────────

/**
 * Creates a Redis store for node `nodeId`. Connects at once (two
 * connections: commands and the subscriber); `ready` resolves once both are
 * connected and this node's previous run (same id) is cleared.
 */
export function createRedisStore(options: RedisStoreOptions): RedisShardStore {
  if (!NODE_ID.test(options.nodeId)) throw new PlatformError('INVALID_CONFIG', 'nodeId is 1 to 64 of A-Z a-z 0-9 _ -');
  const node = options.nodeId;
  const prefix = options.keyPrefix ?? 'pk:';
  const leaseMs = Math.max(300, options.leaseMs ?? 30_000);
  const log = options.log ?? (() => {});
  const listeners = new Map<string, Set<ShardListener>>(); // by channel
  const subscribed = new Set<string>(); // channels this node wants
  const held = new Map<string, Held>(); // by "P\nshard\nclient"
  const pendingLeaves = new Set<string>(); // leaves Redis missed while out of reach
  let command: Redis | undefined;
  let subscriber: Redis | undefined;
  let closed = false;
  let heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  let beating: Promise<void> | null = null;
  let dropped = 0;

  const base = (projectId: string): string => `${prefix}{${projectId}}:`;
  const channelOf = (projectId: string, shardName: string): string => `${base(projectId)}ch:${shardName}`;
  const refOf = (projectId: string, shardName: string, clientId: string): string => `${projectId}\n${shardName}\n${clientId}`;

  function client(): Redis {
    if (closed) throw new PlatformError('NOT_CONNECTED', 'the Redis store is closed');
    if (!command || command.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'Redis is out of reach; retry shortly');
    return command;
  }

  /** Runs a script (EVALSHA, EVAL when Redis does not know it: first use, or after a restart). */
  async function run(which: Script, args: readonly (string | number)[]): Promise<unknown> {
    const redis = client();
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

  async function read<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = client();
    try {
      return await call(redis);
    } catch (error) {
      if (redis.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'Redis is out of reach; retry shortly', { cause: error });
      throw error;
    }
  }

  /** Subscribes a channel (idempotent) and waits for Redis to confirm, so no message published after a join is missed. */
  async function want(channel: string): Promise<void> {
    if (subscribed.has(channel)) return;
    subscribed.add(channel);
    if (subscriber?.status === 'ready') await subscriber.subscribe(channel).catch((error: unknown) => log(`platform-kit: subscribe ${channel}: ${String(error)}`));
  }

  function dispatch(channel: string, text: string): void {
    const set = listeners.get(channel);
    if (!set || set.size === 0) return;
    let decoded: ReturnType<typeof decodeMessage>;
    try {
      decoded = decodeMessage(text);
    } catch {
      decoded = null;
    }
    if (!decoded || decoded.node === node) return; // our own: delivered locally already
    for (const listener of [...set]) listener(decoded.message);
  }

  function publishRaw(channel: string, message: ShardMessage): void {
    const set = listeners.get(channel);
    if (set) for (const listener of [...set]) listener(message);
    if (!command || command.status !== 'ready') {
      dropped++;
      return;
    }
    command.publish(channel, encodeMessage(node, message)).catch(() => {
      dropped++; // Redis went away: other nodes miss this one (a bounded pause, see the module comment)
    });
  }

  function presenceRemove(projectId: string, shardName: string, clientId: string): void {
    publishRaw(channelOf(projectId, shardName), { kind: 'presence', frame: JSON.stringify({ type: 'presence', op: 'remove', clientId }), except: clientId });
  }

  function remember(projectId: string, shardName: string, clientId: string, value: string, meta: string): void {
    const decoded = decode(clientId, value);
    const tail = value.slice(value.indexOf('\n') + 1);
    held.set(refOf(projectId, shardName, clientId), { projectId, shardName, clientId, order: decoded.order, tail, online: decoded.record.online, meta });
  }

  /** Puts back every member this node holds (Redis restarted empty, or this node was swept while cut off). */
  async function rebuild(): Promise<void> {
    const items = [...held.values()].sort((a, b) => a.order - b.order);
    let restored = 0;
    for (const item of items) {
      const [cap = '100', auto = '0'] = item.meta.split(':');
      const added = await run(SCRIPTS.restore, [prefix, item.projectId, item.shardName, item.clientId, item.tail, item.online ? '1' : '0', cap, auto, node]);
      if (added === 1) restored++;
      const channel = channelOf(item.projectId, item.shardName);
      subscribed.delete(channel);
      await want(channel);
      if (item.online) {
        const record = decode(item.clientId, `0\n${item.tail}`).record;
        const member = { clientId: record.clientId, userInfo: record.userInfo, userId: record.userId, connectedAt: record.connectedAt, peerId: record.peerId };
        publishRaw(channel, { kind: 'presence', frame: JSON.stringify({ type: 'presence', op: 'add', member }), except: item.clientId });
      }
    }
    log(`platform-kit: node ${node} re-registered ${restored} of ${items.length} members in Redis`);
  }

  async function sweepNode(dead: string, force: boolean): Promise<void> {
    const refs = (await run(SCRIPTS.sweep, [prefix, dead, force ? '1' : '0'])) as string[];
    for (const ref of refs) {
      const [projectId = '', shardName = '', clientId = ''] = ref.split('\n');
      presenceRemove(projectId, shardName, clientId);
    }
    if (refs.length > 0) log(`platform-kit: node ${node} removed ${refs.length} members of ${force ? 'its previous run' : `expired node ${dead}`}`);
  }

  async function beat(): Promise<void> {
    const missing = (await run(SCRIPTS.renew, [prefix, node, leaseMs])) === 1;
    for (const ref of [...pendingLeaves]) {
      const [projectId = '', shardName = '', clientId = ''] = ref.split('\n');
      if (!held.has(ref) && (await run(SCRIPTS.leave, [prefix, projectId, shardName, clientId, node])) === 1) presenceRemove(projectId, shardName, clientId);
      pendingLeaves.delete(ref);
    }
    if (missing && held.size > 0) await rebuild();
    const nodes = await read((redis) => redis.smembers(`${prefix}nodes`));
    for (const other of nodes) if (other !== node) await sweepNode(other, false);
    // Channels no listener wants any more (a join whose socket closed before it was attached).
    for (const channel of subscribed) {
      if (!listeners.has(channel)) {
        subscribed.delete(channel);
        if (subscriber?.status === 'ready') void subscriber.unsubscribe(channel).catch(() => undefined);
      }
    }
  }

  function heartbeat(): Promise<void> {
    beating ??= beat()
      .catch((error: unknown) => log(`platform-kit: node ${node} heartbeat: ${String(error)}`))
      .finally(() => {
        beating = null;
      });
    return beating;
  }

  const ready = (async () => {
    const { Redis } = await import('ioredis');
    const base: RedisOptions = typeof options.redis === 'string' ? {} : options.redis;
    const make = (): Redis => {
      const redis =
        typeof options.redis === 'string'
          ? new Redis(options.redis, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true })
          : new Redis({ ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      redis.on('error', (error: Error) => log(`platform-kit: Redis (${node}): ${error.message}`));
      return redis;
    };
    command = make();
    subscriber = make();
    subscriber.on('message', dispatch);
    subscriber.on('ready', () => {
      // Back after a drop: every wanted channel again (ioredis resubscribes what it knew; this adds the ones asked for while down).
      if (subscribed.size > 0) void subscriber?.subscribe(...subscribed).catch(() => undefined);
    });
    command.on('ready', () => {
      if (heartbeatTimer) void heartbeat(); // reconnected: renew (and rebuild) now, not at the next tick
    });
    await Promise.all([command.connect(), subscriber.connect()]);
    // A previous run of this node id (killed, restarted at once) left members no socket holds any more.
    await sweepNode(node, true);
    await heartbeat();
    heartbeatTimer = setInterval(() => void heartbeat(), Math.max(100, Math.floor(leaseMs / 3)));
    heartbeatTimer.unref();
  })();
  ready.catch(() => undefined);

  return {
    nodeId: node,
    ready,
    heartbeat,
    get available() {
      return command?.status === 'ready';
    },

    async join(request: JoinRequest): Promise<JoinOutcome> {
      const member = request.member;
      const tail = encodeTail(node, member);
      for (let attempt = 0; attempt <= 100; attempt++) {
        const reply = (await run(SCRIPTS.join, [
          prefix,
          request.projectId,
          request.shardName ?? '',
          request.maxConnectionsPerShard,
          request.maxShards,
          member.clientId,
          tail,
          member.online ? '1' : '0',
          request.shardName === undefined ? request.newShardName() : '',
          node,
        ])) as string[];
        const status = reply[0];
        if (status === 'COLLISION') continue; // the generated name is taken: another one
        if (status !== 'OK') return { ok: false, reason: status as 'SHARD_FULL' | 'TOO_MANY_SHARDS' | 'CLIENT_ID_TAKEN' };
        const shardName = reply[1]!;
        const meta = reply[2] ?? '';
        // The shard's members as the script saw them (field, record pairs): one atomic snapshot.
        const pairs = reply.slice(3);
        const members = decodeAll(pairs);
        const own = pairs[pairs.indexOf(member.clientId) + 1];
        if (own !== undefined) remember(request.projectId, shardName, member.clientId, own, meta);
        await want(channelOf(request.projectId, shardName));
        return { ok: true, shardName, members };
      }
      throw new PlatformError('INTERNAL', 'no free shard name after 100 attempts');
    },

    async leave(projectId, shardName, clientId) {
      const ref = refOf(projectId, shardName, clientId);
      held.delete(ref);
      try {
        return (await run(SCRIPTS.leave, [prefix, projectId, shardName, clientId, node])) === 1;
      } catch (error) {
        // Redis out of reach: the next lease renewal that gets through removes it (else it would stay, as this node lives on).
        if (error instanceof PlatformError && error.code === 'UNAVAILABLE') pendingLeaves.add(ref);
        throw error;
      }
    },

    async update(projectId, shardName, clientId, patch: MemberPatch) {
      const mask = [patch.online, patch.peerId, patch.userId, patch.userInfo, patch.rateBuckets].map((field) => (field === undefined ? '0' : '1')).join('');
      const reply = (await run(SCRIPTS.update, [
        prefix,
        projectId,
        shardName,
        clientId,
        node,
        mask,
        patch.online ? '1' : '0',
        patch.peerId ?? '',
        JSON.stringify(patch.userId ?? null),
        JSON.stringify(patch.userInfo ?? {}),
        patch.rateBuckets ? encodeBuckets(patch.rateBuckets) : '',
      ])) as [string, string] | null;
      if (!reply) {
        held.delete(refOf(projectId, shardName, clientId)); // gone, or held by another node now
        return null;
      }
      remember(projectId, shardName, clientId, reply[0], reply[1]);
      if (patch.online) await want(channelOf(projectId, shardName));
      return decode(clientId, reply[0]).record;
    },

    async member(projectId, shardName, clientId) {
      // Both replies in one round trip (ioredis writes both commands before either answer).
      const [value, buckets] = await read((redis) => Promise.all([redis.hget(`${base(projectId)}m:${shardName}`, clientId), redis.hget(`${base(projectId)}rl:${shardName}`, clientId)]));
      if (value === null) return null;
      const record = decode(clientId, value).record;
      const rateBuckets = decodeBuckets(buckets);
      return rateBuckets ? { ...record, rateBuckets } : record;
    },

    members: (projectId, shardName) => readMembers(projectId, shardName),

    async shards(projectId): Promise<readonly ShardInfo[]> {
      const online = await read((redis) => redis.hgetall(`${base(projectId)}online`));
      const list: ShardInfo[] = [];
      for (const [shardName, count] of Object.entries(online)) {
        const numConnectedClients = Number(count);
        if (numConnectedClients > 0) list.push({ shardName, numConnectedClients });
      }
      return list.sort((a, b) => (a.shardName < b.shardName ? -1 : a.shardName > b.shardName ? 1 : 0));
    },

    async takeJoin(address, perMinute) {
      const steps = joinSteps(perMinute);
      if (!steps) return true;
      return (await run(SCRIPTS.takeJoin, [`${prefix}join:${address}`, steps.emissionUs, steps.toleranceUs])) === 1;
    },

    publish(projectId, shardName, message) {
      publishRaw(channelOf(projectId, shardName), message);
    },

    subscribe(projectId, shardName, listener) {
      const channel = channelOf(projectId, shardName);
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      void want(channel);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(channel) === set) {
          listeners.delete(channel);
          subscribed.delete(channel);
          if (subscriber?.status === 'ready') void subscriber.unsubscribe(channel).catch(() => undefined);
        }
      };
    },

    stats() {
      const shards = new Set<string>();
      for (const item of held.values()) shards.add(`${item.projectId}\n${item.shardName}`);
      return { shards: shards.size, members: held.size, dropped };
    },

    async close() {
      if (closed) return;
      await ready.catch(() => undefined);
      clearInterval(heartbeatTimer);
      await beating;
      closed = true;
      listeners.clear();
      subscribed.clear();
      held.clear();
      await Promise.all([command?.quit().catch(() => command?.disconnect()), subscriber?.quit().catch(() => subscriber?.disconnect())]);
    },
  };

  async function readMembers(projectId: string, shardName: string): Promise<MemberRecord[]> {
    const pairs = await read((redis) => redis.hgetall(`${base(projectId)}m:${shardName}`));
    return decodeAll(Object.entries(pairs).flat());
  }
}
