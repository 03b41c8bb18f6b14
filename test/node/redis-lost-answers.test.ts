// The Redis store when a write happens in Redis but its answer never reaches
// the node that sent it: the command timed out first (Redis hung, and ran the
// queued command when it resumed; or the node was starved of CPU, and Node
// fires timers before it reads the reply). The fault suite's "Redis
// SIGSTOPped" scenario failed that way under load: a sweep queued during the
// hang ran on resume (the leases had lapsed by then), its answer was lost, so
// no presence `remove` went out; the swept node put back what room was left,
// new joiners took the rest, and every client listed 13 members of a shard of
// 10, three of whom Redis no longer held.
//
// Each test plays the lost answer deterministically: the script a node would
// have sent is run by hand, and the node never hears of it. What clients see is
// modelled by a listener on a store, its view started from Redis and changed
// by each presence frame, as a server's members would be.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { encodeTail } from '../../signaling/store/redis-keys.js';
import { SCRIPTS } from '../../signaling/store/redis-scripts.js';
import { createRedisStore, type RedisShardStore } from '../../signaling/store/redis-store.js';
import type { MemberRecord, ShardBroadcast } from '../../signaling/store/store.js';
import { RedisProcess, skipRedis } from './redis-support.js';

const P = 'lost';
const KEYS = 'pk:';
const BASE = `${KEYS}{${P}}:`;
const CAPACITY = 10;
/** Long, so that no timer renews or maintains during a test: each round is called by the test. */
const LEASE_MS = 60_000;
/** Generous bounds for what travels through Redis's pub/sub; a pass takes milliseconds. */
const DEADLINE_MS = 10_000;

