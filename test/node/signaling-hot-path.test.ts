// The event hot path: what its shortcuts must never change. The server splices a relayed
// frame from the sender's text only when nothing can hide in it; the client serializes a
// payload once and checks it exactly as before; listeners keep their subscribe semantics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignalingServer } from '../../signaling/index.js';
import { assertPlainData, plainDataJson } from '../../protocol/data.js';
import {
  emitFrame,
  eventFrameBody,
  parseClientMessage,
  parseJsonObject,
  parsePeerAck,
  peerAckFrame,
  relayedEventFrame,
  resendFrame,
  type EmitMessage,
} from '../../protocol/signaling.js';
import { backend, codeOf, Raw, startServer, waitFor } from './signaling-support.js';

/** A raw member that also keeps the text of every frame it receives. */
async function member(server: SignalingServer, shardName: string): Promise<{ raw: Raw; clientId: string; texts: string[] }> {
  const raw = new Raw(server.url);
  const texts: string[] = [];
  raw.ws.on('message', (data) => texts.push(String(data)));
  const joined = await raw.join({ shardName });
  return { raw, clientId: joined['clientId'] as string, texts };
}

describe('signaling hot path: the relayed frame', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  it('splices a frame as clients send it, and serializes anew anything that could carry from, userId or to', async () => {
    const sender = await member(server, 'splice');
    const receiver = await member(server, 'splice');
    const events = (): Record<string, unknown>[] => receiver.raw.frames.filter((f) => f.type === 'event');

    // As the library sends it: the payload text goes on as it came, behind the server's fields.
    const canonical = emitFrame(eventFrameBody(1, 'move', '{"x":1,"text":"a \\"quoted\\" é"}', 12.5), null);
    sender.raw.send(canonical);
    await waitFor(() => events().length === 1, 'the spliced event');
    const spliced = receiver.texts.find((text) => text.includes('"seq":1,'))!;
    assert.equal(spliced, `{"type":"event","from":${JSON.stringify(sender.clientId)},"userId":null,${canonical.slice('{"type":"emit",'.length)}`);
    assert.deepEqual(events()[0], { type: 'event', from: sender.clientId, userId: null, seq: 1, name: 'move', payload: { x: 1, text: 'a "quoted" é' }, ts: 12.5 });

    // Extra members (a forged from and userId), recipients, other spacing: re-serialized from
    // the checked fields, so receivers see the true sender and never the recipient list.
    sender.raw.send('{"type":"emit","seq":2,"name":"move","payload":{"y":2},"ts":1,"from":"forged","userId":"admin"}');
    sender.raw.send({ type: 'emit', seq: 3, name: 'move', payload: { z: 3 }, ts: 2, to: [receiver.clientId, 'someone-else'] });
    sender.raw.send('{ "type": "emit", "seq": 4, "name": "move", "payload": {"w": 4}, "ts": 3 }');
    await waitFor(() => events().length === 4, 'the other events');
    assert.deepEqual(
      events().map((event) => [event['seq'], event['from'], event['userId'], event['payload']]),
      [
        [1, sender.clientId, null, { x: 1, text: 'a "quoted" é' }],
        [2, sender.clientId, null, { y: 2 }],
        [3, sender.clientId, null, { z: 3 }],
        [4, sender.clientId, null, { w: 4 }],
      ],
    );
    for (const text of receiver.texts.filter((t) => t.includes('"type":"event"'))) {
      assert.ok(!text.includes('forged') && !text.includes('admin') && !text.includes('someone-else') && !text.includes('"to"'), text);
    }
    sender.raw.close();
    receiver.raw.close();
  });

  it('relays a resend of a mesh event to its one receiver although its seq is old; a plain old seq is still dropped', async () => {
    const sender = await member(server, 'resend');
    const receiver = await member(server, 'resend');
    const other = await member(server, 'resend');
    const seqs = (m: { raw: Raw }): unknown[] => m.raw.frames.filter((f) => f.type === 'event').map((f) => f['seq']);
    sender.raw.send(emitFrame(eventFrameBody(9, 'move', '{"n":9}', 1), null));
    await waitFor(() => seqs(receiver).length === 1 && seqs(other).length === 1, 'event 9 to both');
    // Events 7 and 8 went to the receiver over a data channel that died: resent, with their own seqs.
    sender.raw.send(resendFrame(eventFrameBody(7, 'move', '{"n":7}', 1), receiver.clientId));
    sender.raw.send(resendFrame(eventFrameBody(8, 'move', '{"n":8}', 1), receiver.clientId));
    // An old seq without the flag is a resend after a reconnection: already relayed, dropped.
    sender.raw.send(emitFrame(eventFrameBody(8, 'move', '{"n":8}', 1), null));
    sender.raw.send(emitFrame(eventFrameBody(10, 'move', '{"n":10}', 1), null));
    await waitFor(() => seqs(receiver).length === 4 && seqs(other).length === 2, 'the resends and event 10');
    assert.deepEqual(seqs(receiver), [9, 7, 8, 10]);
    assert.deepEqual(seqs(other), [9, 10]);
    // The flag is never passed on, and a resend without its one receiver is malformed.
    assert.ok(receiver.texts.every((text) => !text.includes('"re"')));
    assert.equal(parseClientMessage(parseJsonObject('{"type":"emit","seq":3,"name":"m","payload":{},"ts":1,"re":true}')), null);
    assert.equal(parseClientMessage(parseJsonObject('{"type":"emit","seq":3,"name":"m","payload":{},"ts":1,"to":["x"],"re":1}')), null);
    sender.raw.send('{"type":"emit","seq":3,"name":"m","payload":{},"ts":1,"re":true}');
    await waitFor(() => sender.raw.frames.some((f) => f.type === 'error'), 'the refusal');
    assert.equal((sender.raw.frames.find((f) => f.type === 'error')!['error'] as { code: string }).code, 'INVALID_MESSAGE');
    for (const m of [sender, receiver, other]) m.raw.close();
  });

  it('reads a data channel acknowledgement only when it is well formed', () => {
    assert.equal(parsePeerAck(peerAckFrame(42)), 42);
    for (const bad of [
      '{"type":"ack","seq":0}',
      '{"type":"ack","seq":-1}',
      '{"type":"ack","seq":1.5}',
      '{"type":"ack","seq":"3"}',
      '{"type":"ack"',
      '{"type":"ack","seq":1e400}',
    ]) {
      assert.equal(parsePeerAck(bad), null, bad);
    }
  });

  it('splices only when the parsed frame has exactly the five members of an emit', () => {
    const check = (text: string): EmitMessage => parseClientMessage(parseJsonObject(text)) as EmitMessage;
    const plain = '{"type":"emit","seq":1,"name":"m","payload":{},"ts":0}';
    assert.equal(relayedEventFrame(plain, check(plain), 'c1', 'u"1'), '{"type":"event","from":"c1","userId":"u\\"1","seq":1,"name":"m","payload":{},"ts":0}');
    // A repeated member parses to its last value everywhere; the server checked that value.
    const repeated = '{"type":"emit","seq":1,"name":"m","payload":{},"ts":0,"seq":7}';
    assert.equal((JSON.parse(relayedEventFrame(repeated, check(repeated), 'c1', null)) as Record<string, unknown>)['seq'], 7);
    const proto = '{"type":"emit","seq":1,"name":"m","payload":{},"ts":0,"__proto__":{"from":"x"}}';
    assert.equal(relayedEventFrame(proto, check(proto), 'c1', null), '{"type":"event","from":"c1","userId":null,"seq":1,"name":"m","payload":{},"ts":0}');
  });
});

