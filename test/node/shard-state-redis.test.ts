// Shard state across nodes (issue 26): two signaling node processes on one real redis-server.
// Both nodes serve one state (a joiner on either holds it at connect, changes cross nodes); a node
// killed with -9 loses nothing the others acknowledged; Redis restarted empty gets the state back
// from the members (stateResync); the state's keys go with the shard's last member.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import * as Y from 'yjs';
import { shardState } from '../../signaling/index.js';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { backend, PROJECT, waitFor } from './signaling-support.js';

type Client = ReturnType<typeof backend>;

/** Waits for an asynchronous condition (a Redis read), up to a generous deadline. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('shard state on two nodes sharing Redis', { skip: skipRedis, timeout: 180_000 }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[] = [];
  let inspect: Redis;
  const clients: Client[] = [];
  const client = (urls: string | readonly string[]): Client => {
    const made = backend(typeof urls === 'string' ? urls : urls[0]!, { url: urls, reconnectInitialDelayMs: 50 });
    clients.push(made);
    return made;
  };

  before(async () => {
    redis = await RedisProcess.start();
    nodes = await Promise.all([NodeProcess.start(redis.url, 'n1', ['--lease-ms', '3000']), NodeProcess.start(redis.url, 'n2', ['--lease-ms', '3000'])]);
    inspect = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    await Promise.all(clients.map((item) => item.disconnect().catch(() => undefined)));
    inspect.disconnect();
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.stop();
  });

  it('both nodes serve one state: a joiner on the other node holds it at connect, and changes cross nodes', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const a = client(n1.url);
    const stateA = shardState(a);
    await a.connect({ shardName: 'two' });
    const board = stateA.map<string>('board');
    for (let index = 0; index < 50; index++) board.set(`cell-${index}`, 'y'.repeat(2_000));
    // Acknowledged: in Redis.
    const key = `pk:{${PROJECT}}:st:two`;
    const deadline = Date.now() + 15_000;
    while ((await inspect.llen(key)) === 0) {
      if (Date.now() > deadline) throw new Error('the state never reached Redis');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const b = client(n2.url);
    const stateB = shardState(b);
    await b.connect({ shardName: 'two' });
    assert.equal(stateB.map('board').entries().length, 50, 'whole at connect, from the other node');
    stateB.map<number>('score').set('b', 1);
    await waitFor(() => stateA.map<number>('score').get('b') === 1, 'A (node 1) to hear B’s change (node 2)', 10_000);
    // The history is the shard's, across nodes: a broadcast relayed by node 1, replayed by node 2.
    await a.emitEvent('move', { n: 1 });
    const key2 = `pk:{${PROJECT}}:ev:two`;
    const end = Date.now() + 10_000;
    while ((await inspect.llen(key2)) === 0) {
      if (Date.now() > end) throw new Error('the event never reached the history');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const c = client(n2.url);
    const replayed: unknown[] = [];
    c.on('move', (payload, meta) => replayed.push([payload['n'], meta.replayed]));
    await c.connect({ shardName: 'two', history: 5 });
    assert.deepEqual(replayed, [[1, true]]);
    // Many updates are merged in Redis too (after 64, not on each).
    for (let index = 0; index < 80; index++) {
      stateA.map<number>('many').set(`k${index}`, index);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const merged = Date.now() + 15_000;
    while (Number((await inspect.hget(`pk:{${PROJECT}}:stm:two`, 'gen')) ?? 0) === 0) {
      if (Date.now() > merged) throw new Error('no compaction in Redis');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor(() => stateB.map('many').entries().length === 80, 'B to hold all 80', 10_000);
  });

  it('a join that finds several updates writes their merge back with its state vector; the next update drops the vector', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const writer = client(n1.url);
    const map = shardState(writer).map<number>();
    await writer.connect({ shardName: 'merged-at-join' });
    const list = `pk:{${PROJECT}}:st:merged-at-join`;
    const meta = `pk:{${PROJECT}}:stm:merged-at-join`;
    // One update per task: three updates in Redis.
    for (let index = 0; index < 3; index++) {
      map.set(`k${index}`, index);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await until(async () => (await inspect.llen(list)) === 3, 'three updates in Redis', 15_000);
    const joiner = client(n2.url);
    const joined = shardState(joiner);
    await joiner.connect({ shardName: 'merged-at-join' });
    assert.deepEqual(Object.fromEntries(joined.map().entries()), { k0: 0, k1: 1, k2: 2 });
    await until(async () => (await inspect.llen(list)) === 1, 'the join to write its merge back', 15_000);
    const [stored] = await inspect.lrangeBuffer(list, 0, -1);
    const vector = await inspect.hgetBuffer(meta, 'sv');
    assert.ok(stored && vector, 'one update and its vector');
    assert.deepEqual(new Uint8Array(vector), Y.encodeStateVectorFromUpdate(new Uint8Array(stored)));
    map.set('k3', 3);
    await until(async () => (await inspect.llen(list)) === 2, 'the next update in Redis', 15_000);
    assert.equal(await inspect.hexists(meta, 'sv'), 0, 'the vector is no longer the whole state’s');
    const late = client(n1.url);
    const lateState = shardState(late);
    await late.connect({ shardName: 'merged-at-join' });
    assert.deepEqual(Object.fromEntries(lateState.map().entries()), { k0: 0, k1: 1, k2: 2, k3: 3 });
  });

  it('a node killed with -9 loses nothing acknowledged: a joiner on the other node holds the state', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const writer = client(n1.url);
    const keeper = client(n2.url);
    const [stateW, stateK] = [shardState(writer), shardState(keeper)];
    await writer.connect({ shardName: 'kill' });
    await keeper.connect({ shardName: 'kill' });
    stateW.map<string>().set('before-kill', 'kept');
    // Relayed to the keeper after the store kept it: acknowledged.
    await waitFor(() => stateK.map<string>().get('before-kill') === 'kept', 'the keeper to hear it', 10_000);
    await n1.kill9();
    const late = client(n2.url);
    const stateL = shardState(late);
    await late.connect({ shardName: 'kill' });
    assert.equal(stateL.map<string>().get('before-kill'), 'kept');
    nodes[0] = await NodeProcess.start(redis.url, 'n1', ['--lease-ms', '3000']);
  });

  it('Redis restarted empty: the members send the state back, and a joiner gets it', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const a = client([n1.url, n2.url]);
    const b = client([n2.url, n1.url]);
    const [stateA, stateB] = [shardState(a), shardState(b)];
    await a.connect({ shardName: 'restart' });
    await b.connect({ shardName: 'restart' });
    stateA.map<string>().set('survives', 'a Redis restart');
    await waitFor(() => stateB.map<string>().get('survives') === 'a Redis restart', 'B to hear it', 10_000);
    await redis.restart();
    assert.equal(await inspect.exists(`pk:{${PROJECT}}:st:restart`).catch(() => 0), 0, 'Redis came back empty');
    // A joiner after the restart (retrying while the nodes re-register) ends up with the state.
    const deadline = Date.now() + 60_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      const c = client([n2.url, n1.url]);
      const stateC = shardState(c);
      try {
        await c.connect({ shardName: 'restart' });
        await waitFor(() => stateC.map<string>().get('survives') === 'a Redis restart', 'the joiner to get the state back', 10_000);
        found = true;
      } catch {
        await c.disconnect();
      }
    }
    assert.ok(found, 'the state came back from the members');
    assert.ok((await inspect.llen(`pk:{${PROJECT}}:st:restart`)) > 0, 'and is in Redis again');
  });

  it('drops the state’s keys with the shard’s last member', async () => {
    const [, n2] = nodes as [NodeProcess, NodeProcess];
    const a = client(n2.url);
    const state = shardState(a);
    await a.connect({ shardName: 'ends', history: 0 });
    state.map<string>().set('k', 'v');
    await a.emitEvent('note', { n: 1 });
    const keys = [`pk:{${PROJECT}}:st:ends`, `pk:{${PROJECT}}:stm:ends`, `pk:{${PROJECT}}:ev:ends`];
    let deadline = Date.now() + 10_000;
    while ((await inspect.exists(...keys)) < 3) {
      if (Date.now() > deadline) throw new Error('the state and history never reached Redis');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await a.disconnect();
    deadline = Date.now() + 10_000;
    while ((await inspect.exists(...keys)) > 0) {
      if (Date.now() > deadline) throw new Error('the state outlived its shard');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