const member = (clientId: string): MemberRecord => ({ clientId, kind: 'backend', online: true, userInfo: {}, userId: null, connectedAt: 1, state: 'here', peerId: null });
let names = 0;
const join = async (store: RedisShardStore, clientId: string): Promise<string> => {
  const outcome = await store.join({
    projectId: P,
    shardName: undefined,
    maxConnectionsPerShard: CAPACITY,
    maxShards: 100,
    member: member(clientId),
    newShardName: () => `auto-${++names}`,
  });
  assert.ok(outcome.ok, `${clientId}: ${JSON.stringify(outcome)}`);
  return outcome.shardName;
};
const addFrame = (clientId: string): string => JSON.stringify({ type: 'presence', op: 'add', member: { clientId, userInfo: {}, userId: null, connectedAt: 1, peerId: null } });

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + DEADLINE_MS;
  while (!(await condition())) {
    if (Date.now() > end) assert.fail(`not within ${DEADLINE_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The shard as the members on one node see it: Redis's online members when it began listening, then every presence frame. */
class View {
  readonly ids = new Set<string>();
  /** The most it ever listed. */
  largest = 0;
  #events = 0;
  readonly #stop: () => void;

  private constructor(store: RedisShardStore, shardName: string) {
    this.#stop = store.subscribe(P, shardName, (message: ShardBroadcast) => {
      if (message.kind === 'event') this.#events++;
      if (message.kind !== 'presence') return;
      const frame = JSON.parse(message.frame) as { op: string; clientId?: string; member?: { clientId: string } };
      if (frame.op === 'remove') this.ids.delete(frame.clientId!);
      else if (frame.op === 'add') this.ids.add(frame.member!.clientId);
      this.largest = Math.max(this.largest, this.ids.size);
    });
  }

  /** Listens on `store` until an event `other` publishes arrives (so the subscription is in place), then reads Redis. */
  static async open(store: RedisShardStore, other: RedisShardStore, shardName: string, redis: Redis): Promise<View> {
    const view = new View(store, shardName);
    await until(() => {
      other.publish(P, shardName, { kind: 'event', from: 'probe', to: null, frame: '{}' });
      return view.#events > 0;
    }, 'the view hears the shard');
    for (const id of await online(redis, shardName)) view.ids.add(id);
    view.largest = view.ids.size;
    return view;
  }

  sorted(): string[] {
    return [...this.ids].sort();
  }

  close(): void {
    this.#stop();
  }
}

/** The shard's online members as Redis holds them. */
async function online(redis: Redis, shardName: string): Promise<string[]> {
  const records = await redis.hgetall(`${BASE}m:${shardName}`);
  return Object.entries(records)
    .filter(([, value]) => value.split('\n')[2] === '1')
    .map(([id]) => id)
    .sort();
}

/** Waits for the view to list what Redis lists, and says what differs when it does not. */
async function converged(view: View, redis: Redis, shardName: string): Promise<void> {
  let truth: string[] = [];
  await until(async () => {
    truth = await online(redis, shardName);
    return JSON.stringify(view.sorted()) === JSON.stringify(truth);
  }, `the view lists what Redis holds online`).catch(() => assert.deepEqual(view.sorted(), truth, 'the view lists exactly the members Redis holds online'));
}

describe('the Redis store: writes whose answer is lost still tell the shard', { skip: skipRedis }, () => {
  let redisProcess: RedisProcess;
  let redis: Redis;
  let a: RedisShardStore;
  let b: RedisShardStore;
  before(async () => {
    redisProcess = await RedisProcess.start();
    redis = new Redis(redisProcess.url);
  });
  after(async () => {
    redis.disconnect();
    await redisProcess.stop();
  });

  /** Two nodes, a and b, and one automatic shard where a holds 5 members (a0…a4) and b the next 5 (b0…b4). */
  async function twoNodesOneShard(): Promise<string> {
    await redis.flushall();
    a = createRedisStore({ redis: redisProcess.url, nodeId: 'a', leaseMs: LEASE_MS });
    b = createRedisStore({ redis: redisProcess.url, nodeId: 'b', leaseMs: LEASE_MS });
    await Promise.all([a.ready, b.ready]);
    const shardName = await join(a, 'a0');
    for (let i = 1; i < 5; i++) assert.equal(await join(a, `a${i}`), shardName);
    for (let i = 0; i < 5; i++) assert.equal(await join(b, `b${i}`), shardName);
    return shardName;
  }
  const closeBoth = (): Promise<unknown> => Promise.all([a?.close(), b?.close()]);

  it("a sweep whose answer the sweeper never read: the shard still hears the removes, and after b's rebuild and new joins no view lists more than the capacity or a member Redis does not hold", async () => {
    try {
      const shardName = await twoNodesOneShard();
      // The members on node a (b's own are not modelled: b does not listen, so no takeover reaches it and its rebuild runs for all 5).
      const view = await View.open(a, b, shardName, redis);
      assert.equal(view.ids.size, 10);

      // b's lease lapses (Redis resumed after a hang longer than the lease) and a's sweep, queued meanwhile, runs: a never reads its answer.
      await redis.del(`${KEYS}lease:b`);
      const swept = (await redis.eval(SCRIPTS.sweep.lua, 0, KEYS, 'b', '0', 500, 'a')) as string[];
      assert.equal(swept.length, 6, `5 refs and the "done" mark: ${JSON.stringify(swept)}`);
      await until(() => view.ids.size === 5, `the view drops b's 5 swept members (lists ${view.sorted().join(' ')})`);

      // New joiners through a take 3 of the 5 places (the server announces each, as control/handlers/join.ts does).
      for (const id of ['n0', 'n1', 'n2']) {
        assert.equal(await join(a, id), shardName);
        a.publish(P, shardName, { kind: 'presence', frame: addFrame(id), except: id });
      }
      // b renews (a new epoch) and puts back its oldest 2 members; the other 3 find the shard full and are let go.
      await b.heartbeat();
      const held = await online(redis, shardName);
      assert.deepEqual(held, ['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'n0', 'n1', 'n2']);

      await converged(view, redis, shardName);
      assert.ok(view.largest <= CAPACITY, `the view listed ${view.largest} members of a shard of ${CAPACITY}`);
      view.close();
    } finally {
      await closeBoth();
    }
  });

  it('a restore whose answer b never read: the member it put back is announced all the same', async () => {
    try {
      const shardName = await twoNodesOneShard();
      const view = await View.open(a, b, shardName, redis);
      await redis.del(`${KEYS}lease:b`);
      await a.heartbeat(); // a sweeps b, answered: the removes go out
      await until(() => view.ids.size === 5, "the view drops b's swept members");

      // b's restore of b0 ran under an epoch b was never told of (the renewal's and the restore's answers both lost)…
      await redis.set(`${KEYS}lease:b`, '999999', 'PX', LEASE_MS);
      const args = [KEYS, 'b', '999999', P, shardName, 'b0', encodeTail('b', member('b0')), '1', CAPACITY, '1', addFrame('b0')];
      assert.deepEqual(await redis.eval(SCRIPTS.restore.lua, 0, ...args), ['ADDED']);
      // …so b renews again (another epoch) and rebuilds: b0 is there already (KEPT), b1…b4 are put back.
      await b.heartbeat();
      assert.equal((await online(redis, shardName)).length, 10);
      await converged(view, redis, shardName);
      view.close();
    } finally {
      await closeBoth();
    }
  });

  it('a leave whose answer a never read: the shard hears the remove, and a later leave of the same member tells nothing new', async () => {
    try {
      const shardName = await twoNodesOneShard();
      const view = await View.open(b, a, shardName, redis);
      const epoch = (await redis.get(`${KEYS}lease:a`))!;
      assert.equal(await redis.eval(SCRIPTS.leave.lua, 0, KEYS, P, shardName, 'a0', 'a', epoch), 1);
      // The grace timer fires again, or a pending leave is retried: nothing left to remove.
      assert.equal(await a.leave(P, shardName, 'a0'), false);
      await converged(view, redis, shardName);
      assert.equal(view.ids.size, 9);
      view.close();
    } finally {
      await closeBoth();
    }
  });
});
