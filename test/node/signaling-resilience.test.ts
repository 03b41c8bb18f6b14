// The server under hostile input, and the clients across failures:
// fuzzing while a shard keeps working, reconnection with the offline queue,
// a server restart, the grace period, clock sync, backend configuration.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { createMemoryStore, PlatformBackend, type SignalingServer } from '../../signaling/index.js';
import { backend, codeOf, PROJECT, Raw, sleep, startServer, TOKEN, waitFor } from './signaling-support.js';

/** A deterministic generator so a failing fuzz run can be replayed. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function hostileFrames(count: number, seed: number, joinedSeq: () => number): (string | Buffer)[] {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const weird: unknown[] = [null, true, -1, 1e308, -0, NaN, '', 'x'.repeat(300), [], {}, [[[]]], { __proto__: { polluted: true } }, { constructor: { prototype: 1 } }];
  const types = ['join', 'emit', 'identify', 'userInfo', 'info', 'ping', 'leave', 'event', 'presence', 'joined', '__proto__', 'constructor', ''];
  const frames: (string | Buffer)[] = [];
  for (let i = 0; i < count; i++) {
    switch (Math.floor(random() * 10)) {
      case 0:
        frames.push(randomBytes(1 + Math.floor(random() * 64)));
        break;
      case 1:
        frames.push(randomBytes(1 + Math.floor(random() * 64)).toString('latin1'));
        break;
      case 2:
        frames.push(JSON.stringify(pick(weird)) ?? 'undefined');
        break;
      case 3: {
        const frame: Record<string, unknown> = { type: pick(types) };
        for (const key of ['id', 'v', 'seq', 'name', 'payload', 'ts', 'to', 'projectId', 'kind', 'token', 'userInfo', 'c', 'resume', 'shardName']) {
          if (random() < 0.5) frame[key] = pick(weird);
        }
        frames.push(JSON.stringify(frame));
        break;
      }
      case 4:
        frames.push('{"type":"emit","seq":1,"name":"n","payload":' + '['.repeat(20_000) + ']'.repeat(20_000) + ',"ts":0}');
        break;
      case 5:
        frames.push(`{"type":"emit","seq":${joinedSeq()},"name":"n","payload":{"__proto__":{"admin":true},"i":-1},"ts":0,"from":"someone-else","userId":"admin"}`);
        break;
      case 6:
        frames.push(JSON.stringify({ type: 'emit', seq: joinedSeq(), name: 'n', payload: { i: -1 }, ts: 0, to: Array.from({ length: 2_000 }, (_, k) => `r${k}`) }));
        break;
      case 7:
        frames.push(
          JSON.stringify({
            type: 'join',
            v: 1,
            id: i,
            projectId: PROJECT,
            kind: pick(['browser', 'backend', 'admin']),
            resume: { clientId: 'victim', resumeToken: 'forged.lobby.mac' },
          }),
        );
        break;
      case 8:
        frames.push('{"type":"ping","id":1,"c":1' + ' '.repeat(Math.floor(random() * 5000)));
        break;
      default:
        frames.push(JSON.stringify({ type: 'identify', id: i, token: 'eyJhbGciOiJub25lIn0.' + randomBytes(40).toString('base64url') + '.' }));
    }
  }
  return frames;
}

describe('signaling server under hostile frames', () => {
  it('answers thousands of random and hostile frames with errors, never crashes, while a shard keeps exchanging events correctly', async () => {
    // No refusal allowance: this test fuzzes the parser and the handlers with thousands of frames per
    // socket; that the server disconnects such sockets (4029) is signaling-hostile.test.ts's to show.
    const server = await startServer({ limits: { maxEventsPerSecond: 1_000, maxRefusals: Infinity } });
    try {
      const sender = backend(server);
      const receiver = backend(server);
      await sender.connect({ shardName: 'fuzz' });
      await receiver.connect({ shardName: 'fuzz' });
      const got: { i: number; from: string }[] = [];
      receiver.on('n', (payload, meta) => got.push({ i: payload['i'] as number, from: meta.clientId }));
      // Hostile sockets: two joined to the same shard, two never joined.
      const hostile = [new Raw(server.url), new Raw(server.url), new Raw(server.url), new Raw(server.url)];
      const hostileIds = new Set([(await hostile[0]!.join({ shardName: 'fuzz' }))['clientId'] as string, (await hostile[1]!.join({ shardName: 'fuzz' }))['clientId'] as string]);
      await Promise.all(hostile.map((socket) => socket.opened));
      let seq = 0;
      const batches = hostile.map((_, index) => hostileFrames(1_500, 42 + index, () => ++seq));
      const honest = (async () => {
        for (let i = 0; i < 300; i++) {
          await sender.emitEvent('n', { i });
          if (i % 20 === 0) await sleep(5);
        }
      })();
      await Promise.all(
        hostile.map(async (socket, index) => {
          for (const [k, frame] of batches[index]!.entries()) {
            if (socket.ws.readyState !== WebSocket.OPEN) break;
            socket.ws.send(frame, { binary: Buffer.isBuffer(frame) });
            if (k % 100 === 0) await sleep(1);
          }
        }),
      );
      await honest;
      await waitFor(() => got.filter((g) => g.from === sender.connectionInfo!.clientId).length === 300, 'every honest event', 10_000);
      const fromSender = got.filter((g) => g.from === sender.connectionInfo!.clientId).map((g) => g.i);
      assert.deepEqual(
        fromSender,
        Array.from({ length: 300 }, (_, i) => i),
      );
      // Whatever the hostile members got through carries their own id, never a forged one.
      const forged = got.filter((g) => g.i === -1);
      assert.ok(forged.length > 0, 'some hostile events were relayed');
      assert.ok(
        forged.every((g) => hostileIds.has(g.from)),
        'each under its true sender id',
      );
      assert.ok(server.metrics().invalidFrames > 1_000, `invalid frames counted: ${server.metrics().invalidFrames}`);
      assert.ok(hostile.some((socket) => socket.frames.some((f) => f.type === 'error' && (f['error'] as { code: string }).code === 'INVALID_MESSAGE')));
      // Still healthy, still serving new members.
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const late = backend(server);
      await late.connect({ shardName: 'fuzz' });
      const lateGot: number[] = [];
      late.on('after', (payload) => lateGot.push(payload['k'] as number));
      await sender.emitEvent('after', { k: 1 });
      await waitFor(() => lateGot.length === 1, 'an event after the fuzzing');
      for (const socket of hostile) socket.close();
      await Promise.all([sender.disconnect(), receiver.disconnect(), late.disconnect()]);
    } finally {
      await server.close();
    }
  });
});

describe('clients across failures', () => {
  it('reconnects a dropped socket with its client id and shard, and sends events queued offline exactly once, in order', async () => {
    const server = await startServer();
    try {
      const a = backend(server, { reconnectInitialDelayMs: 100 });
      const b = backend(server);
      const { token } = await server.issueUserToken(PROJECT, 'alice');
      const infoA = await a.connect({ shardName: 'resume', authorization: token });
      await b.connect({ shardName: 'resume' });
      const got: number[] = [];
      b.on('n', (payload, meta) => {
        assert.equal(meta.userId, 'alice'); // re-identified after the reconnection too
        got.push(payload['i'] as number);
      });
      const presence: number[] = [];
      b.onConnectedClientsChanged((clients) => presence.push(clients.length));
      for (let i = 0; i < 5; i++) await a.emitEvent('n', { i });
      a.session.dropSocketForTest();
      await waitFor(() => a.session.state === 'reconnecting', 'a to notice');
      for (let i = 5; i < 25; i++) await a.emitEvent('n', { i });
      await waitFor(() => a.session.state === 'connected', 'a to come back', 5_000);
      assert.deepEqual(a.connectionInfo, infoA);
      await waitFor(() => got.length === 25, 'every event');
      await sleep(100);
      assert.deepEqual(
        got,
        Array.from({ length: 25 }, (_, i) => i),
      );
      assert.deepEqual(presence.slice(-2), [1, 2]); // presence followed the socket, and came back
      // A second connect() returns the same connection.
      assert.deepEqual(await a.connect({ shardName: 'another' }), infoA);
      await a.disconnect();
      await a.disconnect(); // idempotent
      await b.disconnect();
      assert.equal(await codeOf(a.emitEvent('n', {})), 'NOT_CONNECTED');
    } finally {
      await server.close();
    }
  });

  it('reports a full offline queue as QUEUE_FULL, and comes back after a server restart with the same ids', async () => {
    // The same data directory (so the same server key) across the restart, as a deployment keeps it: resume tokens still check.
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-restart-'));
    const first = await startServer({ dataDir });
    const port = Number(new URL(first.url).port);
    const a = backend(first, { maxQueuedEvents: 5, reconnectInitialDelayMs: 50 });
    const b = backend(first, { reconnectInitialDelayMs: 50 });
    const infoA = await a.connect({ shardName: 'restart' });
    const infoB = await b.connect({ shardName: 'restart' });
    await first.close();
    await waitFor(() => a.session.state === 'reconnecting', 'a to notice the restart');
    for (let i = 0; i < 5; i++) await a.emitEvent('n', { i });
    assert.equal(await codeOf(a.emitEvent('n', { i: 5 })), 'QUEUE_FULL');
    await sleep(300);
    let second: SignalingServer | undefined;
    try {
      second = await startServer({ port, dataDir });
      await waitFor(() => a.session.state === 'connected' && b.session.state === 'connected', 'both back', 10_000);
      assert.deepEqual(a.connectionInfo, infoA);
      assert.deepEqual(b.connectionInfo, infoB);
      await waitFor(() => a.session.connectedClients.length === 2, 'presence rebuilt');
      const got: number[] = [];
      b.on('after', (payload) => got.push(payload['k'] as number));
      await a.emitEvent('after', { k: 1 });
      await waitFor(() => got.length === 1, 'events after the restart');
      assert.deepEqual(
        (await a.info()).map((s) => s.shardName),
        ['restart'],
      );
    } finally {
      await a.disconnect();
      await b.disconnect();
      await second?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('gives a new client id when the grace period ran out, and says so', async () => {
    const server = await startServer({ reconnectGraceMs: 100 });
    try {
      const a = backend(server, { reconnectInitialDelayMs: 800 });
      const errors: string[] = [];
      a.onError((error) => errors.push(error.code));
      const before = await a.connect({ shardName: 'grace' });
      a.session.dropSocketForTest();
      await waitFor(() => a.session.state === 'connected' && a.connectionInfo?.clientId !== before.clientId, 'a new id', 5_000);
      assert.deepEqual(errors, ['LINK_RESET']);
      assert.equal(a.connectionInfo?.shardName, 'grace');
      await a.disconnect();
    } finally {
      await server.close();
    }
  });

  it('a page that goes away (close 1001) leaves at once; a socket that dies keeps its place for the grace period', async () => {
    // The store the server keeps its members in (what the demo's dashboard reads): online or within their grace period.
    const store = createMemoryStore();
    const server = await startServer({ store });
    try {
      const stays = new Raw(server.url);
      await stays.join({ shardName: 'away' });
      const members = async (): Promise<number> => (await store.members(PROJECT, 'away')).length;
      // A tab closes: the browser sends 1001 (going away). That page can never resume.
      const tab = new Raw(server.url);
      await tab.join({ shardName: 'away' });
      await tab.next((frame) => frame.type === 'event' || frame.type === 'presence', 1_000).catch(() => undefined);
      assert.equal(await members(), 2);
      tab.ws.close(1001, 'going away');
      await stays.next((frame) => frame.type === 'presence' && JSON.stringify(frame).includes('remove'));
      await waitFor(() => tab.closed, 'the tab to close');
      assert.equal(await members(), 1, 'the closed tab no longer holds a place');
      // A dropped connection (no close frame) is kept: it may come back and resume.
      const dropped = new Raw(server.url);
      await dropped.join({ shardName: 'away' });
      dropped.close();
      await stays.next((frame) => frame.type === 'presence' && JSON.stringify(frame).includes('remove'));
      assert.equal(await members(), 2, 'the dropped client keeps its place for the grace period');
      stays.close();
    } finally {
      await server.close();
    }
  });

  it('syncs clocks: latencyMs is within 2 ms of the true one-way latency even with clocks seconds apart', async () => {
    const server = await startServer();
    const a = backend(server, { clockSkewMs: 5_000 });
    const b = backend(server, { clockSkewMs: -3_000 });
    try {
      await a.connect({ shardName: 'clock' });
      await b.connect({ shardName: 'clock' });
      // Both clients live in this process, so the true one-way latency of each pong is measured on
      // one clock: from just before b sends it to a's listener. (Half the round trip is not it: a
      // busy machine delays one leg and not the other, and that asymmetry, not the clocks, put
      // errors of 2 to 6 ms into a run at load 30.)
      let pongSentAt = 0;
      b.on('ping', (payload) => {
        pongSentAt = performance.now();
        void b.emitEvent('pong', payload);
      });
      const errors: number[] = [];
      const latencies: number[] = [];
      for (let i = 0; i < 40; i++) {
        const latency = new Promise<{ latencyMs: number; trueMs: number }>((resolve) => {
          const off = a.on('pong', (_payload, meta) => {
            const trueMs = performance.now() - pongSentAt;
            off();
            resolve({ latencyMs: meta.latencyMs, trueMs });
          });
        });
        await a.emitEvent('ping', { i });
        const back = await latency;
        latencies.push(back.latencyMs);
        errors.push(Math.abs(back.latencyMs - back.trueMs));
        await sleep(10);
      }
      errors.sort((x, y) => x - y);
      assert.ok(errors[Math.floor(errors.length * 0.9)]! < 2, `90% within 2 ms, errors ${errors.map((e) => e.toFixed(2)).join(' ')}`);
      assert.ok(
        latencies.every((l) => l < 50),
        'no skew of seconds left in latencyMs',
      );
    } finally {
      // In finally: a failed assertion left both clients reconnecting to the closed server for
      // good, and the file (and the whole suite with it) never ended.
      await Promise.all([a.disconnect(), b.disconnect()]);
      await server.close();
    }
  });

  it('takes the project from res.locals, lets options override it, and finds the server through PLATFORM_DISPATCH_URL', async () => {
    const server = await startServer();
    const saved = process.env['PLATFORM_DISPATCH_URL'];
    try {
      process.env['PLATFORM_DISPATCH_URL'] = server.url;
      const res = { locals: { PLATFORM_PROJECT_ID: PROJECT, PLATFORM_PROJECT_TOKEN: TOKEN } };
      const viaRes = new PlatformBackend.Dispatch({ res });
      assert.ok((await viaRes.connect()).clientId);
      const overridden = new PlatformBackend.Dispatch({ res, projectToken: 'wrong-token' });
      assert.equal(await codeOf(overridden.connect()), 'UNAUTHORIZED');
      const otherProject = new PlatformBackend.Dispatch({ res, projectId: 'other', projectToken: 'other-token' });
      await otherProject.connect({ shardName: 'x' });
      assert.deepEqual(
        (await otherProject.info()).map((s) => s.shardName),
        ['x'],
      );
      assert.throws(() => new PlatformBackend.Dispatch({ res: { locals: {} }, url: server.url }), /project id and token/);
      await viaRes.disconnect();
      await otherProject.disconnect();
    } finally {
      if (saved === undefined) delete process.env['PLATFORM_DISPATCH_URL'];
      else process.env['PLATFORM_DISPATCH_URL'] = saved;
      await server.close();
    }
  });
});
