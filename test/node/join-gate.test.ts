// The join gate (signaling/control/join-gate.ts): joins in turns, at most JOINS_IN_PROGRESS at once,
// the rest in arrival order, refused past JOINS_WAITING; and, against a real server, that a join
// waiting its turn is not closed by the join timeout while one that hangs gives its turn back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJoinGate, JOINS_IN_PROGRESS, type ReleaseTurn } from '../../signaling/control/join-gate.js';
import { createMemoryStore } from '../../signaling/store/memory-store.js';
import type { ShardStore } from '../../signaling/store/store.js';
import { bindStore, PROJECT, Raw, startServer, waitFor } from './signaling-support.js';

describe('join gate', () => {
  it('runs at most its limit at once, the rest in arrival order, and refuses past the queue', async () => {
    const gate = createJoinGate(2, 3);
    const order: number[] = [];
    const releases = new Map<number, ReleaseTurn>();
    const enter = (n: number): void => {
      const turn = gate.enter();
      assert.ok(turn, `join ${n} may wait`);
      void turn.then((release) => {
        order.push(n);
        releases.set(n, release);
      });
    };
    for (let n = 1; n <= 5; n++) enter(n);
    assert.equal(gate.enter(), null, 'a sixth is refused: two run and three wait');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [1, 2]);
    assert.equal(gate.running, 2);
    assert.equal(gate.waiting, 3);
    // A release twice (a close and the join's own end) gives one turn, not two.
    releases.get(1)!();
    releases.get(1)!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [1, 2, 3]);
    assert.equal(gate.running, 2);
    releases.get(2)!();
    releases.get(3)!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [1, 2, 3, 4, 5]);
    releases.get(4)!();
    releases.get(5)!();
    assert.equal(gate.running, 0);
    assert.equal(gate.waiting, 0);
    // Empty again: a join goes at once.
    const turn = gate.enter();
    assert.ok(turn);
    (await turn)();
  });

  it('a join whose store hangs gives its turn back when the join timeout closes it; the joins behind it go', async () => {
    // A store whose first JOINS_IN_PROGRESS joins never settle (a custom store with no timeout of its
    // own), then answers as the memory store: the joins behind them wait their turn (not timed out
    // meanwhile), get it when the hung ones are closed, and join.
    const memory = createMemoryStore();
    let hung = 0;
    const store: ShardStore = {
      ...bindStore(memory),
      join: (...args: Parameters<ShardStore['join']>) => (hung++ < JOINS_IN_PROGRESS ? new Promise<never>(() => undefined) : memory.join(...args)),
    };
    const server = await startServer({
      store,
      heartbeatIntervalMs: 100,
      joinTimeoutMs: 1_000,
      limits: { maxUnjoinedSocketsPerAddress: 1_000, maxJoinsPerAddressPerMinute: 100_000 },
    });
    const stuck: Raw[] = [];
    try {
      for (let n = 0; n < JOINS_IN_PROGRESS; n++) {
        const raw = new Raw(server.url);
        await raw.opened;
        raw.send({ type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'browser' });
        stuck.push(raw);
      }
      await waitFor(() => hung >= JOINS_IN_PROGRESS, 'every turn taken by a hung join', 10_000);
      const behind = new Raw(server.url);
      const joined = behind.join({ shardName: 'gate' });
      // The hung joins are closed by the join timeout (4008), which gives their turns back.
      await waitFor(() => stuck.every((raw) => raw.closed), 'the hung joins to be closed', 20_000);
      // 4008, or 1006 where the client did not answer the close within the server's linger (a busy machine).
      assert.ok(
        stuck.every((raw) => raw.closeCode === 4008 || raw.closeCode === 1006),
        JSON.stringify(stuck.map((raw) => raw.closeCode)),
      );
      const frame = await joined;
      assert.equal(typeof frame['clientId'], 'string');
      assert.equal(behind.closed, false, 'the join that waited its turn was not timed out');
      behind.close();
    } finally {
      for (const raw of stuck) raw.close();
      await server.close();
      await memory.close();
    }
  });
});
