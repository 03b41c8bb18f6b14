// The mesh's signalling on the control socket (issue 27, protocol/mesh-signal-frames.ts): `signal`
// frames between members that asked for them, between them and members on a PeerJS socket, and
// what the server does with every way of getting them wrong.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MAX_MESH_SIGNAL_BYTES } from '../../protocol/signaling.js';
import type { SignalingServer } from '../../signaling/index.js';
import { Cleanup, controlWire, deepPayload, errorCode, joinMember, openPeer, peerWire, type Member } from './hostile-support.js';
import { startServer, type Frame } from './signaling-support.js';

const CONTROL = { meshSignaling: 'control' } as const;
const isSignal =
  (type: string) =>
  (frame: Frame): boolean =>
    frame.type === 'signal' && (frame['m'] as { type?: unknown } | undefined)?.type === type;
const isError = (frame: Frame): boolean => frame.type === 'error';
const signal = (m: Record<string, unknown>): string => JSON.stringify({ type: 'signal', m });

describe('mesh signalling on the control socket (signal frames)', () => {
  let server: SignalingServer;
  const cleanup = new Cleanup();
  before(async () => {
    server = await startServer();
  });
  afterEach(() => cleanup.run());
  after(() => server.close());

  const member = async (shard: string, extra: Record<string, unknown> = CONTROL): Promise<Member> => cleanup.member(await joinMember(server.url, shard, {}, extra));

  it('a join that asks gets peer.control; one that does not keeps the PeerJS socket', async () => {
    const asked = await member('ask');
    const plain = await member('ask', {});
    assert.equal((asked.joined['peer'] as { control?: unknown }).control, true);
    assert.equal((plain.joined['peer'] as { control?: unknown }).control, undefined);
  });

  it('an OFFER, its ANSWER and a CANDIDATE go member to member, with src set by the server (a forged src is ignored)', async () => {
    const a = await member('pair');
    const b = await member('pair');
    a.control.send(signal({ type: 'OFFER', dst: b.peer.id, src: 'forged', payload: { type: 'data', serialization: 'raw', sdp: 'offer-sdp', connectionId: 'dc_1' } }));
    const offer = await b.control.next(isSignal('OFFER'), 5_000);
    const m = offer['m'] as Record<string, unknown>;
    assert.equal(m['src'], a.peer.id);
    assert.equal(m['dst'], b.peer.id);
    assert.deepEqual(m['payload'], { type: 'data', serialization: 'raw', sdp: 'offer-sdp', connectionId: 'dc_1' });
    b.control.send(signal({ type: 'ANSWER', dst: a.peer.id, payload: { sdp: 'answer-sdp', connectionId: 'dc_1' } }));
    b.control.send(signal({ type: 'CANDIDATE', dst: a.peer.id, payload: { candidate: { candidate: 'c' }, connectionId: 'dc_1' } }));
    assert.equal(((await a.control.next(isSignal('ANSWER'), 5_000))['m'] as Record<string, unknown>)['src'], b.peer.id);
    assert.equal(((await a.control.next(isSignal('CANDIDATE'), 5_000))['m'] as Record<string, unknown>)['src'], b.peer.id);
  });

  it('a member on the control socket and one on a PeerJS socket (an older client) signal to each other', async () => {
    const modern = await member('mixed');
    const older = await member('mixed', {});
    const peerSocket = cleanup.wire(await openPeer(server.url, older));
    modern.control.send(signal({ type: 'OFFER', dst: older.peer.id, payload: { sdp: 'to-older' } }));
    const offer = await peerSocket.next((f) => f.type === 'OFFER', 5_000);
    assert.equal(offer['src'], modern.peer.id);
    assert.deepEqual(offer['payload'], { sdp: 'to-older' });
    peerSocket.send(JSON.stringify({ type: 'ANSWER', dst: modern.peer.id, payload: { sdp: 'from-older' } }));
    const answer = await modern.control.next(isSignal('ANSWER'), 5_000);
    assert.equal((answer['m'] as Record<string, unknown>)['src'], older.peer.id);
  });

  it('a PeerJS socket for the id of a member on the control socket is refused, even with its token', async () => {
    const a = await member('one-path');
    const wire = cleanup.wire(peerWire(server.url, a.peer));
    const refused = await wire.next((f) => f.type === 'ID-TAKEN', 5_000);
    assert.equal(refused.type, 'ID-TAKEN');
  });

  it('a member of another shard is out of reach: the sender hears EXPIRE, the other never the OFFER', async () => {
    const a = await member('here');
    const stranger = await member('elsewhere');
    a.control.send(signal({ type: 'OFFER', dst: stranger.peer.id, payload: { sdp: 'x' } }));
    const expire = await a.control.next(isSignal('EXPIRE'), 5_000);
    assert.equal((expire['m'] as Record<string, unknown>)['src'], stranger.peer.id);
    assert.equal(await stranger.control.maybeNext(isSignal('OFFER'), 300), null);
  });

  it('signal before joining, or without having asked for it, is refused NOT_CONNECTED and goes nowhere', async () => {
    const target = await member('refused');
    const unjoined = cleanup.wire(controlWire(server.url));
    await unjoined.opened;
    unjoined.send(signal({ type: 'OFFER', dst: target.peer.id, payload: { sdp: 'x' } }));
    assert.equal(errorCode(await unjoined.next(isError, 5_000)), 'NOT_CONNECTED');
    const notAsked = await member('refused', {});
    notAsked.control.send(signal({ type: 'OFFER', dst: target.peer.id, payload: { sdp: 'x' } }));
    assert.equal(errorCode(await notAsked.control.next(isError, 5_000)), 'NOT_CONNECTED');
    assert.equal(await target.control.maybeNext(isSignal('OFFER'), 300), null);
  });

  it('malformed signals are refused INVALID_MESSAGE: no m, OPEN or HEARTBEAT, no dst, a payload that is no object, a bad meshSignaling', async () => {
    const a = await member('malformed');
    const b = await member('malformed');
    const bad = [
      JSON.stringify({ type: 'signal' }),
      signal({ type: 'OPEN', dst: b.peer.id }),
      signal({ type: 'HEARTBEAT', dst: b.peer.id }),
      signal({ type: 'OFFER', payload: { sdp: 'x' } }),
      signal({ type: 'OFFER', dst: 42, payload: { sdp: 'x' } }),
      signal({ type: 'OFFER', dst: b.peer.id, payload: ['x'] }),
      signal({ type: 'OFFER', dst: 'x'.repeat(200), payload: { sdp: 'x' } }),
      JSON.stringify({ type: 'signal', m: 'OFFER' }),
    ];
    for (const frame of bad) {
      a.control.send(frame);
      assert.equal(errorCode(await a.control.next(isError, 5_000)), 'INVALID_MESSAGE', frame);
      a.control.frames.length = 0;
    }
    const wrongJoin = cleanup.wire(controlWire(server.url));
    await wrongJoin.opened;
    // A malformed frame has no id the door could answer to: the error comes without one.
    wrongJoin.send(JSON.stringify({ type: 'join', id: 1, v: 2, projectId: 'demo', kind: 'browser', meshSignaling: 'peerjs' }));
    const answer = await wrongJoin.next(isError, 5_000);
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer));
    assert.equal(await b.control.maybeNext((f) => f.type === 'signal', 300), null, 'nothing malformed was forwarded');
  });

  it('an oversized signal is refused PAYLOAD_TOO_LARGE and a 10,000-deep one INVALID_MESSAGE; the server lives and the next signal goes', async () => {
    const a = await member('big');
    const b = await member('big');
    a.control.send(signal({ type: 'OFFER', dst: b.peer.id, payload: { sdp: 'x'.repeat(MAX_MESH_SIGNAL_BYTES) } }));
    assert.equal(errorCode(await a.control.next(isError, 5_000)), 'PAYLOAD_TOO_LARGE');
    a.control.frames.length = 0;
    a.control.send(`{"type":"signal","m":{"type":"OFFER","dst":${JSON.stringify(b.peer.id)},"payload":${deepPayload(10_000)}}}`);
    assert.equal(errorCode(await a.control.next(isError, 5_000)), 'INVALID_MESSAGE');
    a.control.send(signal({ type: 'OFFER', dst: b.peer.id, payload: { sdp: 'small' } }));
    const offer = await b.control.next(isSignal('OFFER'), 5_000);
    assert.deepEqual((offer['m'] as Record<string, unknown>)['payload'], { sdp: 'small' });
    // next() took the one it matched: any OFFER left is one of the refused ones, forwarded.
    assert.equal(b.control.frames.filter(isSignal('OFFER')).length, 0, 'only the well-formed OFFER was forwarded');
  });

  it("a flood of signals is held to the peer's rate (20/s, burst 40): at most burst + rate × elapsed go through, and the socket is closed 4029", async () => {
    // A small peer rate and refusal allowance of its own, so that the flood passes them at once.
    const small = await startServer({ limits: { maxPeerMessagesPerSecond: 20, maxRefusals: 5 } });
    cleanup.defer(() => small.close());
    const a = cleanup.member(await joinMember(small.url, 'flood', {}, CONTROL));
    const b = cleanup.member(await joinMember(small.url, 'flood', {}, CONTROL));
    const candidate = signal({ type: 'CANDIDATE', dst: b.peer.id, payload: { candidate: { candidate: 'c' }, connectionId: 'dc' } });
    const start = Date.now();
    for (let i = 0; i < 500; i++) a.control.send(candidate);
    const closed = await a.control.closeWithin(10_000);
    const elapsedS = (Date.now() - start) / 1000;
    // Whatever left the server before the close has arrived once b answers a request of its own.
    assert.equal((await b.control.request({ type: 'ping', c: 0 })).type, 'pong');
    const forwarded = b.control.frames.filter(isSignal('CANDIDATE')).length;
    assert.ok(forwarded >= 1 && forwarded <= 40 + 20 * elapsedS + 1, `${forwarded} of 500 CANDIDATEs forwarded in ${elapsedS.toFixed(1)} s`);
    assert.ok(closed !== null && closed.code === 4029, `the flooding member: ${JSON.stringify(closed)}`);
  });
});
