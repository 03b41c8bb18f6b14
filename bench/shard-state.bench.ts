/**
 * Shard state (issue 26): how long a late joiner waits for a shard's whole
 * state, and what `connect({ history })` costs the relay path.
 *
 * Late join: 7 members (backend clients, so every byte goes through the
 * server: no mesh to help) hold a shard whose state is 100 cells of 1,000
 * characters (≈ 100 KB); an 8th attaches its state and connects; the time is
 * from `connect()` called to `connect()` resolved, when it holds the whole
 * state (checked each time). On one node (memory store) and across two nodes
 * sharing a real redis-server (the members on the first, the joiner on the
 * second). Baseline in the same run: the same join with no state attached
 * (what a join costs anyway). Target (the issue's): p50 ≤ 300 ms.
 *
 * History: one member broadcasts events of 200 bytes to 7 others as fast as
 * the relay takes them, with the server keeping the last 100 (`historyEvents`
 * 100, the default) and keeping none (0), in turns; the figure is the time
 * until every receiver has every event. The ratio is what history costs.
 */
import { createSignalingServer, shardState, type SignalingServer } from '../signaling/index.js';
import { RedisProcess, skipRedis, SHARED_KEY } from '../test/node/redis-support.js';
import { backend, PROJECT, TOKEN } from '../test/node/signaling-support.js';
import { ms, ratio, stats, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description =
  'Shard state: a late joiner holds 100 KB of state when connect() resolves (8 members, one node and two Redis nodes), p50 ≤ 300 ms; the cost of history on the relay.';

const TARGET_P50_MS = 300;
const CELLS = 100;
const CELL = 'x'.repeat(1_000);

type Client = ReturnType<typeof backend>;

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function server(extra: Record<string, unknown> = {}): Promise<SignalingServer> {
  const made = createSignalingServer({ port: 0, host: '127.0.0.1', projects: { [PROJECT]: TOKEN }, secretKey: SHARED_KEY, ...extra });
  await made.ready;
  return made;
}

/** Seven members of `shardName` on `url`, holding a state of CELLS cells. */
async function seven(url: string, shardName: string): Promise<Client[]> {
  const members = Array.from({ length: 7 }, () => backend(url));
  const states = members.map((member) => shardState(member));
  await Promise.all(members.map((member) => member.connect({ shardName })));
  const board = states[0]!.map<string>('board');
  for (let index = 0; index < CELLS; index++) board.set(`cell-${index}`, CELL);
  await until(() => states.every((state) => state.map('board').entries().length === CELLS), 'every member to hold the state');
  return members;
}

/** One late join: ms from connect() to resolved, with the whole state held then (or no state attached). */
async function lateJoin(url: string, shardName: string, withState: boolean): Promise<number> {
  const late = backend(url);
  const state = withState ? shardState(late) : null;
  const started = performance.now();
  await late.connect({ shardName });
  const elapsed = performance.now() - started;
  if (state && state.map('board').entries().length !== CELLS) throw new Error('the late joiner did not hold the whole state at connect()');
  await late.disconnect();
  return elapsed;
}

async function joins(context: BenchContext, url: string, shardName: string): Promise<{ state: number[]; plain: number[] }> {
  const samples = Math.max(10, Math.min(context.options.samples, 40));
  const state: number[] = [];
  const plain: number[] = [];
  for (let index = 0; index < 3; index++) await lateJoin(url, shardName, true);
  for (let index = 0; index < samples; index++) {
    // In turns, so a loaded moment hits both alike.
    state.push(await lateJoin(url, shardName, true));
    plain.push(await lateJoin(url, shardName, false));
  }
  return { state, plain };
}

/** ms until 7 receivers have `count` broadcasts from one sender. */
async function burst(url: string, shardName: string, count: number): Promise<number> {
  const members = Array.from({ length: 8 }, () => backend(url));
  await Promise.all(members.map((member) => member.connect({ shardName })));
  let received = 0;
  for (const member of members.slice(1)) member.on('tick', () => received++);
  const payload = { text: 'y'.repeat(180) };
  const started = performance.now();
  for (let index = 0; index < count; index++) await members[0]!.emitEvent('tick', payload);
  await until(() => received >= count * 7, 'every receiver to have every event');
  const elapsed = performance.now() - started;
  await Promise.all(members.map((member) => member.disconnect()));
  return elapsed;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const targets = [];
  const rows: string[][] = [];
  const data: Record<string, unknown> = {};

  // One node, memory store.
  const single = await server({ limits: { maxEventsPerSecond: 100_000 } });
  try {
    const members = await seven(single.url, 'bench-state');
    const { state, plain } = await joins(context, single.url, 'bench-state');
    await Promise.all(members.map((member) => member.disconnect()));
    const [s, p] = [stats(state), stats(plain)];
    rows.push(
      ['one node: join with 100 KB state', ms(s.median), ms(s.p90), ms(s.max), ratio(s.median / p.median)],
      ['one node: join, no state (baseline)', ms(p.median), ms(p.p90), ms(p.max), '1.00×'],
    );
    targets.push({ name: 'late joiner holds 100 KB at connect(), one node, p50 ≤ 300 ms', pass: s.median <= TARGET_P50_MS, detail: `${ms(s.median)} ms` });
    data['oneNode'] = { state, plain };

    // History on the relay: kept (100) against none (0), in turns on two servers.
    const none = await server({ limits: { maxEventsPerSecond: 100_000, historyEvents: 0 } });
    try {
      const kept: number[] = [];
      const bare: number[] = [];
      for (let round = 0; round < 6; round++) {
        kept.push(await burst(single.url, `hist-${round}`, 1_000));
        bare.push(await burst(none.url, `bare-${round}`, 1_000));
      }
      const [k, b] = [stats(kept), stats(bare)];
      rows.push(
        ['1,000 broadcasts to 7, history 100', ms(k.median), ms(k.p90), ms(k.max), ratio(k.median / b.median)],
        ['1,000 broadcasts to 7, history 0 (baseline)', ms(b.median), ms(b.p90), ms(b.max), '1.00×'],
      );
      data['history'] = { kept, bare };
    } finally {
      await none.close();
    }
  } finally {
    await single.close();
  }

  // Two nodes on one redis-server: members on the first, the joiner on the second.
  if (skipRedis) context.log(`two nodes skipped: ${skipRedis}`);
  else {
    const redis = await RedisProcess.start();
    const nodes: SignalingServer[] = [];
    try {
      nodes.push(await server({ redis: redis.url, nodeId: 'b1' }), await server({ redis: redis.url, nodeId: 'b2' }));
      const members = await seven(nodes[0]!.url, 'bench-redis');
      const { state, plain } = await joins(context, nodes[1]!.url, 'bench-redis');
      await Promise.all(members.map((member) => member.disconnect()));
      const [s, p] = [stats(state), stats(plain)];
      rows.push(
        ['two Redis nodes: join with 100 KB state', ms(s.median), ms(s.p90), ms(s.max), ratio(s.median / p.median)],
        ['two Redis nodes: join, no state (baseline)', ms(p.median), ms(p.p90), ms(p.max), '1.00×'],
      );
      targets.push({ name: 'late joiner holds 100 KB at connect(), two Redis nodes, p50 ≤ 300 ms', pass: s.median <= TARGET_P50_MS, detail: `${ms(s.median)} ms` });
      data['twoNodes'] = { state, plain };
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
      await redis.stop();
    }
  }
  context.log(table(['scenario', 'median ms', 'p90 ms', 'max ms', '× baseline'], rows));
  return { targets, data };
}
