/**
 * The Redis store's Lua scripts: every write of the store (join, leave,
 * update, a node's sweep, renewal and restore, the join allowance) is ONE
 * script, so it is atomic across the nodes sharing the Redis. Keys and
 * records are laid out as redis-keys.ts describes; the scripts compute the
 * keys they name (hence one Redis, not Redis Cluster).
 *
 * Fencing: a node's lease key `lease:<node>` holds its epoch, a number drawn
 * from one counter when the node (re)registers. Every write a node makes for
 * its members (join, leave, update, restore) names the epoch it believes it
 * holds, and the script refuses it (`FENCED`) unless the lease key still holds
 * exactly that epoch. A node stalled past its lease (SIGSTOP, a long GC, a
 * partition) therefore cannot write with the lease it lost: the others may
 * have swept its members and given their places away, and it must re-register
 * (a new epoch) and put its members back through the capacity check first.
 *
 * Notices: a script that takes a member out of a shard (leave, sweep) or puts
 * one back (restore) publishes the presence change on the shard's channel
 * itself, in the same atomic step. A notice published by the caller after the
 * answer is lost with the answer: a command that times out (Redis hung and ran
 * it on resuming; the node was starved of CPU, and Node fires the timeout
 * before it reads the reply) still happens in Redis, and the clients went on
 * listing a member Redis no longer held (the fault suite, Redis SIGSTOPped
 * under load: 13 listed in a shard of 10). Published in the script, a notice
 * also takes its place in the order of the shard's changes as Redis made them.
 */
import { createHash } from 'node:crypto';

// split(): a member record's 8 fields (redis-keys.ts: "order\nnode\nonline\n…\nuserInfoJSON"; JSON never
// holds a raw newline, so the last field may be split off safely).
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
-- The caller's lease is gone or is another registration's: it may not write (see the file's comment).
local function fenced(prefix, node, epoch)
  return redis.call('GET', prefix .. 'lease:' .. node) ~= epoch
end
-- Publishes on the shard's channel in redis-pubsub.ts's envelope ("node\\nkind\\nfield\\nrest") with an empty
-- node: from Redis itself, so every node delivers it to its members, the caller's node too (see the file's comment).
local function tell(prefix, P, shard, kind, field, rest)
  redis.call('PUBLISH', prefix .. '{' .. P .. '}:ch:' .. shard, '\\n' .. kind .. '\\n' .. field .. '\\n' .. rest)
end
-- Takes a member out and tells its shard (presence 'remove', not to the member itself).
local function removeMember(prefix, P, shard, clientId, f)
  local base = prefix .. '{' .. P .. '}:'
  tell(prefix, P, shard, 'p', clientId, '{"type":"presence","op":"remove","clientId":' .. cjson.encode(clientId) .. '}')
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
    -- The shard ended: its state and history go with it (redis-state.ts).
    redis.call('DEL', base .. 'st:' .. shard, base .. 'stm:' .. shard, base .. 'ev:' .. shard)
  elseif auto == '1' and size < tonumber(cap) then
    redis.call('ZADD', base .. 'open:' .. cap, tonumber(seq), shard)
  end
end
`;

// ARGV: prefix, P, named ('' = automatic), capacity, maxShards, clientId, record tail (from node on), online, candidate name, node, epoch
// Returns {'OK', shard, shard meta, the member's stored record, '1' when this join opened the shard}, or {reason}. The shard's other members are
// read by the server once it listens to the shard (control/handlers/join.ts), so no change falls between.
const LUA_JOIN = `${LUA_COMMON}
local prefix, P, named, cap, maxShards = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local clientId, tail, online, candidate, node, epoch = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]
if fenced(prefix, node, epoch) then return {'FENCED'} end
-- Redis lost its data: until every live node has put its members back, a join could take a place one of them holds.
if redis.call('EXISTS', prefix .. 'recovering') == 1 then return {'RECOVERING'} end
local base = prefix .. '{' .. P .. '}:'
local function add(shard, capacity, auto, opened)
  local mkey = base .. 'm:' .. shard
  if redis.call('HEXISTS', mkey, clientId) == 1 then return {'CLIENT_ID_TAKEN'} end
  local order = redis.call('INCR', base .. 'seq')
  redis.call('HSET', mkey, clientId, order .. '\\n' .. tail)
  local size = redis.call('HINCRBY', base .. 'size', shard, 1)
  if online == '1' then redis.call('HINCRBY', base .. 'online', shard, 1) end
  if auto and size >= capacity then redis.call('ZREM', base .. 'open:' .. capacity, shard) end
  redis.call('SADD', prefix .. 'nm:' .. node, P .. '\\n' .. shard .. '\\n' .. clientId)
  return {'OK', shard, redis.call('HGET', base .. 'shards', shard), order .. '\\n' .. tail, opened}
