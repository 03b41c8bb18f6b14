// The shard state's bounds against a real server process (signaling/bin.ts, as deployed): state
// updates pay the event rate by their size, not only by their count, so a member cannot move
// near-1-MiB updates at the event rate; and whenSynced() settles when connect() fails (the
// connect error's code), then gives a fresh promise that a later successful connect() resolves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as Y from 'yjs';
import { shardState } from '../../signaling/index.js';
import { toBase64 } from '../../protocol/signaling.js';
import { ServerProcess } from './hostile-support.js';
import { backend, Raw, type Frame } from './signaling-support.js';

/** The event rate of the server under test: a bucket of 20 tokens, refilled at 10 a second. */
const EVENTS_PER_SECOND = 10;
/** The server's default largest event payload: an update costs one event per this many bytes. */
const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Rejects with the code of `promise`'s rejection, or fails if it neither rejects nor settles within `timeoutMs`. */
async function rejectionCode(promise: Promise<unknown>, what: string, timeoutMs = 15_000): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([promise, deadline]);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`${what}: still pending`)) throw error;
    return (error as { code?: string }).code ?? `no code: ${String(error)}`;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`${what}: resolved, expected a rejection`);
}

describe('shard state limits, against a server process', () => {
  let server: ServerProcess;
  before(async () => {
    server = await ServerProcess.start(['--max-events-per-second', String(EVENTS_PER_SECOND)]);
  });
  after(() => server.stop());

  it('counts an update in the event rate by its size: near-1-MiB updates hit RATE_LIMITED where their count alone would not', async () => {
    const raw = new Raw(server.url);
    try {
      assert.equal((await raw.join({ shardName: 'big-updates' })).type, 'joined');
      const doc = new Y.Doc();
      doc.getMap('state').set('blob', 'x'.repeat(1_000_000));
      const update = toBase64(Y.encodeStateAsUpdate(doc));
      const bytes = Y.encodeStateAsUpdate(doc).length;
      assert.ok(bytes > 1_000_000 && bytes < 1024 * 1024, `an update of ${bytes} bytes, under the 1 MiB state limit`);
      const cost = Math.ceil(bytes / MAX_PAYLOAD_BYTES);
      // Ten of them at once: ten events fit the bucket (20 tokens) by count; by size one does (16 tokens each).
      const count = 10;
      const started = performance.now();
      const answers: Promise<Frame>[] = [];
      for (let index = 0; index < count; index++) {
        const id = 1_000 + index;
        answers.push(raw.next((frame) => frame['id'] === id, 60_000));
        // `id` second: the door knows a large state frame by its first bytes.
        raw.send({ type: 'state', id, update });
      }
      const frames = await Promise.all(answers);
      const elapsedSeconds = (performance.now() - started) / 1000;
      const codes = frames.map((frame) => (frame.type === 'ok' ? 'ok' : (frame['error'] as { code: string }).code));
      const limited = codes.filter((code) => code === 'RATE_LIMITED').length;
      // Past the rate or not, the others are kept (ok) or over the state's limit (the same megabyte again).
      assert.ok(
        codes.every((code) => ['ok', 'STATE_TOO_LARGE', 'RATE_LIMITED'].includes(code)),
        codes.join(' '),
      );
      assert.ok(limited > 0, `some updates refused RATE_LIMITED: ${codes.join(' ')}`);
      // The invariant, whatever the machine's speed: what was admitted fits the burst plus the refill of the elapsed time.
      const admitted = count - limited;
      const most = Math.floor((2 * EVENTS_PER_SECOND + EVENTS_PER_SECOND * elapsedSeconds) / cost);
      assert.ok(admitted <= Math.max(1, most), `${admitted} admitted in ${elapsedSeconds.toFixed(2)} s, at most ${most} by size`);
      // A refusal for now, never for good: a small update goes once the bucket has a token again.
      const small = new Y.Doc();
      small.getMap('state').set('k', 1);
      const smallUpdate = toBase64(Y.encodeStateAsUpdate(small));
      let answer: Frame | undefined;
      const end = Date.now() + 20_000;
      while (answer?.type !== 'ok' && Date.now() < end) {
        answer = await raw.request({ type: 'state', update: smallUpdate }, 10_000);
        if (answer.type !== 'ok') await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(answer?.type, 'ok', `a small update is kept once the bucket refilled: ${JSON.stringify(answer)}`);
      assert.ok(server.running, `the server still runs: ${server.describeExit()}`);
    } finally {
      raw.close();
    }
  });

  it('whenSynced() rejects with the code of a connect() that fails (SHARD_FULL, UNAUTHORIZED, NOT_CONNECTED); a later connect() gives a fresh one that resolves', async () => {
    const writer = backend(server.url);
    const occupant = backend(server.url);
    const joiner = backend(server.url);
    const badToken = backend(server.url, { projectToken: 'not-the-token' });
    const nowhere = backend('http://127.0.0.1:9');
    try {
      const written = shardState(writer);
      await writer.connect({ shardName: 'sync-fails' });
      written.map<number>().set('score', 3);
      await occupant.connect({ shardName: 'sync-fails' });
      // Full for this joiner: its own capacity is 2, and two members are in.
      const state = shardState(joiner);
      await assert.rejects(joiner.connect({ shardName: 'sync-fails', maxConnectionsPerShard: 2 }), { code: 'SHARD_FULL' });
      assert.equal(await rejectionCode(state.whenSynced(), 'whenSynced after SHARD_FULL'), 'SHARD_FULL');
      // Room again: the next connect() resolves with the state, and so does the whenSynced() asked for after it began.
      await occupant.disconnect();
      const connecting = joiner.connect({ shardName: 'sync-fails', maxConnectionsPerShard: 2 });
      const synced = state.whenSynced();
      await connecting;
      await synced;
      assert.equal(state.map<number>().get('score'), 3);

      const refused = shardState(badToken);
      await assert.rejects(badToken.connect({ shardName: 'sync-fails' }), { code: 'UNAUTHORIZED' });
      assert.equal(await rejectionCode(refused.whenSynced(), 'whenSynced after UNAUTHORIZED'), 'UNAUTHORIZED');

      // No server there (port 9, discard): the socket never opens.
      const unreachable = shardState(nowhere);
      const code = await rejectionCode(nowhere.connect({ shardName: 'sync-fails' }), 'connect() to no server');
      assert.equal(await rejectionCode(unreachable.whenSynced(), 'whenSynced without a server'), code);
    } finally {
      await Promise.all([writer, occupant, joiner, badToken, nowhere].map((client) => client.disconnect()));
    }
  });

  it('a state synced before keeps whenSynced() resolved when a later connect() fails', async () => {
    const member = backend(server.url);
    const other = backend(server.url);
    try {
      const state = shardState(member);
      await member.connect({ shardName: 'kept-synced' });
      await state.whenSynced();
      await member.disconnect();
      await other.connect({ shardName: 'kept-synced' });
      // Now full for it (capacity 1): the state it held is still the state it holds.
      await assert.rejects(member.connect({ shardName: 'kept-synced', maxConnectionsPerShard: 1 }), { code: 'SHARD_FULL' });
      await state.whenSynced();
    } finally {
      await Promise.all([member.disconnect(), other.disconnect()]);
    }
  });
});
