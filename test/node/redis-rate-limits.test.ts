// Rate limits across nodes, on real components: one redis-server and three
// signaling nodes, each its own process on a loopback port. The join
// allowance per address is one count for all nodes (a Lua script), event
// buckets travel with a session to whichever node it resumes on (even after
// kill -9 of its node), and Redis down is survived (the join limit fails
// open). Each test joins from its own loopback address (127.0.0.x), so the
// allowances of one test never touch another's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { flood, PROJECT, Raw, sleep, type Frame } from './signaling-support.js';

const JOINS_PER_MINUTE = 4;
const LEASE_MS = 3_000;

const codeOf = (frame: Frame): string | undefined => (frame['error'] as { code?: string } | undefined)?.code;

async function metric(node: NodeProcess, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`platform_kit_${name} `));
  return Number(line?.split(' ')[1]);
}

describe('rate limits on 3 nodes sharing a real Redis', { skip: skipRedis }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[] = [];
  const sockets: Raw[] = [];
  /** A raw control socket to `node` from the loopback address `from`, closed after the suite. */
  const open = (node: NodeProcess, from: string): Raw => {
    const raw = new Raw(node.url, [], { localAddress: from });
    sockets.push(raw);
    return raw;
  };

  before(async () => {
    redis = await RedisProcess.start();
    const flags = ['--max-joins-per-address-per-minute', String(JOINS_PER_MINUTE), '--max-events-per-second', '0.5', '--lease-ms', String(LEASE_MS), '--grace-ms', '10000'];
    nodes = await Promise.all(['r1', 'r2', 'r3'].map((id) => NodeProcess.start(redis.url, id, flags)));
  });
  after(async () => {
    for (const raw of sockets) raw.close();
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  it('joins from one address spread over 3 nodes are limited as on one: exactly the allowance is admitted, the rest RATE_LIMITED', async () => {
    const tries = Array.from({ length: 12 }, (_, i) => open(nodes[i % 3]!, '127.0.0.20'));
    const closes = tries.map((raw) => new Promise<number>((resolve) => raw.ws.once('close', (code) => resolve(code))));
    const answers = await Promise.all(tries.map((raw) => raw.join({ shardName: 'spread' })));
    // Per node, each would admit 4 (12 in all); shared, 4 in all.
    assert.equal(answers.filter((f) => f.type === 'joined').length, JOINS_PER_MINUTE, JSON.stringify(answers.map((f) => f.type)));
    const refused = answers.filter((f) => f.type !== 'joined');
    assert.equal(refused.length, 12 - JOINS_PER_MINUTE);
    assert.ok(
      refused.every((f) => f.type === 'error' && codeOf(f) === 'RATE_LIMITED'),
      JSON.stringify(refused),
    );
    assert.deepEqual(await Promise.all(closes.filter((_, i) => answers[i]!.type !== 'joined')), Array<number>(12 - JOINS_PER_MINUTE).fill(4001));
    const counted = await Promise.all(nodes.map((node) => metric(node, 'joins_rate_limited')));
    assert.equal(
      counted.reduce((sum, n) => sum + n, 0),
      12 - JOINS_PER_MINUTE,
    );
    // Another address has its own allowance, on any node.
    assert.equal((await open(nodes[1]!, '127.0.0.21').join({ shardName: 'spread' })).type, 'joined');
  });

  it('a client that floods events, loses its socket and resumes on another node is still limited: the bucket is not refilled', async () => {
    const sender = open(nodes[0]!, '127.0.0.22');
    const receiver = open(nodes[1]!, '127.0.0.23');
    const joined = await sender.join({ shardName: 'flood' });
    await receiver.join({ shardName: 'flood' });
    // 0.5 events/s: a bucket of one event, two seconds to refill (far longer than a resume takes).
    assert.deepEqual(await flood(sender, 1, 5), [2, 3, 4, 5]);
    assert.equal((await receiver.next((f) => f.type === 'event'))['seq'], 1);

    sender.ws.terminate(); // killed, no goodbye
    const again = open(nodes[2]!, '127.0.0.22');
    const resumed = await again.join({ shardName: 'flood', resume: { clientId: joined['clientId'], resumeToken: joined['resumeToken'] } });
    assert.deepEqual([resumed.type, resumed['resumed'], resumed['clientId']], ['joined', true, joined['clientId']]);
    // A fresh bucket would admit one; the saved one, still empty, admits none.
    assert.deepEqual(await flood(again, 6, 3), [6, 7, 8]);
    assert.deepEqual(
      receiver.frames.filter((f) => f.type === 'event'),
      [],
    );
  });

  it('Redis down: the join limit fails open (joins answer UNAVAILABLE, never RATE_LIMITED), limited clients stay limited, nothing crashes; back up, the limit holds again', async () => {
    const sender = open(nodes[1]!, '127.0.0.26');
    await sender.join({ shardName: 'outage' });
    await redis.kill();
    try {
      // More joins than the allowance: each is admitted by the limit and refused by the store it needs.
      const answers = await Promise.all(Array.from({ length: JOINS_PER_MINUTE + 2 }, (_, i) => open(nodes[i % 3]!, '127.0.0.25').join({ shardName: 'outage' })));
      assert.deepEqual(
        answers.map((f) => codeOf(f)),
        Array<string>(JOINS_PER_MINUTE + 2).fill('UNAVAILABLE'),
      );
      // The buckets are counted on the node, not in Redis: still enforced; saving them fails quietly.
      assert.deepEqual(await flood(sender, 1, 4), [2, 3, 4]);
      for (const node of nodes) assert.equal((await fetch(`${node.url}/health`)).status, 200);
      assert.equal(sender.ws.readyState, sender.ws.OPEN);
    } finally {
      await redis.restart();
    }
    // Back (empty): every node joins again once it has reconnected (each try from its own address)…
    let next = 100;
    for (const node of nodes) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const answer = await open(node, `127.0.0.${next++}`).join({ shardName: 'after' });
        if (answer.type === 'joined') break;
        assert.equal(codeOf(answer), 'UNAVAILABLE');
        if (Date.now() > deadline) assert.fail(`no join on ${node.id} within 15 s of the Redis restart`);
        await sleep(200);
      }
    }
    // …and the allowance is one count for all nodes again.
    const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => open(nodes[i % 3]!, '127.0.0.27').join({ shardName: 'after' })));
    assert.deepEqual(answers.map((f) => f.type).sort(), [...Array<string>(JOINS_PER_MINUTE).fill('joined'), ...Array<string>(9 - JOINS_PER_MINUTE).fill('error')].sort());
    assert.ok(answers.filter((f) => f.type === 'error').every((f) => codeOf(f) === 'RATE_LIMITED'));
  });

  it('kill -9 of a node: its limited client resumes on another node with the bucket it saved while limited', async () => {
    const sender = open(nodes[2]!, '127.0.0.24');
    const joined = await sender.join({ shardName: 'crash' });
    assert.deepEqual(await flood(sender, 1, 5), [2, 3, 4, 5]);
    // The first refusal saved the bucket with the session in Redis: one write, sent at once (a node
    // killed within that millisecond would not have sent it, and its client would get one burst back).
    const { Redis } = await import('ioredis');
    const peek = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await peek.connect();
      const saved = async (): Promise<boolean> => (await peek.hexists(`pk:{${PROJECT}}:rl:crash`, joined['clientId'] as string)) === 1;
      for (let i = 0; i < 100 && !(await saved()); i++) await sleep(20);
      assert.ok(await saved(), 'the limited bucket saved in Redis');
    } finally {
      peek.disconnect();
    }
    await nodes[2]!.kill9();
    const again = open(nodes[0]!, '127.0.0.24');
    const resumed = await again.join({ shardName: 'crash', resume: { clientId: joined['clientId'], resumeToken: joined['resumeToken'] } });
    assert.deepEqual([resumed.type, resumed['resumed'], resumed['clientId']], ['joined', true, joined['clientId']]);
    assert.deepEqual(await flood(again, 6, 3), [6, 7, 8]);
  });
});