end
if named == '' then
  local open = redis.call('ZRANGE', base .. 'open:' .. cap, 0, 0)
  if open[1] then return add(open[1], cap, true, '0') end
  if redis.call('HLEN', base .. 'shards') >= maxShards then return {'TOO_MANY_SHARDS'} end
  if redis.call('HEXISTS', base .. 'shards', candidate) == 1 then return {'COLLISION'} end
  local seq = redis.call('INCR', base .. 'seq')
  redis.call('HSET', base .. 'shards', candidate, cap .. ':1:' .. seq)
  redis.call('ZADD', base .. 'open:' .. cap, seq, candidate)
  return add(candidate, cap, true, '1')
end
local meta = redis.call('HGET', base .. 'shards', named)
if meta then
  local c, a = string.match(meta, '^(%d+):(%d)')
  c = tonumber(c)
  local size = tonumber(redis.call('HGET', base .. 'size', named) or '0')
  -- each joiner's own capacity, not the first joiner's (no one can make a named shard full for others)
  if size >= cap then return {'SHARD_FULL'} end
  return add(named, c, a == '1', '0')
end
if redis.call('HLEN', base .. 'shards') >= maxShards then return {'TOO_MANY_SHARDS'} end
local seq = redis.call('INCR', base .. 'seq')
redis.call('HSET', base .. 'shards', named, cap .. ':0:' .. seq)
return add(named, cap, false, '1')
`;

// ARGV: prefix, P, shard, clientId, node, epoch. Returns 1 (removed), 0 (not this node's), -1 (fenced).
// A member removed is told to its shard from here (removeMember), so a leave whose answer is lost is still heard.
const LUA_LEAVE = `${LUA_COMMON}
local prefix, P, shard, clientId, node, epoch = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if fenced(prefix, node, epoch) then return -1 end
local v = redis.call('HGET', prefix .. '{' .. P .. '}:m:' .. shard, clientId)
if not v then return 0 end
local f = split(v)
if f[2] ~= node then return 0 end
removeMember(prefix, P, shard, clientId, f)
return 1
`;

// ARGV: prefix, P, shard, clientId, node, mask ("oppirs": online, peerId, userId, userInfo, rate buckets, state), online, peerId, userIdJSON, userInfoJSON, buckets, epoch, state
// The state rides in the kind field (redis-keys.ts): "browser" or "browser:away".
// Returns {record, shard meta}, false (gone, or another node's), or 'FENCED'.
const LUA_UPDATE = `${LUA_COMMON}
local prefix, P, shard, clientId, node, mask = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if fenced(prefix, node, ARGV[12]) then return 'FENCED' end
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
if string.sub(mask, 6, 6) == '1' then
  local kind = string.gsub(f[4], ':away$', '')
  f[4] = ARGV[13] == 'away' and (kind .. ':away') or kind
