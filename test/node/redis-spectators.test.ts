// Spectators on many nodes (issue 27), on real components: one redis-server
// and two signaling nodes, each its own process. Players on node 1, and a
// spectator on node 2 hears their broadcasts in order and their presence
// through Redis; the spectator count is summed over the nodes (both nodes'
// players and spectators hear the total), maxSpectatorsPerShard holds over
// the total, a seat freed on node 1 is told to spectators on node 2, and
// taking it goes through the shared capacity check (the race's loser gets
// SHARD_FULL). A spectator that emits is refused on any node. And a member's
// here/away state, kept in its Redis record, read and changed across nodes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DispatchSession } from '../../guest/dispatch/session.js';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { clientPool, codeOf, type Raw, waitFor } from './signaling-support.js';

const LEASE_MS = 3_000;
const MAX_SPECTATORS = 3;

describe('spectators on 2 nodes sharing a real Redis', { skip: skipRedis }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[] = [];
  const pool = clientPool();
  const open = (node: NodeProcess): DispatchSession => pool.open(node.url);
  const raw = (node: NodeProcess): Raw => pool.raw(node.url);

  before(async () => {
    redis = await RedisProcess.start();
    const flags = ['--lease-ms', String(LEASE_MS), '--max-spectators-per-shard', String(MAX_SPECTATORS)];
    nodes = await Promise.all(['s1', 's2'].map((id) => NodeProcess.start(redis.url, id, flags)));
  });
  after(async () => {
    await pool.close();
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  it('a spectator on another node than the players hears every broadcast in order, the players, and the count summed over the nodes', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const alice = open(n1);
    const bob = open(n1);
    await alice.connect({ shardName: 'final', maxConnectionsPerShard: 2 });
    await bob.connect({ shardName: 'final', maxConnectionsPerShard: 2 });

    const far = open(n2);
    const heard: number[] = [];
    far.on('move', (payload) => heard.push(payload['n'] as number));
    const info = await far.connect({ shardName: 'final', maxConnectionsPerShard: 2, spectateWhenFull: true });
    assert.equal(info.spectator, true);
    assert.deepEqual(new Set(far.connectedClients.map((c) => c.clientId)), new Set([alice.connectionInfo!.clientId, bob.connectionInfo!.clientId]));
    // Node 1 holds no spectator of this shard; its players hear node 2's count.
    await waitFor(() => alice.audience.count === 1, 'node 1 players told of the spectator on node 2', 10_000);

    for (let n = 1; n <= 100; n++) void (n % 2 === 0 ? alice : bob).emitEvent('move', { n });
    await waitFor(() => heard.length === 100, 'every broadcast at the far spectator', 15_000);
    // Each sender's events in its order; both senders' interleave as the relay published them.
    assert.deepEqual(
      heard.filter((n) => n % 2 === 0),
      Array.from({ length: 50 }, (_, i) => 2 * (i + 1)),
    );
    assert.deepEqual(
      heard.filter((n) => n % 2 === 1),
      Array.from({ length: 50 }, (_, i) => 2 * i + 1),
    );

    // A spectator on node 1 too: both nodes' members hear the total.
    const near = open(n1);
    await near.connect({ shardName: 'final', spectator: true });
    await waitFor(() => alice.audience.count === 2 && far.audience.count === 2 && near.audience.count === 2, 'the total of 2 everywhere', 10_000);

    // A presence change on node 1 reaches the spectator on node 2.
    await bob.setUserInfo({ name: 'Bob' });
    await waitFor(() => far.connectedClients.some((c) => c.userInfo['name'] === 'Bob'), 'the far spectator sees the update', 10_000);

    // Refused on node 2 as on node 1, and nothing reaches the players.
    assert.equal(await codeOf(far.emitEvent('move', { n: -1 })), 'FORBIDDEN');
    const spy = raw(n2);
    await spy.join({ shardName: 'final', spectator: true });
    spy.send({ type: 'emit', seq: 1, name: 'move', payload: { n: -2 }, ts: Date.now() });
    assert.equal(((await spy.next((f) => f.type === 'error'))['error'] as { code: string }).code, 'FORBIDDEN');

    // maxSpectatorsPerShard over the total (3 now: far, near, spy): a fourth is refused on either node.
    await waitFor(() => alice.audience.count === 3, 'the count of 3 at node 1', 10_000);
    for (const node of [n1, n2]) {
      const extra = raw(node);
      await waitFor(() => far.audience.count === 3, 'node 2 knows the total', 10_000);
      const answer = await extra.join({ shardName: 'final', spectator: true });
      assert.equal((answer['error'] as { code: string } | undefined)?.code, 'SHARD_FULL', `on ${node.id}: ${JSON.stringify(answer)}`);
    }
    spy.close();
    await waitFor(() => alice.audience.count === 2, 'the count back to 2', 10_000);
  });

  it('a node that comes to a shard after its spectators learns their count from their node\u2019s refresh', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const host = open(n1);
    await host.connect({ shardName: 'late-node' });
    const watcher = open(n1);
    await watcher.connect({ shardName: 'late-node', spectator: true });
    await waitFor(() => host.audience.count === 1, 'node 1 counts its spectator');
    // Node 2 holds nothing of this shard until now: it heard no count when the spectator came.
    const late = open(n2);
    await late.connect({ shardName: 'late-node' });
    await waitFor(() => late.audience.count === 1, 'node 2 learns the count (within one refresh, 5 s)', 15_000);
  });

  it('here and away across nodes: the state is in the Redis record (a newcomer elsewhere reads it) and its changes reach every node', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const watcher = open(n1);
    await watcher.connect({ shardName: 'states' });
    const preloaded = open(n2);
    preloaded.setPresenceState('away');
    const { clientId } = await preloaded.connect({ shardName: 'states' });
    const stateAt = (s: DispatchSession): string | undefined => s.connectedClients.find((c) => c.clientId === clientId)?.state;
    await waitFor(() => stateAt(watcher) === 'away', 'node 1 sees it away', 10_000);
    // Read from Redis by a join on node 1 (not from any presence frame).
    const newcomer = raw(n1);
    const joined = await newcomer.join({ shardName: 'states' });
    assert.equal((joined['members'] as { clientId: string; state: string }[]).find((m) => m.clientId === clientId)?.state, 'away');
    preloaded.setPresenceState('here');
    await waitFor(() => stateAt(watcher) === 'here', 'node 1 sees it here', 10_000);
    const later = raw(n2);
    const again = await later.join({ shardName: 'states' });
    assert.equal((again['members'] as { clientId: string; state: string }[]).find((m) => m.clientId === clientId)?.state, 'here');
  });

  it('a seat freed on node 1 is told to spectators on node 2; one takes it through the shared capacity check, the other gets SHARD_FULL', async () => {
    const [n1, n2] = nodes as [NodeProcess, NodeProcess];
    const keeper = open(n1);
    const leaver = open(n1);
    await keeper.connect({ shardName: 'seats', maxConnectionsPerShard: 2 });
    await leaver.connect({ shardName: 'seats', maxConnectionsPerShard: 2 });
    const one = open(n2);
    const two = open(n1);
    await one.connect({ shardName: 'seats', maxConnectionsPerShard: 2, spectateWhenFull: true });
    await two.connect({ shardName: 'seats', maxConnectionsPerShard: 2, spectateWhenFull: true });
    let told = 0;
    one.audience.onSeat(() => told++);
    await leaver.disconnect();
    await waitFor(() => told >= 1, 'the spectator on node 2 told of the seat', 10_000);
    const seated = await one.takeSeat();
    assert.equal(seated.spectator, undefined);
    assert.equal(await codeOf(two.takeSeat()), 'SHARD_FULL');
    await waitFor(() => keeper.connectedClients.some((c) => c.clientId === seated.clientId), 'node 1 lists the player seated on node 2', 10_000);
    const got: string[] = [];
    keeper.on('hi', (_payload, meta) => got.push(meta.clientId));
    await one.emitEvent('hi', {});
    await waitFor(() => got.length === 1, 'the seated player\u2019s event crosses nodes', 10_000);
  });
});
