/**
 * The Redis store's {@link ShardStateStore}: a shard's state lives in Redis,
 * so every node serves it and a node that restarts loses nothing that was
 * acknowledged (a `state` frame is answered `ok` only after its script ran).
 *
 * Keys, per project `P` and shard `S` (beside redis-keys.ts's):
 *   {P}:st:S   LIST  the shard's Yjs updates (bytes), oldest first
 *   {P}:stm:S  HASH  bytes (sum of their lengths), gen (compactions so far), evb (history characters),
 *                    sv (the state vector of the one update a compaction left; an append deletes it)
 *   {P}:ev:S   LIST  the last relayed broadcasts (event frames), oldest first
 * They go with the shard: the script that removes a shard's last member
 * deletes them (redis-scripts.ts `removeMember`). Every write names the
 * node's lease epoch and is refused `FENCED` like the member writes; a
 * compaction replaces the first updates only if no other compaction came
 * between its read and its write (`gen`).
 */
import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection.js';
import type { NodeLease } from './redis-lease.js';
import type { Script } from './redis-scripts.js';
import type { ShardStateStore, StoredState } from './store.js';
import { HISTORY_MAX_CHARS } from './memory-state.js';

const FENCED = `local function fenced(prefix, node, epoch)
  return redis.call('GET', prefix .. 'lease:' .. node) ~= epoch
end
`;

// ARGV: prefix, P, shard, update, maxBytes, node, epoch. Returns the count of updates, -1 (over the limit), -2 (no such shard), 'FENCED'.
const LUA_APPEND = `${FENCED}
local prefix, P, shard, update, maxBytes, node, epoch = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7]
if fenced(prefix, node, epoch) then return 'FENCED' end
local base = prefix .. '{' .. P .. '}:'
-- A shard that ended keeps no state (its keys would outlive it).
if redis.call('HEXISTS', base .. 'shards', shard) == 0 then return -2 end
local bytes = tonumber(redis.call('HGET', base .. 'stm:' .. shard, 'bytes') or '0')
if bytes + string.len(update) > maxBytes then return -1 end
redis.call('HINCRBY', base .. 'stm:' .. shard, 'bytes', string.len(update))
redis.call('HDEL', base .. 'stm:' .. shard, 'sv')
return redis.call('RPUSH', base .. 'st:' .. shard, update)
`;

// ARGV: prefix, P, shard, merged, count, gen, node, epoch, vector. Returns 1 (replaced), 0 (another compaction came first), 'FENCED'.
const LUA_COMPACT = `${FENCED}
local prefix, P, shard, merged, count, gen, node, epoch, vector = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9]
if fenced(prefix, node, epoch) then return 'FENCED' end
local base = prefix .. '{' .. P .. '}:'
local meta, list = base .. 'stm:' .. shard, base .. 'st:' .. shard
if (redis.call('HGET', meta, 'gen') or '0') ~= gen or redis.call('LLEN', list) < count then return 0 end
local removed = 0
for _, update in ipairs(redis.call('LRANGE', list, 0, count - 1)) do removed = removed + string.len(update) end
redis.call('LTRIM', list, count, -1)
redis.call('LPUSH', list, merged)
redis.call('HINCRBY', meta, 'bytes', string.len(merged) - removed)
redis.call('HINCRBY', meta, 'gen', 1)
-- The vector is the whole state's only when the merge is all there is.
if redis.call('LLEN', list) == 1 then redis.call('HSET', meta, 'sv', vector) else redis.call('HDEL', meta, 'sv') end
return 1
`;

// ARGV: prefix, P, shard, frame, size, maxChars, node, epoch. Returns 1, 0 (no such shard), 'FENCED'.
const LUA_REMEMBER = `${FENCED}
local prefix, P, shard, frame, size, maxChars, node, epoch = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8]
if fenced(prefix, node, epoch) then return 'FENCED' end
local base = prefix .. '{' .. P .. '}:'
if redis.call('HEXISTS', base .. 'shards', shard) == 0 then return 0 end
local meta, list = base .. 'stm:' .. shard, base .. 'ev:' .. shard
local chars = redis.call('HINCRBY', meta, 'evb', string.len(frame))
local length = redis.call('RPUSH', list, frame)
while length > size or chars > maxChars do
  chars = redis.call('HINCRBY', meta, 'evb', -string.len(redis.call('LPOP', list)))
  length = length - 1
end
return 1
`;

const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const STATE_SCRIPTS = { append: script(LUA_APPEND), compact: script(LUA_COMPACT), remember: script(LUA_REMEMBER) };

/** The state part of a Redis store (one per store; `nodeId` and `lease` are the store's). */
export function createRedisStateStore(redis: RedisConnection, prefix: string, nodeId: string, lease: NodeLease, log: (line: string) => void): ShardStateStore {
  const base = (projectId: string): string => `${prefix}{${projectId}}:`;
  const fencedOr = <T>(reply: unknown, value: T): T => {
    if (reply === 'FENCED') throw lease.fenced();
    return value;
  };
  return {
    async read(projectId, shardName): Promise<StoredState> {
      // In this order on one connection: an append after the list's read drops `sv` before it is read.
      const [updates, gen, sv] = await redis.read((client) =>
        Promise.all([
          client.lrangeBuffer(`${base(projectId)}st:${shardName}`, 0, -1),
          client.hget(`${base(projectId)}stm:${shardName}`, 'gen'),
          client.hgetBuffer(`${base(projectId)}stm:${shardName}`, 'sv'),
        ]),
      );
      const list = updates.map((update) => new Uint8Array(update.buffer, update.byteOffset, update.byteLength));
      const held = { updates: list, bytes: list.reduce((sum, update) => sum + update.length, 0), generation: Number(gen ?? 0) };
      return sv && list.length === 1 ? { ...held, vector: new Uint8Array(sv.buffer, sv.byteOffset, sv.byteLength) } : held;
    },
    async append(projectId, shardName, update, maxBytes) {
      const reply = await redis.run(STATE_SCRIPTS.append, [prefix, projectId, shardName, Buffer.from(update), maxBytes, nodeId, lease.epoch]);
      const count = fencedOr(reply, reply as number);
      // No such shard: it ended while the update was on its way; kept nowhere, as the shard is gone.
      return count === -1 ? null : count === -2 ? 0 : count;
    },
    async compact(projectId, shardName, merged, count, generation, vector) {
      const reply = await redis.run(STATE_SCRIPTS.compact, [
        prefix,
        projectId,
        shardName,
        Buffer.from(merged),
        count,
        String(generation),
        nodeId,
        lease.epoch,
        Buffer.from(vector),
      ]);
      return fencedOr(reply, reply === 1);
    },
    remember(projectId, shardName, frame, size) {
      // Not awaited (the relay does not wait for its history): a failure is logged, the event went anyway.
      // Nothing may throw out of here: a rejection nobody awaits would end the process.
      redis.run(STATE_SCRIPTS.remember, [prefix, projectId, shardName, frame, size, HISTORY_MAX_CHARS, nodeId, lease.epoch]).then(
        (reply) => {
          // Fenced: the lease is told (it re-registers), the event is simply not in the history.
          if (reply === 'FENCED') log(`platform-kit: history not kept: ${lease.fenced().message}`);
        },
        (error: unknown) => log(`platform-kit: history not kept: ${String(error)}`),
      );
    },
    async recent(projectId, shardName, count) {
      if (count <= 0) return [];
      return redis.read((client) => client.lrange(`${base(projectId)}ev:${shardName}`, -count, -1));
    },
  };
}
