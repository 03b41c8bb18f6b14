// Shard state (issue 26) on a real server process with backend clients (relay only: a backend has
// no mesh) and raw sockets for what no client would send: a late joiner holds the whole state when
// connect() resolves; changes converge; a client that drops and rejoins sends what the server
// lacks; the size limit, the rate limit and hostile updates are refused with codes and the server
// keeps serving; the state ends with its shard; connect({ history }) replays the last events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as Y from 'yjs';
import { createMemoryStore, shardState, type SignalingServer } from '../../signaling/index.js';
import { parseServerMessage, toBase64 } from '../../protocol/signaling.js';
import { backend, PROJECT, Raw, startServer, waitFor } from './signaling-support.js';

type Client = ReturnType<typeof backend>;

async function closeAll(clients: readonly Client[]): Promise<void> {
  await Promise.all(clients.map((client) => client.disconnect()));
}

/** Waits for an asynchronous condition (a store read), up to a generous deadline. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('shard state, one node (memory store)', () => {
  let server: SignalingServer;
  const store = createMemoryStore();
  const logged: string[] = [];
  before(async () => {
    server = await startServer({ store, reconnectGraceMs: 1_000, limits: { maxStateBytes: 512 * 1024 }, log: (line) => logged.push(line) });
  });
  after(() => server.close());

  it('a late joiner holds the whole state (100 KB) when connect() resolves, with no other member reachable but the server', async () => {
    const writer = backend(server);
    const late = backend(server);
    try {
      await writer.connect({ shardName: 'late' });
      const board = shardState(writer).map<string>('board');
      for (let index = 0; index < 100; index++) board.set(`cell-${index}`, 'x'.repeat(1_000));
      const lateState = shardState(late);
      // The writer's frames left in one microtask; give the server the time to keep them (a condition, not a sleep).
      await until(async () => (await store.state!.read(PROJECT, 'late')).bytes > 100_000, 'the server to hold 100 KB', 10_000);
      await late.connect({ shardName: 'late' });
      // No wait: connect() resolved, so the state is here.
      const lateBoard = lateState.map<string>('board');
      assert.equal(lateBoard.entries().length, 100);
      assert.equal(lateBoard.get('cell-42'), 'x'.repeat(1_000));
      await lateState.whenSynced();
    } finally {
      await closeAll([writer, late]);
    }
  });

  it('SyncStep2 is one binary frame right before its JSON frame, which the client door joins to it; a join merges the stored updates once', async () => {
    const writer = backend(server);
    const raw = new Raw(server.url);
    try {
      const state = shardState(writer);
      await writer.connect({ shardName: 'binary' });
      // Three updates, one per task: three stored updates for the join to merge.
      for (let index = 0; index < 3; index++) {
        state.map<number>().set(`k${index}`, index);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      await until(async () => (await store.state!.read(PROJECT, 'binary')).updates.length === 3, 'the server to keep three updates');
      // An empty document's state vector: the joiner lacks everything.
      const joined = await raw.join({ shardName: 'binary', stateVector: toBase64(Y.encodeStateVector(new Y.Doc())) });
      const binary = raw.frames.find((frame) => frame.type === 'binary');
      assert.ok(binary, 'a binary frame came with joined');
      const bytes = binary['bytes'] as Uint8Array;
      const wire = joined['state'] as Record<string, unknown>;
      assert.equal(wire['updateBytes'], bytes.length);
      assert.equal(wire['update'], undefined, 'no base64 copy of the diff in the JSON');
      const doc = new Y.Doc();
      Y.applyUpdate(doc, bytes);
      assert.deepEqual(doc.getMap('state').toJSON(), { k0: 0, k1: 1, k2: 2 });
      // The client's guard: the pair is one reply; a JSON frame without its bytes, with other bytes, or with an update of its own is dropped.
      const parsed = parseServerMessage(joined, bytes);
      assert.ok(parsed?.type === 'joined' && parsed.state?.update === bytes);
      assert.equal(parseServerMessage(joined, null), null);
      assert.equal(parseServerMessage(joined, bytes.subarray(1)), null);
      assert.equal(parseServerMessage({ ...joined, state: { ...wire, update: toBase64(bytes) } }, bytes), null);
      // The merge the join made is kept: the next joiner reads one update.
      await until(async () => (await store.state!.read(PROJECT, 'binary')).updates.length === 1, 'the join to write its merge back');
      const kept = await store.state!.read(PROJECT, 'binary');
      assert.deepEqual(kept.vector, Y.encodeStateVectorFromUpdate(kept.updates[0]!), 'with its state vector');
    } finally {
      raw.close();
      await writer.disconnect();
    }
  });

  it('attached after connect(): whenSynced() resolves after one round trip with the state', async () => {
    const writer = backend(server);
    const reader = backend(server);
    try {
      await writer.connect({ shardName: 'after' });
      shardState(writer).map<number>().set('score', 7);
      await reader.connect({ shardName: 'after' });
      await until(async () => (await store.state!.read(PROJECT, 'after')).updates.length > 0, 'the server to keep the update');
      const state = shardState(reader);
      assert.equal(shardState(reader), state, 'one ShardState per dispatch');
      await state.whenSynced();
      assert.equal(state.map<number>().get('score'), 7);
    } finally {
      await closeAll([writer, reader]);
    }
  });

  it('concurrent changes of four members converge; onChange tells local from remote', async () => {
    const clients = [backend(server), backend(server), backend(server), backend(server)];
    try {
      const states = clients.map((client) => shardState(client));
      await Promise.all(clients.map((client) => client.connect({ shardName: 'converge' })));
      const origins: string[] = [];
      states[0]!.map<number>().onChange((_changed, origin) => origins.push(origin));
      // Every member writes its own keys and the same contested key at once.
      states.forEach((state, index) => {
        const map = state.map<number>();
        for (let round = 0; round < 20; round++) map.set(`m${index}-${round}`, round);
        map.set('contested', index);
      });
      const expectedKeys = 4 * 20 + 1;
      await waitFor(() => states.every((state) => state.map().entries().length === expectedKeys), 'every copy to hold every key', 10_000);
      await waitFor(() => new Set(states.map((state) => state.map().get('contested'))).size === 1, 'the contested key to agree', 10_000);
      const json = states.map((state) => JSON.stringify(state.doc.getMap('state').toJSON(), Object.keys(state.doc.getMap('state').toJSON()).sort()));
      assert.equal(new Set(json).size, 1, 'every copy equal');
      assert.ok(origins.includes('local') && origins.includes('remote'));
      // The store lost nothing: no member was asked to send its state again.
      assert.deepEqual(
        logged.filter((line) => line.includes('lost by the store')),
        [],
      );
    } finally {
      await closeAll(clients);
    }
  });

  it('a member that dropped sends what the server lacks when it is back (SyncStep2 back)', async () => {
    const a = backend(server, { reconnectInitialDelayMs: 50 });
    const b = backend(server);
    try {
      const [stateA, stateB] = [shardState(a), shardState(b)];
      await a.connect({ shardName: 'drop' });
      await b.connect({ shardName: 'drop' });
      a.session.dropSocketForTest();
      // Changed while its socket is down: nothing leaves now.
      stateA.map<string>().set('offline', 'made while away');
      await waitFor(() => stateB.map<string>().get('offline') === 'made while away', 'B to see the change made offline', 10_000);
    } finally {
      await closeAll([a, b]);
    }
  });

  it('the backend reads and writes the state a member sees', async () => {
    const member = backend(server);
    const service = backend(server);
    try {
      const memberState = shardState(member);
      await member.connect({ shardName: 'backend' });
      memberState.map<number>('scores').set('alice', 3);
      const serviceState = shardState(service);
      await service.connect({ shardName: 'backend' });
      const scores = serviceState.map<number>('scores');
      assert.equal(scores.get('alice'), 3);
      scores.set('alice', 4);
      await waitFor(() => memberState.map<number>('scores').get('alice') === 4, 'the member to see the backend’s write');
    } finally {
      await closeAll([member, service]);
    }
  });

  it('refuses a value that is not plain data where it is set (INVALID_VALUE), and a state past its limit (STATE_TOO_LARGE)', async () => {
    const writer = backend(server);
    const late = backend(server);
    try {
      const state = shardState(writer);
      await writer.connect({ shardName: 'limit' });
      const map = state.map();
      assert.throws(() => map.set('bad', JSON.parse('{"__proto__":{"x":1}}')), { code: 'INVALID_VALUE' });
      let deep: unknown = 1;
      for (let level = 0; level < 10_000; level++) deep = [deep];
      assert.throws(() => map.set('deep', deep), { code: 'INVALID_VALUE' });
      const errors: string[] = [];
      state.onError((error) => errors.push(error.code));
      map.set('small', 'kept');
      // Two values of 200 KB: the second passes the server's 512 KiB.
      map.set('big1', 'a'.repeat(200_000));
      await new Promise((resolve) => setTimeout(resolve, 0));
      map.set('big2', 'b'.repeat(200_000));
      await new Promise((resolve) => setTimeout(resolve, 0));
      map.set('big3', 'c'.repeat(200_000));
      await waitFor(() => errors.includes('STATE_TOO_LARGE'), 'STATE_TOO_LARGE', 10_000);
      const lateState = shardState(late);
      await late.connect({ shardName: 'limit' });
      assert.equal(lateState.map().get('small'), 'kept');
      assert.equal(lateState.map().get('big3'), undefined, 'the refused update is not in the server’s copy');
      assert.ok((await store.state!.read(PROJECT, 'limit')).bytes <= 512 * 1024);
    } finally {
      await closeAll([writer, late]);
    }
  });

  it('refuses hostile updates with a code and keeps serving: garbage, truncated, huge varints, not base64, __proto__ and deep JSON inside', async () => {
    const raw = new Raw(server.url);
    const honest = backend(server);
    try {
      await raw.join({ shardName: 'hostile', stateVector: toBase64(new Uint8Array([5, 1])) });
      const doc = new Y.Doc();
      doc.getMap('state').set('a', 1);
      const good = Y.encodeStateAsUpdate(doc);
      const protoDoc = new Y.Doc();
      // Set through Yjs's own API: lib0 writes the key, and reads it back as a prototype.
      protoDoc.getMap('state').set('p', JSON.parse('{"__proto__":{"polluted":true}}'));
      let deep: unknown = 1;
      for (let level = 0; level < 100; level++) deep = [deep];
      const deepDoc = new Y.Doc();
      deepDoc.getMap('state').set('d', deep);
      const hostile: Array<[string, string]> = [
        ['garbage', toBase64(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 255, 255]))],
        ['truncated', toBase64(good.slice(0, good.length - 3))],
        ['huge varint', toBase64(new Uint8Array([255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1]))],
        ['empty', ''],
        ['__proto__', toBase64(Y.encodeStateAsUpdate(protoDoc))],
        ['deep', toBase64(Y.encodeStateAsUpdate(deepDoc))],
      ];
      for (const [what, update] of hostile) {
        const answer = await raw.request({ type: 'state', update });
        assert.equal(answer.type, 'error', what);
        assert.ok(['INVALID_MESSAGE', 'INVALID_VALUE'].includes((answer['error'] as { code: string }).code), `${what}: ${JSON.stringify(answer)}`);
      }
      // Not base64: the door's guard refuses the frame itself (an error without the id: the frame was not read).
      raw.send({ type: 'state', id: 999, update: '***not base64***' });
      const notBase64 = await raw.next((frame) => frame.type === 'error' && frame['id'] === undefined);
      assert.equal((notBase64['error'] as { code: string }).code, 'INVALID_MESSAGE');
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype untouched');
      // At the door, before anything is decoded: a frame larger than the largest state, and 10,000-deep JSON.
      raw.send(`{"type":"emit","seq":1,"name":"big","ts":0,"payload":{"a":"${'A'.repeat(200 * 1024)}"}}`);
      const tooLarge = await raw.next((frame) => frame.type === 'error' && (frame['error'] as { code: string }).code === 'PAYLOAD_TOO_LARGE');
      assert.equal(tooLarge['id'], undefined, 'refused at the door: an event frame may not be as large as a state update');
      // 450 KB of zeros decode as an empty update followed by bytes Yjs never reads: answered, nothing kept.
      raw.send(`{"type":"state","id":902,"update":"${'A'.repeat(4 * Math.ceil((450 * 1024) / 3))}"}`);
      const zeros = await raw.next((frame) => frame['id'] === 902);
      assert.equal(zeros.type, 'ok');
      assert.equal((await store.state!.read(PROJECT, 'hostile')).bytes, 0, 'nothing kept of it');
      raw.send(`{"type":"state","id":901,"update":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
      const tooDeep = await raw.next((frame) => frame.type === 'error' && String((frame['error'] as { message: string }).message).includes('deeper'));
      assert.equal((tooDeep['error'] as { code: string }).code, 'INVALID_MESSAGE');
      // The server still serves, and kept none of it.
      assert.equal((await raw.request({ type: 'state', update: toBase64(good) })).type, 'ok');
      const state = shardState(honest);
      await honest.connect({ shardName: 'hostile' });
      assert.deepEqual(state.map().entries(), [['a', 1]]);
    } finally {
      raw.close();
      await honest.disconnect();
    }
  });

  it('counts updates in the event rate limit (RATE_LIMITED), and a later sync sends what was refused', async () => {
    const limited = await startServer({ limits: { maxEventsPerSecond: 5 } });
    const writer = backend(limited);
    const reader = backend(limited);
    try {
      const state = shardState(writer);
      await writer.connect({ shardName: 'rate' });
      const errors: string[] = [];
      state.onError((error) => errors.push(error.code));
      const map = state.map<number>();
      // One frame per task: 40 of them, far over 5 per second (burst 10).
      for (let index = 0; index < 40; index++) {
        map.set(`k${index}`, index);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      await waitFor(() => errors.includes('RATE_LIMITED'), 'RATE_LIMITED');
      const readerState = shardState(reader);
      await reader.connect({ shardName: 'rate' });
      // The writer syncs again a second after a refusal: the reader gets all 40 in the end.
      await waitFor(() => readerState.map().entries().length === 40, 'every key to reach the reader', 15_000);
    } finally {
      await closeAll([writer, reader]);
      await limited.close();
    }
  });

  it('merges the stored updates once there are many (not on every update), and the state stays whole', async () => {
    const writer = backend(server);
    const reader = backend(server);
    try {
      const state = shardState(writer);
      await writer.connect({ shardName: 'compact' });
      const map = state.map<number>();
      // One update per task: 100 stored updates.
      for (let index = 0; index < 100; index++) {
        map.set(`k${index}`, index);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      // A compaction, and every update at the server: the last ones may still be on their way when the
      // first 64 are merged (a busy machine), and a joiner gets what the server holds.
      const holdsAll = async (): Promise<boolean> => {
        const held = await store.state!.read(PROJECT, 'compact');
        const doc = new Y.Doc();
        for (const update of held.updates) Y.applyUpdate(doc, update);
        return held.generation > 0 && doc.getMap('state').size === 100;
      };
      await until(holdsAll, 'a compaction, and all 100 updates at the server');
      const stored = await store.state!.read(PROJECT, 'compact');
      assert.ok(stored.updates.length < 64, `merged: ${stored.updates.length} updates stored`);
      const readerState = shardState(reader);
      await reader.connect({ shardName: 'compact' });
      assert.equal(readerState.map().entries().length, 100);
    } finally {
      await closeAll([writer, reader]);
    }
  });

  it('drops the state when the shard ends (its last member gone and its grace over)', async () => {
    const a = backend(server);
    try {
      const state = shardState(a);
      await a.connect({ shardName: 'ends' });
      state.map<string>().set('k', 'v');
      await until(async () => (await store.state!.read(PROJECT, 'ends')).updates.length > 0, 'the server to keep it');
    } finally {
      await a.disconnect();
    }
    await until(async () => (await store.state!.read(PROJECT, 'ends')).updates.length === 0, 'the state to go with the shard', 10_000);
    const b = backend(server);
    try {
      const state = shardState(b);
      await b.connect({ shardName: 'ends' });
      assert.deepEqual(state.map().entries(), []);
    } finally {
      await b.disconnect();
    }
  });

  it('connect({ history }) replays the last broadcasts to listeners registered before it, marked replayed', async () => {
    const sender = backend(server);
    const late = backend(server);
    try {
      await sender.connect({ shardName: 'history' });
      for (let index = 1; index <= 5; index++) await sender.emitEvent('move', { index });
      await sender.emitEvent('private', { secret: true }, ['nobody']);
      const heard: Array<{ index: unknown; replayed: unknown }> = [];
      late.on('move', (payload, meta) => heard.push({ index: payload['index'], replayed: meta.replayed }));
      await until(async () => (await store.state!.recent(PROJECT, 'history', 10)).length >= 5, 'the server to remember the events');
      await late.connect({ shardName: 'history', history: 3 });
      assert.deepEqual(heard, [
        { index: 3, replayed: true },
        { index: 4, replayed: true },
        { index: 5, replayed: true },
      ]);
      await assert.rejects(backend(server).connect({ shardName: 'history', history: 101 }), { code: 'INVALID_ARGUMENT' });
    } finally {
      await closeAll([sender, late]);
    }
  });
});

// A state whose content is deleted as fast as it is written (a log trimmed to its last entries)
// holds only what is live plus small tombstones: compaction collects the deleted content (Yjs's gc
// in a Y.Doc for the length of the call). Before, the merge kept every entry ever written, and the
// shard hit STATE_TOO_LARGE once the entries written passed the limit.
describe('shard state, garbage collected by compaction (memory store)', () => {
  let server: SignalingServer;
  const store = createMemoryStore();
  const LIMIT = 64 * 1024;
  before(async () => {
    server = await startServer({ store, limits: { maxStateBytes: LIMIT, maxEventsPerSecond: 10_000, maxMessagesPerSecond: 10_000 } });
  });
  after(() => server.close());

  it('a log of 400 entries of 1 KB trimmed to its last 10 stays far under a 64 KB limit, and a late joiner holds exactly the live entries', async () => {
    const writer = backend(server);
    const late = backend(server);
    try {
      const state = shardState(writer);
      const errors: string[] = [];
      state.onError((error) => errors.push(error.code));
      await writer.connect({ shardName: 'trimmed-log' });
      const log = state.doc.getArray<string>('log');
      for (let index = 0; index < 400; index++) {
        state.doc.transact(() => {
          log.push([`${index}:${'x'.repeat(1_000)}`]);
          if (log.length > 10) log.delete(0, log.length - 10);
        });
        // One update per task, as a template's changes come.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      const written = 400 * 1_000;
      assert.ok(written > 6 * LIMIT, 'far more was written than the limit allows to keep');
      const lateState = shardState(late);
      await late.connect({ shardName: 'trimmed-log' });
      await lateState.whenSynced();
      const lateLog = lateState.doc.getArray<string>('log');
      // The writer's last updates may still be on their way when the late joiner synced: they are relayed to it.
      await waitFor(() => lateLog.length === 10 && lateLog.get(9) === log.get(9), 'the late joiner to hold the last entry', 10_000);
      assert.deepEqual(lateLog.toJSON(), log.toJSON());
      assert.ok(lateLog.get(0).startsWith('390:'), lateLog.get(0).slice(0, 10));
      // Without collection the merge kept every entry, and the updates past 64 KB were refused.
      assert.deepEqual(errors, [], 'no update was refused');
      const stored = (await store.state!.read(PROJECT, 'trimmed-log')).bytes;
      assert.ok(stored <= LIMIT, `stored ${stored} bytes`);
    } finally {
      await closeAll([writer, late]);
    }
  });
});
