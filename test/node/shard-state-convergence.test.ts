// Issue 26's property: 8 members change one shard state concurrently, with
// members dropping and rejoining, over random schedules; afterwards every copy
// is equal, and equal to the server's (what a member joining after the last
// change holds at connect()). The schedules are seeded: a failure prints its
// seed, and SHARD_STATE_SEED=<seed> replays that schedule (the network's own
// interleaving still varies between runs, which is what the property is about).
//
// "Within 1 s of the last change" is measured, not asserted: on a shared
// machine (TESTING.md, "Tests that hold on a busy machine") a wall-clock bound
// says how busy the machine was. Convergence is waited for with a generous
// deadline; the time it took is printed as a diagnostic.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type * as Y from 'yjs';
import { shardState, type ShardState } from '../../signaling/index.js';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { backend, sleep, startServer } from './signaling-support.js';
import type { SignalingServer } from '../../signaling/index.js';

const MEMBERS = 8;
const KEYS = 12;
const CONVERGE_DEADLINE_MS = 60_000;

/** mulberry32: a small seeded generator, so a schedule can be replayed from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One member: its client and state, or null while dropped. */
interface Member {
  dispatch: ReturnType<typeof backend>;
  state: ShardState;
}

/** What a copy holds, comparably: the map's entries sorted by key (each copy lists them in its own order of arrival) and the log, as JSON. */
function contentOf(doc: Y.Doc): string {
  const map = [...doc.getMap('state').entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ map, log: doc.getArray('log').toJSON() });
}

async function joinMember(url: string, room: string): Promise<Member> {
  const dispatch = backend(url, { reconnectInitialDelayMs: 50 });
  const state = shardState(dispatch);
  await dispatch.connect({ shardName: room });
  await state.whenSynced();
  return { dispatch, state };
}

async function dropMember(member: Member): Promise<void> {
  member.state.close();
  await member.dispatch.disconnect();
}

/** The seeds of one run: SHARD_STATE_SEED replays one, else fresh ones. */
function seedsForRun(count: number): number[] {
  const given = process.env['SHARD_STATE_SEED'];
  if (given !== undefined && given !== '') return [Number(given)];
  return Array.from({ length: count }, () => Math.floor(Math.random() * 2 ** 31));
}

/**
 * Runs one schedule of `steps` random operations on `urls` (member i uses
 * urls[i % urls.length]): a set, a delete, a push to the log (trimmed to 20),
 * a drop, a rejoin, or a short pause; several run at once. Then waits for
 * every copy to be equal, and compares with a member that joins after.
 */
async function runSchedule(t: TestContext, urls: readonly string[], room: string, seed: number, steps: number): Promise<void> {
  const random = seeded(seed);
  const members: (Member | null)[] = [];
  /** Slots whose rejoin is under way: not rejoined twice. */
  const rejoining = new Set<number>();
  const failure = (what: string): string => `${what} (seed ${seed}: SHARD_STATE_SEED=${seed} replays this schedule)`;
  const pending = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>): void => {
    const tracked = promise.finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  try {
    for (let i = 0; i < MEMBERS; i++) members.push(await joinMember(urls[i % urls.length]!, room));
    // A change rejected by a bound (none is near here) would be a failure of its own: every error is kept.
    const errors: string[] = [];
    const watch = (member: Member): void => void member.state.onError((error) => errors.push(`${error.code}: ${error.message}`));
    members.forEach((member) => member && watch(member));
    let lastChangeAt = performance.now();
    for (let step = 0; step < steps; step++) {
      const index = Math.floor(random() * MEMBERS);
      const member = members[index];
      const roll = random();
      if (member === null || member === undefined) {
        // A dropped member rejoins (a new client: a new client id, the state from the server's copy).
        if (roll < 0.5 && !rejoining.has(index)) {
          rejoining.add(index);
          track(
            joinMember(urls[index % urls.length]!, room).then((joined) => {
              members[index] = joined;
              rejoining.delete(index);
              watch(joined);
            }),
          );
        }
      } else if (roll < 0.4) {
        member.state.map<number>().set(`k${Math.floor(random() * KEYS)}`, Math.floor(random() * 1_000));
        lastChangeAt = performance.now();
      } else if (roll < 0.55) {
        member.state.map<number>().delete(`k${Math.floor(random() * KEYS)}`);
        lastChangeAt = performance.now();
      } else if (roll < 0.8) {
        const log = member.state.doc.getArray<string>('log');
        member.state.doc.transact(() => {
          log.push([`${index}:${step}`]);
          if (log.length > 20) log.delete(0, log.length - 20);
        });
        lastChangeAt = performance.now();
      } else if (roll < 0.9) {
        // Drops right after its own change sometimes: an update in flight when the member leaves
        // may be lost, but then for every copy alike.
        members[index] = null;
        track(dropMember(member));
      }
      // Operations overlap: most steps do not wait; some yield for up to 20 ms.
      if (random() < 0.3) await sleep(Math.floor(random() * 20));
    }
    await Promise.all([...pending]);
    const present = members.filter((member): member is Member => member !== null && member !== undefined);
    // Convergence: every present copy equal, waited for with a generous deadline.
    const deadline = performance.now() + CONVERGE_DEADLINE_MS;
    let contents = present.map((member) => contentOf(member.state.doc));
    while (new Set(contents).size > 1 && performance.now() < deadline) {
      await sleep(10);
      contents = present.map((member) => contentOf(member.state.doc));
    }
    const convergedAfterMs = performance.now() - lastChangeAt;
    assert.equal(
      new Set(contents).size,
      1,
      failure(`${present.length} copies still differ ${CONVERGE_DEADLINE_MS} ms after the last change:\n${[...new Set(contents)].join('\n')}`),
    );
    // The server's copy: a member joining now holds it whole at connect().
    const late = await joinMember(urls[0]!, room);
    try {
      assert.equal(contentOf(late.state.doc), contents[0], failure("the server's copy (a late joiner's) differs from the members'"));
    } finally {
      await dropMember(late);
    }
    assert.deepEqual(errors, [], failure('a member heard errors'));
    t.diagnostic(`seed ${seed}: ${steps} steps, ${present.length} members at the end, every copy equal ${convergedAfterMs.toFixed(0)} ms after the last change`);
  } finally {
    await Promise.allSettled([...pending]);
    await Promise.allSettled(members.filter((member): member is Member => member !== null && member !== undefined).map(dropMember));
  }
}

describe('shard state converges: 8 members, concurrent changes, drops and rejoins, random schedules', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer({ limits: { maxEventsPerSecond: 10_000 } });
  });
  after(async () => {
    await server.close();
  });

  for (const seed of seedsForRun(3)) {
    it(`one node, seed ${seed}`, async (t) => {
      await runSchedule(t, [server.url], `converge-${seed}`, seed, 150);
    });
  }
});

describe('shard state converges across two nodes sharing a real Redis', { skip: skipRedis }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[];
  before(async () => {
    redis = await RedisProcess.start();
    nodes = await Promise.all(['c1', 'c2'].map((id) => NodeProcess.start(redis.url, id, ['--max-joins-per-address-per-minute', '100000'])));
  });
  after(async () => {
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await redis?.stop();
  });

  for (const seed of seedsForRun(1)) {
    it(`members split over two nodes, seed ${seed}`, async (t) => {
      await runSchedule(
        t,
        nodes.map((node) => node.url),
        `converge-redis-${seed}`,
        seed,
        100,
      );
    });
  }
});