describe('signaling hot path: the client', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  it('serializes a payload once and refuses what assertPlainData refuses, with the same codes', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = { back: cyclic };
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const shared = { s: 1 };
    // A sparse array is one of the shapes on purpose: JSON has no holes.
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 2];
    const cases: unknown[] = [
      { a: [1, 'b', null, true, { c: 2 }], shared, again: shared },
      cyclic,
      deep,
      { n: Number.NaN },
      { d: new Date() },
      JSON.parse('{"__proto__":1}'),
      { f: () => 1 },
      sparse,
      { big: 'é'.repeat(600) },
    ];
    for (const value of cases) {
      const outcome = (run: () => unknown): string => {
        try {
          run();
          return 'ok';
        } catch (error) {
          return `${(error as { code: string }).code}: ${(error as Error).message}`;
        }
      };
      assert.equal(
        outcome(() => plainDataJson(value, 1_000)),
        outcome(() => assertPlainData(value, 1_000)),
      );
    }
    assert.equal(plainDataJson({ a: [1, { b: 'c' }] }), '{"a":[1,{"b":"c"}]}');
  });

  it('checks every event name (the empty one too), and keeps each subscription of a listener apart', async () => {
    const sender = backend(server);
    const receiver = backend(server);
    await sender.connect({ shardName: 'names' });
    await receiver.connect({ shardName: 'names' });
    assert.equal(await codeOf(sender.emitEvent('', {})), 'INVALID_NAME');
    await sender.emitEvent('ok', {});
    assert.equal(await codeOf(sender.emitEvent('', {})), 'INVALID_NAME');
    assert.equal(await codeOf(sender.emitEvent('bad name', {})), 'INVALID_NAME');

    const calls: string[] = [];
    const listener = (payload: Record<string, unknown>): void => void calls.push(`a${String(payload['i'])}`);
    const offFirst = receiver.on('n', listener);
    receiver.on('n', listener);
    // Removed while the event is being delivered: it still gets this event, not the next.
    const offSelf = receiver.on('n', (payload) => {
      calls.push(`b${String(payload['i'])}`);
      offSelf();
    });
    await sender.emitEvent('n', { i: 1 });
    await waitFor(() => calls.length === 3, 'first event');
    offFirst();
    offFirst(); // twice: still one subscription removed, the other stays
    await sender.emitEvent('n', { i: 2 });
    await waitFor(() => calls.length === 4, 'second event');
    assert.deepEqual(calls, ['a1', 'a1', 'b1', 'a2']);
    await sender.disconnect();
    await receiver.disconnect();
  });
});
