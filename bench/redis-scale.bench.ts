/**
 * Redis scale-out: the same load against 1, 2 and 3 signaling nodes sharing
 * one redis-server (each node its own process, `signaling/bin.ts --redis`),
 * from raw Node WebSocket clients in this process:
 * - joins/s: 3,000 clients join automatically placed shards of 10, 200 in
 *   flight, spread round-robin over the nodes;
 * - relayed events/s: 100 clients in 10 shards of 10 (each shard spans every
 *   node), each sends 300 events to its shard; deliveries per second until
 *   the last one arrives;
 * - relay latency: a ping-pong between two members on one node and between
 *   two members on different nodes (3 nodes), one way = round trip / 2.
 * Ratios are against 1 node. Everything runs on this machine, clients
 * included: with few cores the nodes compete with Redis and the clients, so
 * the ratios show the cost of the Redis hop as much as any gain.
 * Targets: none hard; reported only (cross-node latency ≤ 2 ms median is flagged).
 */
import { WebSocket } from 'ws';
import { BENCH_LIMIT_ARGS, NodeProcess, RedisProcess, skipRedis } from '../test/node/redis-support.js';
import { PROJECT, TOKEN } from '../test/node/signaling-support.js';
import { ms, ratio, stats, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = 'Redis scale-out: joins/s and relayed events/s on 1, 2 and 3 nodes; cross-node against same-node relay latency.';

const JOIN_CLIENTS = 3_000;
const IN_FLIGHT = 200;
const RELAY_CLIENTS = 100;
const EVENTS_PER_CLIENT = 300;
const ROUND_TRIPS = 500;

interface Cluster {
  readonly redis: RedisProcess;
  readonly nodes: NodeProcess[];
}

async function startCluster(count: number): Promise<Cluster> {
  const redis = await RedisProcess.start();
  // Every client comes from 127.0.0.1: the join limit per address stays on (each join pays for
  // its check in Redis) with a burst above the bench's joins.
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => NodeProcess.start(redis.url, `b${i + 1}`, BENCH_LIMIT_ARGS)));
  return { redis, nodes };
}
async function stopCluster(cluster: Cluster): Promise<void> {
  await Promise.all(cluster.nodes.map((node) => node.stop()));
  await cluster.redis.stop();
}

const control = (node: NodeProcess): string => node.url.replace(/^http/, 'ws') + '/dispatch';

/** Opens a socket and joins; resolves with the socket and its joined frame. */
function join(node: NodeProcess, extra: Record<string, unknown>): Promise<{ socket: WebSocket; joined: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(control(node), { perMessageDeflate: false });
    socket.once('open', () => socket.send(JSON.stringify({ type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'backend', projectToken: TOKEN, ...extra })));
    const onMessage = (data: unknown): void => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (frame['type'] === 'joined') {
        socket.off('message', onMessage);
        resolve({ socket, joined: frame });
      } else if (frame['type'] === 'error') reject(new Error(JSON.stringify(frame)));
    };
    socket.on('message', onMessage);
    socket.once('error', reject);
  });
}

async function joinsPerSecond(cluster: Cluster): Promise<number> {
  const sockets: WebSocket[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < JOIN_CLIENTS) {
        const i = next++;
        const { socket } = await join(cluster.nodes[i % cluster.nodes.length]!, { maxConnectionsPerShard: 10 });
        sockets.push(socket);
      }
    }),
  );
  const elapsed = performance.now() - started;
  for (const socket of sockets) socket.terminate();
  return JOIN_CLIENTS / (elapsed / 1000);
}

