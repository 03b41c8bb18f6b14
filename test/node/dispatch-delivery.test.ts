// The Dispatch client's delivery rules that the spec states and the session
// keeps for both entry points (issue 16), shown with backend clients on a
// real server: a broadcast reaches its sender too (once, locally, latencyMs 0)
// unless it opts out; an event with recipients reaches the sender only when
// they name it; emitEvent while connect() is in progress waits for the
// connection, bounded, and fails with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestUserToken, type DispatchMessageMetadata, type EventPayload, type SignalingServer } from '../../signaling/index.js';
import { ADMIN_KEY, backend, codeOf, PROJECT, sleep, startServer, waitFor } from './signaling-support.js';

type Heard = { payload: EventPayload; meta: DispatchMessageMetadata };

function listen(client: ReturnType<typeof backend>, name: string): Heard[] {
  const heard: Heard[] = [];
  client.on(name, (payload, meta) => heard.push({ payload, meta }));
  return heard;
}

describe('Dispatch delivery to the sender itself', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('delivers a broadcast to its sender too, once, locally, with latencyMs 0 and the listener arguments of a remote event', async () => {
    const [a, b] = [backend(server), backend(server)];
    try {
      const infoA = await a.connect({ shardName: 'echo' });
      await b.connect({ shardName: 'echo' });
      const [atA, atB] = [listen(a, 'chat'), listen(b, 'chat')];
      const sent = { text: 'hi', nested: { n: 1 } };
      await a.emitEvent('chat', sent);
      // Heard by the time emitEvent's promise settles (no network in between)…
      assert.equal(atA.length, 1);
      assert.deepEqual(atA[0]!.payload, sent);
      assert.notEqual(atA[0]!.payload, sent, 'a copy, as a remote listener gets, not the caller’s object');
      assert.deepEqual(atA[0]!.meta, { latencyMs: 0, clientId: infoA.clientId, userId: null });
      await waitFor(() => atB.length === 1, 'B to get the broadcast');
      // …with the same shape as the remote copy, and only once (the server never echoes it).
      assert.deepEqual(Object.keys(atA[0]!.meta).sort(), Object.keys(atB[0]!.meta).sort());
      assert.deepEqual(atB[0]!.payload, sent);
      await sleep(150);
      assert.equal(atA.length, 1);
      assert.equal(atB.length, 1);
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('leaves the sender out with receiveOwnBroadcasts: false, and delivers an event with recipients to the sender only when they name it', async () => {
    const [a, b] = [backend(server), backend(server, { receiveOwnBroadcasts: false })];
    try {
      const infoA = await a.connect({ shardName: 'echo-rules' });
      const infoB = await b.connect({ shardName: 'echo-rules' });
      const [atA, atB] = [listen(a, 'n'), listen(b, 'n')];
      // Opted out: B's broadcast reaches A only.
      await b.emitEvent('n', { k: 'b-broadcast' });
      await waitFor(() => atA.length === 1, 'A to get B’s broadcast');
      // To B only: A does not hear its own event.
      await a.emitEvent('n', { k: 'a-to-b' }, infoB.clientId);
      // To A itself (by client id): A hears it, B does not.
      await a.emitEvent('n', { k: 'a-to-a' }, [infoA.clientId]);
      // To both: each once.
      await a.emitEvent('n', { k: 'a-to-both' }, [infoA.clientId, infoB.clientId]);
      // Listed explicitly, the opted-out sender hears its own event: the list wins.
      await b.emitEvent('n', { k: 'b-to-b' }, [infoB.clientId]);
      await waitFor(() => atA.length === 3 && atB.length === 3, 'every event');
      await sleep(150);
      // By name (local and relayed events interleave): [name, sender].
      const seen = (heard: Heard[]) => heard.map((h) => [h.payload['k'], h.meta.clientId]).sort();
      assert.deepEqual(seen(atA), [
        ['a-to-a', infoA.clientId],
        ['a-to-both', infoA.clientId],
        ['b-broadcast', infoB.clientId],
      ]);
      assert.deepEqual(seen(atB), [
        ['a-to-b', infoA.clientId],
        ['a-to-both', infoA.clientId],
        ['b-to-b', infoB.clientId],
      ]);
      // A client's own events come locally: latencyMs 0.
      const own = [...atA.filter((h) => h.meta.clientId === infoA.clientId), ...atB.filter((h) => h.meta.clientId === infoB.clientId)];
      assert.deepEqual(
        own.map((h) => h.meta.latencyMs),
        [0, 0, 0],
      );
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('delivers an event sent to the sender’s own verified user id to the sender too', async () => {
    const { userToken } = await requestUserToken({ url: server.url, adminKey: ADMIN_KEY, projectId: PROJECT, userId: 'echo-user' });
    const [a, b] = [backend(server), backend(server)];
    try {
      const infoA = await a.connect({ shardName: 'echo-user', authorization: userToken });
      await b.connect({ shardName: 'echo-user' });
      const [atA, atB] = [listen(a, 'dm'), listen(b, 'dm')];
      await a.emitEvent('dm', { note: 'to myself' }, 'echo-user');
      assert.deepEqual(
        atA.map((h) => h.meta),
        [{ latencyMs: 0, clientId: infoA.clientId, userId: 'echo-user' }],
      );
      await sleep(150);
      assert.equal(atA.length, 1);
      assert.equal(atB.length, 0);
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });
});

describe('Dispatch emitEvent while connect() is in progress', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('waits for the connection: the events leave in order once joined and their promises resolve then', async () => {
    const [a, b] = [backend(server), backend(server)];
    try {
      await b.connect({ shardName: 'early' });
      const atB = listen(b, 'n');
      const connecting = a.connect({ shardName: 'early' });
      const emitted = [0, 1, 2].map((i) => a.emitEvent('n', { i }));
      let settled = 0;
      for (const promise of emitted) void promise.then(() => settled++);
      await sleep(0);
      assert.equal(settled, 0, 'not sent before the connection');
      await connecting;
      await Promise.all(emitted);
      await waitFor(() => atB.length === 3, 'B to get the three events');
      assert.deepEqual(
        atB.map((h) => h.payload['i']),
        [0, 1, 2],
      );
      assert.ok(atB.every((h) => h.meta.latencyMs >= 0 && h.meta.latencyMs < 5_000));
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('holds at most 64 events while connecting and refuses the next with QUEUE_FULL', async () => {
    const [a, b] = [backend(server), backend(server)];
    try {
      await b.connect({ shardName: 'early-bound' });
      const atB = listen(b, 'n');
      const connecting = a.connect({ shardName: 'early-bound' });
      const accepted = Array.from({ length: 64 }, (_, i) => a.emitEvent('n', { i }));
      assert.equal(await codeOf(a.emitEvent('n', { i: 64 })), 'QUEUE_FULL');
      await connecting;
      await Promise.all(accepted);
      await waitFor(() => atB.length === 64, 'B to get the 64 events');
      assert.deepEqual(
        atB.map((h) => h.payload['i']),
        Array.from({ length: 64 }, (_, i) => i),
      );
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('rejects the events emitted while connecting with the connection’s error code when connect() fails', async () => {
    const refused = backend(server, { projectToken: 'not-the-token' });
    const connecting = refused.connect({ shardName: 'early-refused' });
    const emitted = refused.emitEvent('n', { i: 0 });
    const connectCode = await codeOf(connecting);
    assert.equal(connectCode, 'UNAUTHORIZED');
    assert.equal(await codeOf(emitted), connectCode);
    // Nothing lingers for a later connection: it is NOT_CONNECTED again, at once.
    assert.equal(await codeOf(refused.emitEvent('n', { i: 1 })), 'NOT_CONNECTED');

    // No server at all: the socket's own failure, NOT_CONNECTED.
    const nowhere = backend('http://127.0.0.1:9', { reconnectInitialDelayMs: 10 });
    const failing = nowhere.connect({ shardName: 'early-nowhere' });
    const lost = nowhere.emitEvent('n', { i: 0 });
    assert.equal(await codeOf(failing), 'NOT_CONNECTED');
    assert.equal(await codeOf(lost), 'NOT_CONNECTED');
  });

  it('rejects NOT_CONNECTED when connect() was never called, and rejects what waits when disconnect() comes first', async () => {
    const never = backend(server);
    assert.equal(await codeOf(never.emitEvent('n', {})), 'NOT_CONNECTED');

    const a = backend(server);
    const connecting = a.connect({ shardName: 'early-disconnect' });
    const waiting = a.emitEvent('n', {});
    await a.disconnect();
    assert.equal(await codeOf(waiting), 'NOT_CONNECTED');
    // …and so does the connect() it cut short, rather than never settling.
    assert.equal(await codeOf(connecting), 'NOT_CONNECTED');
  });
});
