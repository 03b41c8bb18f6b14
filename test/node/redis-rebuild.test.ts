// The Redis store's rebuild and lease, against a real redis-server:
// - a node whose lease lapsed and whose members were swept puts them back in
//   batches (a few scripts, not one per member), each member through the
//   capacity check: the oldest first, KEPT / ADDED / FULL / MOVED apart;
// - the lease renews on a connection of its own, so it never waits behind the
//   node's other commands (here: a command connection blocked outright).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisConnection } from '../../signaling/store/redis-connection.js';
import { NodeLease } from '../../signaling/store/redis-lease.js';
import { RESTORE_BATCH } from '../../signaling/store/redis-rebuild.js';
import { SCRIPTS } from '../../signaling/store/redis-scripts.js';
import { createRedisStore, type RedisShardStore } from '../../signaling/store/redis-store.js';
import type { MemberRecord } from '../../signaling/store/store.js';
import { RedisProcess, skipRedis } from './redis-support.js';

const P = 'proj';
const KEYS = 'pk:';
const BASE = `${KEYS}{${P}}:`;
/** Long, so that no timer renews or maintains during a test: each round is called by the test. */
const LEASE_MS = 60_000;

const member = (clientId: string): MemberRecord => ({ clientId, kind: 'backend', online: true, userInfo: {}, userId: null, connectedAt: 1, state: 'here', peerId: null });
let names = 0;
const join = (store: RedisShardStore, clientId: string, shardName?: string) =>
  store.join({ projectId: P, shardName, maxConnectionsPerShard: 10, maxShards: 10_000, member: member(clientId), newShardName: () => `auto-${++names}` });

/** Script calls Redis has run so far (EVALSHA and EVAL). */
async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('the Redis store: rebuild and lease', { skip: skipRedis }, () => {
  let redisProcess: RedisProcess;
  let redis: Redis;
  before(async () => {
    redisProcess = await RedisProcess.start();
    redis = new Redis(redisProcess.url);
  });
  after(async () => {
    redis.disconnect();
    await redisProcess.stop();
  });

  it('a node swept while its lease had lapsed puts its members back in batches, each capacity-checked: oldest first, a full shard and a resumed member let go', async () => {
    await redis.flushall();
    const a = createRedisStore({ redis: redisProcess.url, nodeId: 'a', leaseMs: LEASE_MS });
    const b = createRedisStore({ redis: redisProcess.url, nodeId: 'b', leaseMs: LEASE_MS });
    try {
      await Promise.all([a.ready, b.ready]);
      // a holds 10 in the named shard `lobby`, then 600 placed automatically (60 shards of 10): more than two batches.
      for (let i = 0; i < 10; i++) assert.equal((await join(a, `lobby-a${i}`, 'lobby')).ok, true);
      const automatic = await Promise.all(Array.from({ length: 600 }, (_, i) => join(a, `auto-a${i}`)));
      assert.ok(automatic.every((outcome) => outcome.ok));
      assert.ok(610 > 2 * RESTORE_BATCH);
      const firstShard = (automatic[0] as { shardName: string }).shardName;
      const movedId = (await redis.hkeys(`${BASE}m:${firstShard}`))[0]!;

      // a's lease lapses and its members are swept, as another node does (LUA_SWEEP)…
      await redis.del(`${KEYS}lease:a`);
      for (let done = false; !done;) done = ((await redis.evalsha(SCRIPTS.sweep.sha, 0, KEYS, 'a', '1', 500)) as string[]).at(-1) === '1';
      assert.equal(await redis.hlen(`${BASE}shards`), 0);
      // …and meanwhile b gives 7 of lobby's places away, and one of a's clients resumed on b (same id, same shard).
      for (let i = 0; i < 7; i++) assert.equal((await join(b, `lobby-b${i}`, 'lobby')).ok, true);
      assert.equal((await join(b, movedId, firstShard)).ok, true);

      const callsBefore = await scriptCalls(redis);
      await a.heartbeat(); // renews (LAPSED: a new epoch), then rebuilds
      const calls = (await scriptCalls(redis)) - callsBefore;

      // One restore script per batch (3 of RESTORE_BATCH = 250; plus the renewal, b's sweep check and the first
      // EVALSHA of a script Redis did not know), not one per member (610).
      assert.ok(calls <= 12, `${calls} script calls for 610 members`);
      // lobby: b's 7, and a's 3 oldest; a's other 7 were FULL and let go.
      const lobby = Object.keys(await redis.hgetall(`${BASE}m:lobby`)).sort();
      assert.deepEqual(lobby, ['lobby-a0', 'lobby-a1', 'lobby-a2', ...Array.from({ length: 7 }, (_, i) => `lobby-b${i}`)]);
      // The resumed member stays b's (MOVED): a lets it go and holds 600 - 1 + 3.
      assert.match((await redis.hget(`${BASE}m:${firstShard}`, movedId)) ?? '', /\nb\n/);
      assert.equal(a.stats().members, 602);
      assert.equal(await redis.scard(`${KEYS}nm:a`), 602);
      // No shard over 10; every size counter equals its members.
      const sizes = await redis.hgetall(`${BASE}size`);
      for (const shard of await redis.hkeys(`${BASE}shards`)) {
        const count = await redis.hlen(`${BASE}m:${shard}`);
        assert.ok(count <= 10, `${shard}: ${count}`);
        assert.equal(Number(sizes[shard]), count, shard);
      }
      assert.equal(await redis.hlen(`${BASE}shards`), 61);

      // A second round finds them all there (KEPT): nothing added, nothing let go.
      await redis.del(`${KEYS}lease:a`);
      await a.heartbeat();
      assert.equal(a.stats().members, 602);
      assert.equal(await redis.scard(`${KEYS}nm:a`), 602);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('the lease renews on a connection of its own: a command connection blocked outright does not hold it', async () => {
    await redis.flushall();
    const connection = new RedisConnection('solo', 30_000, () => {});
    const { command, lease, subscriber } = await connection.make(redisProcess.url);
    await Promise.all([command.connect(), lease.connect(), subscriber.connect()]);
    const nodeLease = new NodeLease(
      connection,
      KEYS,
      10_000,
      () => 0,
      () => {},
    );
    try {
      // The command connection waits on a list nobody pushes to until the renewal is done.
      const blocked = command.blpop('release', 25);
      await new Promise((resolve) => setImmediate(resolve));
      await nodeLease.renew();
      assert.notEqual(nodeLease.epoch, '', 'the renewal registered the node while the command connection was blocked');
      assert.ok((await redis.pttl(`${KEYS}lease:solo`)) > 0);
      await redis.lpush('release', 'x');
      assert.deepEqual(await blocked, ['release', 'x']);
    } finally {
      await nodeLease.stop();
      await connection.close();
    }
  });
});