async function eventsPerSecond(cluster: Cluster): Promise<number> {
  const members = await Promise.all(Array.from({ length: RELAY_CLIENTS }, (_, i) => join(cluster.nodes[i % cluster.nodes.length]!, { shardName: `relay-${Math.floor(i / 10)}` })));
  // Every member has heard of the other nine (presence) before the clock starts.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const expected = RELAY_CLIENTS * EVENTS_PER_CLIENT * 9;
  let received = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  for (const { socket } of members) {
    socket.on('message', (data) => {
      if (String(data).startsWith('{"type":"event"')) {
        received++;
        if (received === expected) done();
      }
    });
  }
  const started = performance.now();
  const payload = { x: 1, text: 'a relayed event of about sixty bytes' };
  // Sent in slices, so the senders' own buffers do not dominate.
  for (let seq = 1; seq <= EVENTS_PER_CLIENT; seq += 10) {
    for (const { socket } of members) {
      for (let k = seq; k < seq + 10 && k <= EVENTS_PER_CLIENT; k++) socket.send(JSON.stringify({ type: 'emit', seq: k, name: 'e', payload, ts: Date.now() }));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 60_000))]);
  const elapsed = performance.now() - started;
  for (const { socket } of members) socket.terminate();
  return received / (elapsed / 1000);
}

/** One-way relay latency samples (ms) between a member on `a` and one on `b`. */
async function pingPong(a: NodeProcess, b: NodeProcess, shardName: string): Promise<number[]> {
  const first = await join(a, { shardName });
  const second = await join(b, { shardName });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const samples: number[] = [];
  let seqA = 0;
  let seqB = 0;
  second.socket.on('message', (data) => {
    if (String(data).startsWith('{"type":"event"')) second.socket.send(JSON.stringify({ type: 'emit', seq: ++seqB, name: 'pong', payload: {}, ts: 0 }));
  });
  for (let i = 0; i < ROUND_TRIPS + 50; i++) {
    const sent = performance.now();
    await new Promise<void>((resolve) => {
      const onMessage = (data: unknown): void => {
        if (String(data).startsWith('{"type":"event"')) {
          first.socket.off('message', onMessage);
          resolve();
        }
      };
      first.socket.on('message', onMessage);
      first.socket.send(JSON.stringify({ type: 'emit', seq: ++seqA, name: 'ping', payload: {}, ts: 0 }));
    });
    if (i >= 50) samples.push((performance.now() - sent) / 2);
  }
  first.socket.terminate();
  second.socket.terminate();
  return samples;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  if (skipRedis) {
    context.log(`skipped: ${skipRedis}`);
    return { targets: [] };
  }
  const results: { nodes: number; joins: number; events: number }[] = [];
  let same: number[] = [];
  let cross: number[] = [];
  for (const count of [1, 2, 3]) {
    const cluster = await startCluster(count);
    try {
      const joins = await joinsPerSecond(cluster);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const events = await eventsPerSecond(cluster);
      results.push({ nodes: count, joins, events });
      if (count === 3) {
        // Alternate blocks so drift hits both alike.
        for (let block = 0; block < 4; block++) {
          same = same.concat(await pingPong(cluster.nodes[0]!, cluster.nodes[0]!, `same-${block}`));
          cross = cross.concat(await pingPong(cluster.nodes[0]!, cluster.nodes[1]!, `cross-${block}`));
        }
      }
    } finally {
      await stopCluster(cluster);
    }
  }
  const base = results[0]!;
  context.log(`${JOIN_CLIENTS} joins (${IN_FLIGHT} in flight, shards of 10); ${RELAY_CLIENTS} clients × ${EVENTS_PER_CLIENT} events in shards of 10 spanning the nodes.\n`);
  context.log(
    table(
      ['nodes', 'joins/s', 'ratio', 'relayed deliveries/s', 'ratio'],
      results.map((row) => [String(row.nodes), row.joins.toFixed(0), ratio(row.joins / base.joins), row.events.toFixed(0), ratio(row.events / base.events)]),
    ),
  );
  const s = stats(same);
  const c = stats(cross);
  context.log('');
  context.log(
    table(
      ['relay path (3 nodes)', 'median', 'p90', 'p99', 'samples'],
      [
        ['same node', ms(s.median), ms(s.p90), ms(s.p99), String(s.count)],
        ['across nodes (Redis pub/sub)', ms(c.median), ms(c.p90), ms(c.p99), String(c.count)],
      ],
    ),
  );
  return {
    targets: [{ name: 'cross-node relay one-way median ≤ 2 ms', pass: c.median <= 2, detail: `${ms(c.median)} (same node ${ms(s.median)}, ${ratio(c.median / s.median)})` }],
    data: { results, same, cross },
  };
}