end
local nv = table.concat(f, '\\n')
redis.call('HSET', mkey, clientId, nv)
return {nv, redis.call('HGET', base .. 'shards', shard) or ''}
`;

// ARGV: prefix, dead node, force ('1': sweep even with a live lease; a node clearing its previous run), batch size,
// the sweeping node. Each member removed is told to its shard from here (a takeover naming the sweeper, so that a
// stalled node that wakes drops the socket it still holds, relay.ts; then the presence remove), never by the caller
// after the answer: a sweep queued while Redis hung runs when it resumes, with the answer long timed out.
// Removes at most `batch` of the node's members per call, so Redis serves the others between calls (one script
// over 16,000 members held it for seconds, every other node's renewal timed out, and their leases lapsed in turn).
// Returns the refs removed, then '1' as the last element when the node has none left (the caller calls again otherwise).
const LUA_SWEEP = `${LUA_COMMON}
local prefix, dead, force, batch, sweeper = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
if force ~= '1' and redis.call('EXISTS', prefix .. 'lease:' .. dead) == 1 then return {'1'} end
local key = prefix .. 'nm:' .. dead
local refs = redis.call('SPOP', key, batch)
local out = {}
for i = 1, #refs do
  local P, shard, clientId = string.match(refs[i], '^([^\\n]*)\\n([^\\n]*)\\n(.*)$')
  if P then
    local v = redis.call('HGET', prefix .. '{' .. P .. '}:m:' .. shard, clientId)
    if v then
      local f = split(v)
      if f[2] == dead then
        if force ~= '1' then tell(prefix, P, shard, 't', clientId, sweeper) end
        removeMember(prefix, P, shard, clientId, f)
        out[#out + 1] = refs[i]
      end
    end
  end
end
if redis.call('SCARD', key) > 0 then
  out[#out + 1] = '0'
  return out
end
if force ~= '1' then redis.call('SREM', prefix .. 'nodes', dead) end
out[#out + 1] = '1'
return out
`;

// ARGV: prefix, node, leaseMs, epoch ('' before the first registration), cluster id ('' likewise), recoveryMs.
// Returns {status, epoch, cluster id}: 'HELD' (the lease was this epoch's and is extended); 'LAPSED' (it had run
// out, or another registration of the same node id took it: a new epoch, this node must put its members back
// through the capacity check); 'LOST' (the cluster marker is gone or new: Redis restarted empty or was flushed;
// joins wait `recoveryMs` while every live node puts its members back); 'FIRST' (this process's first registration).
const LUA_RENEW = `
local prefix, node, lease, epoch, cluster, recoveryMs = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local leaseKey = prefix .. 'lease:' .. node
redis.call('SADD', prefix .. 'nodes', node)
local current = redis.call('GET', prefix .. 'cluster')
if epoch ~= '' and current == cluster and redis.call('GET', leaseKey) == epoch then
  redis.call('PEXPIRE', leaseKey, lease)
  return {'HELD', epoch, cluster}
end
local status = 'LAPSED'
if not current then
  current = redis.call('INCR', prefix .. 'clusters') .. ':' .. redis.call('TIME')[1]
  redis.call('SET', prefix .. 'cluster', current)
end
if epoch == '' then status = 'FIRST'
elseif current ~= cluster then status = 'LOST' end
if status == 'LOST' then redis.call('SET', prefix .. 'recovering', '1', 'PX', recoveryMs) end
local fresh = tostring(redis.call('INCR', prefix .. 'epoch'))
redis.call('SET', leaseKey, fresh, 'PX', lease)
return {status, fresh, current}
`;

// ARGV: prefix, node, epoch, then 8 per member: P, shard, clientId, record tail (from node on), online, capacity,
// automatic ('1'/'0'), its presence 'add' frame. Puts back members this node holds after Redis lost them (or swept them while this node was
// stalled), each through the same capacity check as a join. Returns one outcome per member, in order: 'KEPT' (still
// there, this node's), 'ADDED', 'FULL' (its place was given away: the client must be placed anew), 'MOVED' (another
// node holds it now: it resumed there); or 'FENCED' for the whole call (the lease is checked once: a script is atomic).
// A member put back online is announced from here (its 'add' frame), in the order of the shard's changes: a sweep's
// 'remove' of it went out from the sweep script before, and a lost answer cannot lose the 'add' (see the top).
// Many members per call (one round trip each held a node's rebuild of 16,000 members for minutes), and few enough
// (RESTORE_BATCH, redis-store.ts) that Redis serves the other nodes between two calls.
const LUA_RESTORE = `${LUA_COMMON}
local prefix, node, epoch = ARGV[1], ARGV[2], ARGV[3]
if fenced(prefix, node, epoch) then return 'FENCED' end
local function restore(P, shard, clientId, tail, online, cap, auto, added)
  local base = prefix .. '{' .. P .. '}:'
  local mkey = base .. 'm:' .. shard
  local v = redis.call('HGET', mkey, clientId)
  if v then
    if split(v)[2] == node then return 'KEPT' end
    return 'MOVED'
  end
  local meta = redis.call('HGET', base .. 'shards', shard)
  local seq
  if meta then
    local c, a, s = string.match(meta, '^(%d+):(%d):(%d+)$')
    auto, seq = a, s
    -- automatic shards hold their own capacity; a named one, each member's own (as in a join)
    if auto == '1' then cap = tonumber(c) end
    if tonumber(redis.call('HGET', base .. 'size', shard) or '0') >= cap then return 'FULL' end
  else
    seq = redis.call('INCR', base .. 'seq')
    redis.call('HSET', base .. 'shards', shard, cap .. ':' .. auto .. ':' .. seq)
  end
  redis.call('HSET', mkey, clientId, redis.call('INCR', base .. 'seq') .. '\\n' .. tail)
  local size = redis.call('HINCRBY', base .. 'size', shard, 1)
  if online == '1' then redis.call('HINCRBY', base .. 'online', shard, 1) end
  redis.call('SADD', prefix .. 'nm:' .. node, P .. '\\n' .. shard .. '\\n' .. clientId)
  if auto == '1' then
    if size < cap then redis.call('ZADD', base .. 'open:' .. cap, tonumber(seq), shard)
    else redis.call('ZREM', base .. 'open:' .. cap, shard) end
  end
  if online == '1' then tell(prefix, P, shard, 'p', clientId, added) end
  return 'ADDED'
end
local out = {}
for i = 4, #ARGV - 7, 8 do
  out[#out + 1] = restore(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], tonumber(ARGV[i + 5]), ARGV[i + 6], ARGV[i + 7])
end
return out
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

/** A script and its SHA-1 (EVALSHA first, EVAL when Redis does not know it). */
export interface Script {
  readonly lua: string;
  readonly sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
export const SCRIPTS = {
  join: script(LUA_JOIN),
  leave: script(LUA_LEAVE),
  update: script(LUA_UPDATE),
  sweep: script(LUA_SWEEP),
  renew: script(LUA_RENEW),
  restore: script(LUA_RESTORE),
  takeJoin: script(LUA_TAKE_JOIN),
};
