// Hostile input, one named test per attack (TESTING.md, "Hostile input"). Frames that used to
// end the process are sent to a server in a CHILD PROCESS (signaling/bin.ts): a crash fails
// the test (the child's exit and stack are in the message) instead of killing the runner.
// Floods from clients that never read measure the child's RSS (/proc/<pid>/status) and want
// the offending socket closed. The limits that need project options (origins, user tokens,
// capacity) run on an in-process server: nothing there can crash.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { RawData } from 'ws';
import { CONTROL_PATH, encodeHandshakeJoin, PEERJS_KEY, PEERJS_PATH, SIGNALING_VERSION, type JoinMessage } from '../../protocol/signaling.js';
import type { SignalingServer, SignalingServerOptions } from '../../signaling/index.js';
import {
  assertAlive,
  Cleanup,
  controlWire,
  deepArray,
  deepPayload,
  errorCode,
  exitOrTimeout,
  floodFor,
  httpPost,
  inBatches,
  joinMember,
  MB,
  openPeer,
  RssWatch,
  rawUpgrade,
  ServerProcess,
  watchUnansweredClose,
  wsFrame,
  type Member,
  type UnansweredClose,
  type Wire,
} from './hostile-support.js';
import { RedisProcess, SHARED_KEY, skipRedis } from './redis-support.js';
import { PROJECT, sleep, startServer, TOKEN, type Frame } from './signaling-support.js';

/** RSS growth a flood may cost the server (peak minus the level before it). */
const RSS_BOUND_BYTES = 64 * MB;
/** How long a flood from a client that never reads goes on. */
const FLOOD_MS = 2_500;

const isEvent = (frame: Frame): boolean => frame.type === 'event';

/** The emit frame text of a payload given as JSON text. */
const emitText = (seq: number, payloadJson: string, to?: readonly string[]): string =>
  `{"type":"emit","seq":${seq},"name":"deep","payload":${payloadJson},"ts":0${to ? `,"to":${JSON.stringify(to)}` : ''}}`;

/** What a refused or surviving socket looks like, for messages. */
const describeClose = (closed: { code: number; reason: string } | null): string => (closed ? `closed ${closed.code} "${closed.reason}"` : 'stayed open');

/** How long a connection lasted after a close frame it never answered, for messages. */
const describeEnd = (close: UnansweredClose): string =>
  close.code === null
    ? 'got no close frame'
    : close.endedAfterMs === null
      ? `was still open 3 s after its close frame (${close.code})`
      : `ended ${close.endedAfterMs} ms after its close frame (${close.code})`;

/** A close that ends a socket refused too often: 4029 RATE_LIMITED…, or terminated (1006). */
function isFloodClose(closed: { code: number; reason: string } | null): boolean {
  if (closed === null) return false;
  if (closed.code === 4029) return closed.reason.startsWith('RATE_LIMITED');
  return closed.code === 1006;
}

// ─── crashes ───────────────────────────────────────────────────────────────

describe('hostile input: frames that ended the process (server in a child process)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  /** A fresh child server and two browser members of `shardName` on it. */
  async function pairOnChild(shardName: string): Promise<{ server: ServerProcess; a: Member; b: Member }> {
    const server = await ServerProcess.start();
    cleanup.defer(() => server.stop());
    const a = cleanup.member(await joinMember(server.url, shardName));
    const b = cleanup.member(await joinMember(server.url, shardName));
    return { server, a, b };
  }

  /** Sends `frame` from `sender`; resolves its error answer (null if none within 3 s or the server died). */
  async function sendAndAwaitError(server: ServerProcess, sender: Wire, frame: string): Promise<Frame | null> {
    const answer = sender.maybeNext((f) => f.type === 'error', 3_000);
    sender.send(frame);
    return Promise.race([answer, server.exited.then(() => null)]);
  }

  it('a) emit to one client id with a 6,000-deep payload (~12 KB frame) is refused INVALID_MESSAGE, the socket stays open, the server lives (crashed in relayedEventFrame)', async () => {
    const { server, a, b } = await pairOnChild('deep-to');
    const frame = emitText(1, deepPayload(6_000), [b.clientId]);
    assert.ok(frame.length > 11_000 && frame.length < 13_000, `frame of ${frame.length} bytes`);
    const answer = await sendAndAwaitError(server, a.control, frame);
    await assertAlive(server, 'after a 6,000-deep emit to one client id');
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer));
    assert.ok(a.control.isOpen, 'the sender stays connected');
    // The sender goes on: its next event reaches b, and the deep one never did.
    a.control.send(emitText(2, '{"after":true}', [b.clientId]));
    const event = await b.control.next(isEvent, 3_000);
    assert.deepEqual(event['payload'], { after: true });
  });

  it('b) emit to everyone, ~80 KB and 40,000 deep (over maxPayloadBytes, under the socket maxPayload), is refused INVALID_MESSAGE, the server lives (crashed in the payload size check)', async () => {
    const { server, a, b } = await pairOnChild('deep-all');
    const frame = emitText(1, deepPayload(40_000));
    assert.ok(frame.length > 64 * 1024 && frame.length < 104 * 1024, `frame of ${frame.length} bytes`);
    const answer = await sendAndAwaitError(server, a.control, frame);
    await assertAlive(server, 'after an 80 KB, 40,000-deep emit');
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer));
    assert.ok(a.control.isOpen, 'the sender stays connected');
    a.control.send(emitText(2, '{"after":true}'));
    assert.deepEqual((await b.control.next(isEvent, 3_000))['payload'], { after: true });
  });

  it('c) userInfo 6,000 deep is refused INVALID_MESSAGE, the server lives (crashed in its size check)', async () => {
    const { server, a, b } = await pairOnChild('deep-info');
    const answer = await sendAndAwaitError(server, a.control, `{"type":"userInfo","id":77,"userInfo":${deepPayload(6_000)}}`);
    await assertAlive(server, 'after a 6,000-deep userInfo');
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer));
    assert.ok(a.control.isOpen, 'the sender stays connected');
    // A userInfo within the limits still works and reaches the other member.
    const ok = await a.control.request({ type: 'userInfo', userInfo: { name: 'a' } });
    assert.equal(ok.type, 'ok', JSON.stringify(ok));
    await b.control.next((f) => f.type === 'presence' && JSON.stringify(f).includes('"name":"a"'), 3_000);
  });

  it('d) a /peerjs OFFER with a 6,000-deep payload to a peer of the same shard is dropped, the server lives', async () => {
    const { server, a, b } = await pairOnChild('deep-peer');
    const peerA = cleanup.wire(await openPeer(server.url, a));
    const peerB = cleanup.wire(await openPeer(server.url, b));
    peerA.send(`{"type":"OFFER","dst":${JSON.stringify(b.peer.id)},"payload":${deepPayload(6_000)}}`);
    await exitOrTimeout(server, 500);
    await assertAlive(server, 'after a 6,000-deep peerjs OFFER to a peer of the same shard');
    // Dropped silently: b never gets it, a's socket stays open and its next OFFER goes through.
    peerA.send(JSON.stringify({ type: 'OFFER', dst: b.peer.id, payload: { sdp: 'small' } }));
    const offer = await peerB.next((f) => f.type === 'OFFER', 3_000);
    assert.deepEqual(offer['payload'], { sdp: 'small' });
    assert.equal(offer['src'], a.peer.id);
    assert.equal(peerB.frames.filter((f) => f.type === 'OFFER').length, 0, 'the deep OFFER was never forwarded');
  });

  it('e) on a Redis node, a /peerjs OFFER 6,000 deep to a peer id that does not exist is dropped, the node lives', { skip: skipRedis }, async () => {
    const redis = await RedisProcess.start();
    cleanup.defer(() => redis.stop());
    const server = await ServerProcess.start(['--redis', redis.url, '--secret-key', SHARED_KEY, '--node-id', 'hostile-e']);
    cleanup.defer(() => server.stop());
    const a = cleanup.member(await joinMember(server.url, 'deep-remote'));
    const b = cleanup.member(await joinMember(server.url, 'deep-remote'));
    const peerA = cleanup.wire(await openPeer(server.url, a));
    const peerB = cleanup.wire(await openPeer(server.url, b));
    peerA.send(`{"type":"OFFER","dst":"no-such-peer-id","payload":${deepPayload(6_000)}}`);
    await exitOrTimeout(server, 500);
    await assertAlive(server, 'after a 6,000-deep peerjs OFFER to an unknown peer id on a Redis node');
    peerA.send(JSON.stringify({ type: 'OFFER', dst: b.peer.id, payload: { sdp: 'small' } }));
    assert.deepEqual((await peerB.next((f) => f.type === 'OFFER', 3_000))['payload'], { sdp: 'small' });
  });

  it('the bin flag --max-json-depth sets limits.maxJsonDepth: a 12-deep emit is refused with --max-json-depth 8', async () => {
    const server = await ServerProcess.start(['--max-json-depth', '8']);
    cleanup.defer(() => server.stop());
    const a = cleanup.member(await joinMember(server.url, 'flag'));
    const b = cleanup.member(await joinMember(server.url, 'flag'));
    const answer = await sendAndAwaitError(server, a.control, emitText(1, deepPayload(11)));
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer));
    a.control.send(emitText(2, deepPayload(4)));
    assert.equal((await b.control.next(isEvent, 3_000))['seq'], 2);
  });
});

// ─── clients that never read, floods ───────────────────────────────────────

describe('hostile input: floods from clients that never read (server in a child process)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  async function childServer(): Promise<ServerProcess> {
    const server = await ServerProcess.start();
    cleanup.defer(() => server.stop());
    return server;
  }

  /** The verdict of a flood: bounded RSS and the flooding sockets closed, in one message with both facts. */
  async function assertContained(server: ServerProcess, watch: RssWatch, flooders: readonly Wire[], what: string, sent: number): Promise<void> {
    // Read again: a close (4029) the server sent meanwhile arrives behind whatever it had queued.
    const closes = await Promise.all(flooders.map((wire) => wire.closeWithin(4_000)));
    watch.stop();
    await assertAlive(server, `after ${what}`);
    const verdict = `${what}: ${sent} frames sent in ${FLOOD_MS} ms; ${watch.describe()}; flooding socket(s) ${closes.map(describeClose).join(', ')}`;
    assert.ok(watch.growthBytes < RSS_BOUND_BYTES && closes.every(isFloodClose), verdict);
  }

  it('a joined client that never reads and floods emits past the rate limit is closed (4029) and the RSS stays bounded', async () => {
    const server = await childServer();
    const a = cleanup.member(await joinMember(server.url, 'flood-emit'));
    cleanup.member(await joinMember(server.url, 'flood-emit'));
    const watch = new RssWatch(server.pid);
    a.control.pause();
    const { sent } = await floodFor(a.control, (i) => `{"type":"emit","seq":${i + 1},"name":"f","payload":{"i":${i}},"ts":0}`, { ms: FLOOD_MS, maxFrames: 5_000_000 });
    await assertContained(server, watch, [a.control], 'a non-reader flooding emits', sent);
  });

  it('joined clients that never read and flood info (1,000 shards to list) are closed and the RSS stays bounded', async () => {
    const server = await childServer();
    // 1,000 shards with long names, one member each, from 20 addresses (50 new shards each).
    const members = await inBatches(1_000, 40, async (i) =>
      cleanup.member(
        await joinMember(server.url, `shard-${String(i).padStart(4, '0')}-${'x'.repeat(48)}`, { clientOptions: { localAddress: `127.0.0.${10 + (i % 20)}` }, record: false }),
      ),
    );
    const flooders = members.slice(0, 10).map((member) => member.control);
    const watch = new RssWatch(server.pid);
    for (const wire of flooders) wire.pause();
    const results = await Promise.all(flooders.map((wire) => floodFor(wire, (i) => `{"type":"info","id":${i + 1}}`, { ms: FLOOD_MS, maxFrames: 2_000_000 })));
    await assertContained(
      server,
      watch,
      flooders,
      '10 non-readers flooding info over 1,000 shards',
      results.reduce((sum, r) => sum + r.sent, 0),
    );
  });

  it('a never-joined socket that never reads and floods emits (each answered NOT_CONNECTED) is closed (4029) and the RSS stays bounded', async () => {
    const server = await childServer();
    const wire = cleanup.wire(controlWire(server.url, { record: false }));
    await wire.opened;
    const watch = new RssWatch(server.pid);
    wire.pause();
    const { sent } = await floodFor(wire, (i) => `{"type":"emit","seq":${i + 1},"name":"f","payload":{},"ts":0}`, { ms: FLOOD_MS, maxFrames: 5_000_000 });
    await assertContained(server, watch, [wire], 'a never-joined non-reader flooding emits', sent);
  });

  it('a peer flooding 64 KB OFFERs at a peer of its shard that never reads is closed (4029) and the RSS stays bounded', async () => {
    const server = await childServer();
    const a = cleanup.member(await joinMember(server.url, 'peer-flood'));
    const b = cleanup.member(await joinMember(server.url, 'peer-flood'));
    const peerA = cleanup.wire(await openPeer(server.url, a, { record: false }));
    const peerB = cleanup.wire(await openPeer(server.url, b, { record: false }));
    const head = `{"type":"OFFER","dst":${JSON.stringify(b.peer.id)},"payload":{"sdp":"`;
    const offer = Buffer.from(head + 'x'.repeat(65_000 - head.length - 3) + '"}}');
    assert.ok(offer.length <= 64 * 1024);
    const watch = new RssWatch(server.pid);
    peerB.pause();
    const { sent } = await floodFor(peerA, () => offer, { ms: FLOOD_MS, maxFrames: 200_000, highWaterBytes: 8 * MB });
    // The flooder reads: it hears its close at once. b is only resumed so the runner can let go of it.
    const closedA = await peerA.closeWithin(3_000);
    peerB.resume();
    watch.stop();
    await assertAlive(server, 'after a peerjs OFFER flood at a non-reader');
    assert.ok(
      watch.growthBytes < RSS_BOUND_BYTES && closedA !== null && closedA.code === 4029 && closedA.reason.startsWith('RATE_LIMITED'),
      `${sent} OFFERs of 64 KB sent in ${FLOOD_MS} ms; ${watch.describe()}; the flooding peer ${describeClose(closedA)}`,
    );
  });

  it('peer messages queued for 60 peers whose socket is not open (64 x 64 KB each) stay bounded, and the sender hears EXPIRE', async () => {
    const server = await childServer();
    const a = cleanup.member(await joinMember(server.url, 'queue-flood'));
    const targets = await inBatches(60, 20, async () => cleanup.member(await joinMember(server.url, 'queue-flood', { record: false })));
    const peerA = cleanup.wire(await openPeer(server.url, a));
    const offers = targets.map((target) => {
      const head = `{"type":"OFFER","dst":${JSON.stringify(target.peer.id)},"payload":{"sdp":"`;
      return Buffer.from(head + 'x'.repeat(65_000 - head.length - 3) + '"}}');
    });
    const watch = new RssWatch(server.pid);
    // The sender reads (it must hear EXPIRE): bounded by count (64 per peer) and by 6 s.
    const { sent } = await floodFor(peerA, (i) => offers[i % offers.length]!, { ms: 6_000, maxFrames: 64 * offers.length, highWaterBytes: 8 * MB });
    // Before the 5 s expiry of queued messages: any EXPIRE now is the cap's.
    await sleep(500);
    watch.stop();
    await assertAlive(server, 'after queueing OFFERs for 60 absent peers');
    const expired = peerA.frames.filter((f) => f.type === 'EXPIRE');
    assert.ok(
      watch.growthBytes < RSS_BOUND_BYTES && (expired.length > 0 || peerA.closedWith?.code === 4029),
      `${sent} OFFERs of 64 KB to 60 absent peers (of ${64 * offers.length}); ${watch.describe()}; the sender heard ${expired.length} EXPIRE and ${describeClose(peerA.closedWith)}`,
    );
    const targetIds = new Set(targets.map((t) => t.peer.id));
    assert.ok(
      expired.every((f) => targetIds.has(f['src'] as string)),
      `EXPIRE names the destination as src: ${JSON.stringify(expired.slice(0, 3))}`,
    );
  });
});

// ─── limits (in-process server) ────────────────────────────────────────────

/** An OFFER to `dst` of about `bytes` characters, numbered `n`. */
function offerText(dst: string, bytes: number, n = 0): string {
  const head = `{"type":"OFFER","dst":${JSON.stringify(dst)},"payload":{"n":${n},"sdp":"`;
  return head + 'x'.repeat(Math.max(0, bytes - head.length - 3)) + '"}}';
}

/** Opens the target's peer socket on the server at `url` and collects the OFFERs that were queued for it. */
async function drainOffers(cleanup: Cleanup, url: string, target: Member): Promise<Frame[]> {
  const wire = cleanup.wire(await openPeer(url, target));
  await sleep(300);
  return wire.frames.filter((f) => f.type === 'OFFER');
}

/** Characters of the frames, as their sender's queue counted them (near enough: the forwarded text). */
const frameChars = (frames: readonly Frame[]): number => frames.reduce((sum, f) => sum + JSON.stringify(f).length, 0);

/** Resolves once `count` sockets joined or were refused; the answers in order. */
async function joinMany(server: SignalingServer, cleanup: Cleanup, names: readonly string[], address: string): Promise<Frame[]> {
  const answers: Frame[] = [];
  for (const shardName of names) {
    const wire = cleanup.wire(controlWire(server.url, { clientOptions: { localAddress: address } }));
    answers.push(await wire.join({ shardName }));
  }
  return answers;
}

/**
 * One in-process server for the tests of a describe block: started before them, closed after
 * them with whatever they opened (`cleanup`). `server` throws when read outside a test.
 */
function serverForSuite(options: Partial<SignalingServerOptions> = {}): { readonly cleanup: Cleanup; readonly server: SignalingServer; readonly url: string } {
  const cleanup = new Cleanup();
  let server: SignalingServer | undefined;
  before(async () => (server = await startServer(options)));
  after(async () => {
    await cleanup.run();
    await server?.close();
  });
  return {
    cleanup,
    get server(): SignalingServer {
      if (!server) throw new Error('the suite server is read before its before hook ran');
      return server;
    },
    get url(): string {
      return this.server.url;
    },
  };
}

describe('hostile input: refusals, depth and peer limits', () => {
  const suite = serverForSuite();
  const cleanup = suite.cleanup;

  it('a client refused more than maxRefusals (30) times in a burst is closed 4029 RATE_LIMITED; one refused 20 times stays', async () => {
    const noisy = cleanup.member(await joinMember(suite.url, 'refusals'));
    const calm = cleanup.member(await joinMember(suite.url, 'refusals'));
    for (let i = 0; i < 20; i++) calm.control.send('{"type":"no-such-type"}');
    for (let i = 0; i < 60; i++) noisy.control.send('{"type":"no-such-type"}');
    const closed = await noisy.control.closeWithin(3_000);
    assert.ok(closed !== null && closed.code === 4029 && closed.reason.startsWith('RATE_LIMITED'), `60 malformed frames: the socket ${describeClose(closed)}`);
    await sleep(300);
    assert.ok(calm.control.isOpen, '20 malformed frames: still connected');
    const pong = await calm.control.request({ type: 'ping', c: 1 });
    assert.equal(pong.type, 'pong', 'and still answered');
  });

  it('control frames deeper than maxJsonDepth (64) are refused INVALID_MESSAGE and the socket stays open; 32 deep are relayed', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'depth'));
    const b = cleanup.member(await joinMember(suite.url, 'depth'));
    const refused = a.control.next((f) => f.type === 'error', 3_000);
    a.control.send(emitText(1, deepPayload(100)));
    assert.equal(errorCode(await refused), 'INVALID_MESSAGE');
    // Refused before it is parsed: the answer need not carry the request's id.
    const info = a.control.next((f) => f.type === 'error', 3_000);
    a.control.send(`{"type":"userInfo","id":9,"userInfo":${deepPayload(100)}}`);
    assert.equal(errorCode(await info), 'INVALID_MESSAGE');
    a.control.send(emitText(2, deepPayload(30)));
    const event = await b.control.next(isEvent, 3_000);
    assert.equal(event['seq'], 2);
    assert.equal(b.control.frames.filter(isEvent).length, 0, 'the deep event never reached b');
    assert.ok(a.control.isOpen);
  });

  it('a handshake join (v2) whose userInfo nests deeper than maxJsonDepth is refused INVALID_MESSAGE', async () => {
    const join: JoinMessage = {
      type: 'join',
      v: SIGNALING_VERSION,
      id: 1,
      projectId: PROJECT,
      kind: 'browser',
      shardName: 'depth-handshake',
      userInfo: JSON.parse(deepPayload(100)) as NonNullable<JoinMessage['userInfo']>,
    };
    const protocols = encodeHandshakeJoin(join);
    assert.ok(protocols, 'fits in the handshake');
    const wire = cleanup.wire(controlWire(suite.url, { protocols }));
    const answer = await wire.next((f) => f['id'] === 1 || f.type === 'error', 3_000);
    assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(answer).slice(0, 300));
  });

  it('a /peerjs frame deeper than maxJsonDepth is dropped silently; the socket stays open', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'depth-peer'));
    const b = cleanup.member(await joinMember(suite.url, 'depth-peer'));
    const peerA = cleanup.wire(await openPeer(suite.url, a));
    const peerB = cleanup.wire(await openPeer(suite.url, b));
    peerA.send(`{"type":"OFFER","dst":${JSON.stringify(b.peer.id)},"payload":${deepPayload(100)}}`);
    peerA.send(JSON.stringify({ type: 'OFFER', dst: b.peer.id, payload: { n: 2 } }));
    const first = await peerB.next((f) => f.type === 'OFFER', 3_000);
    assert.deepEqual(first['payload'], { n: 2 }, 'the first OFFER b hears is the shallow one');
    assert.ok(peerA.isOpen);
  });

  it('an HTTP body deeper than maxJsonDepth is refused with 400, even with valid credentials and fields', async () => {
    const { token } = await suite.server.issueUserToken(PROJECT, 'alice');
    const headers = { 'x-platform-project-id': PROJECT, authorization: `Bearer ${TOKEN}` };
    const shallow = await httpPost(suite.url, '/services/identity/verify', JSON.stringify({ token }), headers);
    assert.ok('status' in shallow && shallow.status === 200, JSON.stringify(shallow));
    const deep = await httpPost(suite.url, '/services/identity/verify', `{"token":${JSON.stringify(token)},"x":${deepArray(100)}}`, headers);
    assert.ok('status' in deep && deep.status === 400, `a 100-deep body: ${JSON.stringify(deep).slice(0, 300)}`);
  });

  it('a /peerjs socket over maxPeerMessagesPerSecond (200, burst 400) has frames dropped and is closed 4029', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'peer-rate'));
    const b = cleanup.member(await joinMember(suite.url, 'peer-rate'));
    const peerA = cleanup.wire(await openPeer(suite.url, a));
    const peerB = cleanup.wire(await openPeer(suite.url, b, { record: false }));
    const candidate = JSON.stringify({ type: 'CANDIDATE', dst: b.peer.id, payload: { candidate: 'c' } });
    const start = Date.now();
    for (let i = 0; i < 1_500; i++) peerA.send(candidate);
    const closed = await peerA.closeWithin(3_000);
    await sleep(200);
    const elapsedS = (Date.now() - start) / 1000;
    const candidates = peerB.received - 1; // its OPEN
    assert.ok(candidates <= 400 + 200 * elapsedS + 20, `b received ${candidates} of 1,500 CANDIDATEs in ${elapsedS.toFixed(1)} s`);
    assert.ok(closed !== null && closed.code === 4029 && closed.reason.startsWith('RATE_LIMITED'), `the flooding peer ${describeClose(closed)}`);
  });

  it('a /peerjs frame costs a token plus one per KiB: of 60 OFFERs of 30 KiB few pass and the socket is closed 4029, while 60 small ones all pass', async () => {
    const big = cleanup.member(await joinMember(suite.url, 'peer-bytes'));
    const small = cleanup.member(await joinMember(suite.url, 'peer-bytes'));
    const target = cleanup.member(await joinMember(suite.url, 'peer-bytes'));
    const peerBig = cleanup.wire(await openPeer(suite.url, big));
    const peerSmall = cleanup.wire(await openPeer(suite.url, small));
    const peerTarget = cleanup.wire(await openPeer(suite.url, target));
    const start = Date.now();
    for (let i = 0; i < 60; i++) {
      peerSmall.send(offerText(target.peer.id, 200, i));
      peerBig.send(offerText(target.peer.id, 30 * 1024, i));
    }
    const closedBig = await peerBig.closeWithin(2_000);
    await sleep(200);
    const elapsedS = (Date.now() - start) / 1000;
    const heardFrom = (peer: { id: string }): number => peerTarget.frames.filter((f) => f.type === 'OFFER' && f['src'] === peer.id).length;
    // 30 KiB costs 31 tokens of a burst of 400 refilled at 200/s; one per frame would let all 60 through.
    const allowed = Math.floor((400 + 200 * elapsedS) / 31) + 1;
    assert.ok(heardFrom(big.peer) <= allowed, `the target heard ${heardFrom(big.peer)} of 60 OFFERs of 30 KiB in ${elapsedS.toFixed(1)} s (at most ${allowed} by bytes)`);
    assert.ok(closedBig !== null && closedBig.code === 4029 && closedBig.reason.startsWith('RATE_LIMITED'), `the sender of large OFFERs ${describeClose(closedBig)}`);
    assert.equal(heardFrom(small.peer), 60, 'every small OFFER went through');
    assert.ok(peerSmall.isOpen, 'the sender of small OFFERs stays connected');
  });
});

describe('hostile input: queued peer messages (in-process server)', () => {
  const suite = serverForSuite();
  const cleanup = suite.cleanup;

  const offer = offerText;
  const expireFor = (dst: string) => (f: Frame) => f.type === 'EXPIRE' && f['src'] === dst;
  const drain = (target: Member): Promise<Frame[]> => drainOffers(cleanup, suite.url, target);

  it('at most 64 messages wait for one peer; the 65th is dropped and its sender hears EXPIRE at once', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'q-count'));
    const target = cleanup.member(await joinMember(suite.url, 'q-count'));
    const peerA = cleanup.wire(await openPeer(suite.url, a));
    for (let i = 0; i < 70; i++) peerA.send(offer(target.peer.id, 100, i));
    const expire = await peerA.maybeNext(expireFor(target.peer.id), 1_500);
    assert.ok(expire, 'the sender heard EXPIRE for the target within 1.5 s (not after the 5 s expiry)');
    const delivered = await drain(target);
    assert.ok(delivered.length <= 64 && delivered.length > 0, `${delivered.length} queued OFFERs delivered`);
  });

  it('at most 128 KiB wait for one peer', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'q-bytes'));
    const target = cleanup.member(await joinMember(suite.url, 'q-bytes'));
    const peerA = cleanup.wire(await openPeer(suite.url, a));
    for (let i = 0; i < 4; i++) peerA.send(offer(target.peer.id, 60_000, i));
    assert.ok(await peerA.maybeNext(expireFor(target.peer.id), 1_500), 'the sender heard EXPIRE');
    const delivered = await drain(target);
    const bytes = frameChars(delivered);
    assert.ok(bytes <= 128 * 1024 && delivered.length >= 1, `${delivered.length} OFFERs, ${bytes} bytes delivered`);
  });

  it('at most 256 KiB wait from one sender across peers', async () => {
    const a = cleanup.member(await joinMember(suite.url, 'q-sender'));
    const targets = await inBatches(6, 6, async () => cleanup.member(await joinMember(suite.url, 'q-sender')));
    const peerA = cleanup.wire(await openPeer(suite.url, a));
    for (const [i, target] of targets.entries()) peerA.send(offer(target.peer.id, 60_000, i));
    const expired = await peerA.maybeNext((f) => f.type === 'EXPIRE', 1_500);
    assert.ok(expired, 'the sender heard EXPIRE once over 256 KiB');
    let bytes = 0;
    for (const target of targets) for (const f of await drain(target)) bytes += JSON.stringify(f).length;
    assert.ok(bytes <= 256 * 1024, `${bytes} bytes delivered from one sender`);
  });

  it('at most 1 MiB waits in one shard', async () => {
    const senders = await inBatches(6, 6, async () => cleanup.member(await joinMember(suite.url, 'q-shard')));
    const targets = await inBatches(24, 12, async () => cleanup.member(await joinMember(suite.url, 'q-shard')));
    const peers = await Promise.all(senders.map((sender) => openPeer(suite.url, sender)));
    for (const wire of peers) cleanup.wire(wire);
    // Each sender: 4 OFFERs of 60 KB to 4 peers of its own (within 128 KiB per peer and 256 KiB per sender); 1.44 MB in all.
    for (const [s, wire] of peers.entries()) for (let t = 0; t < 4; t++) wire.send(offer(targets[s * 4 + t]!.peer.id, 60_000, t));
    await sleep(500);
    const expired = peers.reduce((sum, wire) => sum + wire.frames.filter((f) => f.type === 'EXPIRE').length, 0);
    const delivered = (await Promise.all(targets.map(drain))).flat();
    const bytes = frameChars(delivered);
    assert.ok(bytes <= 1024 * 1024 && expired > 0, `${bytes} bytes delivered to the shard's absent peers; ${expired} EXPIRE heard`);
  });
});

describe('hostile input: peer messages across nodes (two in-process nodes on a real Redis)', { skip: skipRedis }, () => {
  const cleanup = new Cleanup();
  /** The nodes' PeerJS rate (twice the default): a burst of 800 tokens, room for a dozen 46 KiB OFFERs. */
  const PEER_RATE = 400;
  let redis: RedisProcess | undefined;
  let nodeA: SignalingServer;
  let nodeB: SignalingServer;
  before(async () => {
    redis = await RedisProcess.start();
    const node = (nodeId: string): Promise<SignalingServer> => startServer({ redis: redis!.url, nodeId, secretKey: SHARED_KEY, limits: { maxPeerMessagesPerSecond: PEER_RATE } });
    nodeA = await node('hostile-a');
    cleanup.defer(() => nodeA.close());
    nodeB = await node('hostile-b');
    cleanup.defer(() => nodeB.close());
  });
  after(async () => {
    await cleanup.run();
    await redis?.stop();
  });

  it('OFFERs of 30 KiB to a peer id no node holds are bounded by bytes: few reach Redis and the sender is closed 4029', async () => {
    const unknown = `no-such-peer-${Date.now().toString(36)}`;
    const listener = new Redis(redis!.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    cleanup.defer(() => listener.disconnect());
    let published = 0;
    listener.on('pmessage', (_pattern: string, _channel: string, message: string) => {
      if (message.includes(unknown)) published++;
    });
    await listener.connect();
    await listener.psubscribe('*');
    const a = cleanup.member(await joinMember(nodeA.url, 'unknown-dst'));
    const peerA = cleanup.wire(await openPeer(nodeA.url, a));
    const frame = offerText(unknown, 30 * 1024);
    const { sent, ms } = await floodFor(peerA, () => frame, { ms: 1_500, maxFrames: 300, highWaterBytes: 4 * MB });
    const closed = await peerA.closeWithin(2_000);
    await sleep(300);
    // 31 tokens a frame: the burst (800) and 1.5 s of refill pass a few dozen; one per frame would pass all 300.
    const allowed = Math.floor((2 * PEER_RATE + PEER_RATE * (ms / 1000 + 0.5)) / 31) + 1;
    assert.ok(published <= allowed, `${published} of ${sent} OFFERs of 30 KiB to an unknown peer id were published on Redis (at most ${allowed} by bytes)`);
    assert.ok(closed !== null && closed.code === 4029 && closed.reason.startsWith('RATE_LIMITED'), `the sender ${describeClose(closed)}`);
  });

  it('at most 256 KiB wait from one sender across peers on each node: on its own node the sender hears EXPIRE beyond it; on another node the rest is dropped', async () => {
    const shardName = 'q-sender-nodes';
    const sender = cleanup.member(await joinMember(nodeA.url, shardName));
    const local = await inBatches(6, 6, async () => cleanup.member(await joinMember(nodeA.url, shardName)));
    const remote = await inBatches(6, 6, async () => cleanup.member(await joinMember(nodeB.url, shardName)));
    const peer = cleanup.wire(await openPeer(nodeA.url, sender));
    // 6 x 46 KiB to peers of each node whose sockets are not open: 276 KiB, over the 256 KiB a sender may have waiting.
    for (const [i, target] of [...local, ...remote].entries()) peer.send(offerText(target.peer.id, 46 * 1024, i));
    const localIds = new Set(local.map((target) => target.peer.id));
    const expired = await peer.maybeNext((f) => f.type === 'EXPIRE' && localIds.has(f['src'] as string), 1_500);
    assert.ok(expired, 'the sender heard EXPIRE for a peer of its own node');
    const onA = frameChars((await Promise.all(local.map((target) => drainOffers(cleanup, nodeA.url, target)))).flat());
    const onB = frameChars((await Promise.all(remote.map((target) => drainOffers(cleanup, nodeB.url, target)))).flat());
    assert.ok(onA <= 256 * 1024 && onA > 0, `${onA} characters from one sender waited on its own node`);
    assert.ok(onB <= 256 * 1024 && onB > 0, `${onB} characters from one sender on another node waited on node B`);
  });
});

describe('hostile input: sockets that never join or never close (in-process server)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('maxUnjoinedSocketsPerAddress: the next upgrade from an address holding that many unjoined control sockets is answered HTTP 429; a join frees a place; other addresses are unaffected', async () => {
    const server = await startServer({ limits: { maxUnjoinedSocketsPerAddress: 4 } });
    cleanup.defer(() => server.close());
    const from = (address: string): Wire => cleanup.wire(controlWire(server.url, { clientOptions: { localAddress: address } }));
    const idle = Array.from({ length: 4 }, () => from('127.0.0.41'));
    await Promise.all(idle.map((wire) => wire.opened));
    await assert.rejects(from('127.0.0.41').opened, /HTTP 429/, 'the fifth unjoined socket from one address');
    assert.equal(server.metrics().upgradesRefused, 1);
    await from('127.0.0.42').opened;
    assert.equal((await idle[0]!.join({ shardName: 'unjoined' })).type, 'joined');
    await from('127.0.0.41').opened;
  });

  it('a socket the server closes (4029 on /dispatch, ID-TAKEN on /peerjs) whose client never answers the close frame is terminated within about a second, not 30 s', async () => {
    const server = await startServer();
    cleanup.defer(() => server.close());
    const control = await rawUpgrade(server.url, CONTROL_PATH);
    cleanup.defer(() => control.socket.destroy());
    const peer = await rawUpgrade(server.url, `${PEERJS_PATH}peerjs?key=${PEERJS_KEY}&id=made-up&token=made-up&version=1.5.5`);
    cleanup.defer(() => peer.socket.destroy());
    assert.match(control.status, / 101 /);
    assert.match(peer.status, / 101 /);
    const controlEnd = watchUnansweredClose(control, 3_000);
    const peerEnd = watchUnansweredClose(peer, 3_000);
    // 60 unknown frames: past the 30 refusals, the server closes with 4029.
    for (let i = 0; i < 60; i++) control.socket.write(wsFrame(1, Buffer.from('{"type":"no-such-type"}')));
    const [controlClose, peerClose] = await Promise.all([controlEnd, peerEnd]);
    assert.equal(controlClose.code, 4029, 'the control socket got a 4029 close frame');
    assert.ok(controlClose.endedAfterMs !== null && controlClose.endedAfterMs < 2_000, `the control socket ${describeEnd(controlClose)}`);
    assert.equal(peerClose.code, 1000, 'the refused peer socket got a close frame');
    assert.ok(peerClose.endedAfterMs !== null && peerClose.endedAfterMs < 2_000, `the refused peer socket ${describeEnd(peerClose)}`);
  });
});

describe('hostile input: shards, capacity and info (in-process server)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('shard spam: one address opens at most 100 new shards a minute (maxShardsPerAddressPerMinute), then RATE_LIMITED; existing shards and other addresses are unaffected', async () => {
    const server = await startServer();
    cleanup.defer(() => server.close());
    // The allowance refills one shard every 600 ms while the spam goes on, and a busy machine makes
    // the spam slow: what holds at any speed is that by the k-th answer, at most 100 + (time since
    // the first join) / 600 ms shards were opened, and that a fresh address gets its whole 100.
    // The spam goes on until 10 refusals (at most 400 joins), so a server without the limit fails
    // however slow the run: 400 opened shards would take 3 minutes of refill.
    const emissionMs = 60_000 / 100;
    const start = performance.now();
    let joined = 0;
    let limited = 0;
    for (let i = 0; i < 400 && limited < 10; i++) {
      const [answer] = await joinMany(server, cleanup, [`spam-${i}`], '127.0.0.5');
      const elapsedMs = performance.now() - start;
      if (answer!.type === 'joined') joined++;
      else if (errorCode(answer) === 'RATE_LIMITED') limited++;
      else assert.fail(`new shard ${i} from one address: neither joined nor RATE_LIMITED: ${JSON.stringify(answer)}`);
      const allowed = 100 + Math.floor(elapsedMs / emissionMs);
      assert.ok(joined <= allowed, `${joined} new shards opened from one address within ${Math.round(elapsedMs)} ms: at most ${allowed} may be`);
      if (i < 100) assert.equal(answer!.type, 'joined', `new shard ${i} of a fresh address's 100: ${JSON.stringify(answer)}`);
    }
    assert.equal(limited, 10, `${joined} new shards opened from one address, only ${limited} RATE_LIMITED`);
    // Joining a shard that exists opens nothing; another address opens its own.
    assert.equal((await joinMany(server, cleanup, ['spam-0'], '127.0.0.5'))[0]!.type, 'joined');
    assert.equal((await joinMany(server, cleanup, ['spam-other'], '127.0.0.6'))[0]!.type, 'joined');
  });

  it('shard spam from 10 addresses cannot lock the project out with TOO_MANY_SHARDS', async () => {
    const server = await startServer({ limits: { maxShardsPerProject: 60, maxShardsPerAddressPerMinute: 5 } });
    cleanup.defer(() => server.close());
    const answers = (
      await Promise.all(
        Array.from({ length: 10 }, (_, a) =>
          joinMany(
            server,
            cleanup,
            Array.from({ length: 8 }, (_, i) => `lock-${a}-${i}`),
            `127.0.0.${20 + a}`,
          ),
        ),
      )
    ).flat();
    const joined = answers.filter((f) => f.type === 'joined').length;
    const honest = (await joinMany(server, cleanup, ['honest-room'], '127.0.0.254'))[0]!;
    assert.equal(honest.type, 'joined', `after 80 spam joins (${joined} opened a shard), an honest join: ${JSON.stringify(honest)}`);
  });

  it('capacity squatting: a first joiner asking 1 does not make a named shard full for later joiners asking the default', async () => {
    const server = await startServer();
    cleanup.defer(() => server.close());
    cleanup.member(await joinMember(server.url, 'lobby', {}, { maxConnectionsPerShard: 1 }));
    const later = cleanup.wire(controlWire(server.url));
    const answer = await later.join({ shardName: 'lobby' });
    assert.equal(answer.type, 'joined', `a later joiner of lobby: ${JSON.stringify(answer)}`);
  });

  it('capacity: each joiner still counts its own maxConnectionsPerShard (a third player asking 2 is SHARD_FULL)', async () => {
    const server = await startServer();
    cleanup.defer(() => server.close());
    cleanup.member(await joinMember(server.url, 'duel', {}, { maxConnectionsPerShard: 2 }));
    cleanup.member(await joinMember(server.url, 'duel', {}, { maxConnectionsPerShard: 2 }));
    const third = cleanup.wire(controlWire(server.url));
    assert.equal(errorCode(await third.join({ shardName: 'duel', maxConnectionsPerShard: 2 })), 'SHARD_FULL');
  });

  for (const [name, project] of [
    ['shardSizeCeiling', { token: TOKEN, shardSizeCeiling: 3 }],
    ['maxConnectionsPerShard (its earlier name)', { token: TOKEN, maxConnectionsPerShard: 3 }],
  ] as const) {
    it(`capacity: the project's ceiling (${name}) lowers what a joiner asks for`, async () => {
      const server = await startServer({ projects: { [PROJECT]: project } });
      cleanup.defer(() => server.close());
      for (let i = 0; i < 3; i++) cleanup.member(await joinMember(server.url, 'capped'));
      const fourth = cleanup.wire(controlWire(server.url));
      const answer = await fourth.join({ shardName: 'capped' });
      assert.equal(errorCode(answer), 'SHARD_FULL', `a fourth joiner asking the default 100: ${JSON.stringify(answer).slice(0, 200)}`);
    });
  }

  describe('info over 111 shards', () => {
    let server: SignalingServer;
    let asker: Member;
    before(async () => {
      server = await startServer();
      cleanup.defer(() => server.close());
      // 110 shards of one member with 64-character names, from two addresses (55 new shards each), and one of 5 members.
      await inBatches(110, 20, async (i) =>
        cleanup.member(
          await joinMember(server.url, `i${String(i).padStart(3, '0')}-${'n'.repeat(59)}`, {
            clientOptions: { localAddress: i % 2 === 0 ? '127.0.0.2' : '127.0.0.3' },
            record: false,
          }),
        ),
      );
      for (let i = 0; i < 5; i++) cleanup.member(await joinMember(server.url, 'crowded', { clientOptions: { localAddress: '127.0.0.4' } }));
      asker = cleanup.member(await joinMember(server.url, 'crowded', { clientOptions: { localAddress: '127.0.0.4' } }));
    });

    it('info answers at most maxInfoShards (100) shards, those with the most room left first', async () => {
      const answer = await asker.control.request({ type: 'info' });
      const shards = answer['shards'] as { shardName: string; numConnectedClients: number }[];
      assert.ok(Array.isArray(shards), JSON.stringify(answer).slice(0, 300));
      assert.ok(shards.length <= 100 && shards.length > 0, `${shards.length} shards in one info answer`);
      assert.ok(!shards.some((s) => s.shardName === 'crowded'), 'the fullest shard is left out');
      for (let i = 1; i < shards.length; i++) assert.ok(shards[i - 1]!.numConnectedClients <= shards[i]!.numConnectedClients, 'emptiest first');
    });

    it('each info answer costs a message token per 4 KiB it takes (a burst of 150 requests gets far fewer than 100 answers)', async () => {
      const wire = cleanup.member(await joinMember(server.url, 'crowded', { clientOptions: { localAddress: '127.0.0.4' } })).control;
      const sizes: number[] = [];
      wire.ws.on('message', (data: RawData) => {
        const text = String(data);
        if (text.startsWith('{"type":"info"')) sizes.push(Buffer.byteLength(text));
      });
      const start = performance.now();
      // The first alone, from a full bucket: it is answered, and says what an answer costs.
      await wire.request({ type: 'info' });
      for (let i = 1; i < 150; i++) wire.send(`{"type":"info","id":${1000 + i}}`);
      await wire.closeWithin(1_500);
      const elapsedMs = performance.now() - start;
      const answerBytes = sizes[0] ?? 0;
      // A request costs a token at the door and one per 4 KiB of its answer. However the requests
      // arrive (one read or many: a busy machine batches them), what was answered was paid from
      // the burst of 100 and the refill of 50 a second over the time they took.
      const price = 1 + Math.floor(answerBytes / 4096);
      const affordable = Math.floor((100 + (elapsedMs * 50) / 1000) / price);
      assert.ok(price > 1, `an info answer of ${answerBytes} bytes`);
      assert.ok(
        sizes.length >= 1 && sizes.length <= affordable,
        `${sizes.length} info answers of ${answerBytes} bytes (${price} tokens each) to 150 requests in ${Math.round(elapsedMs)} ms: at most ${affordable} affordable`,
      );
    });
  });
});

describe('hostile input: who may join (in-process server)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());
  const GOOD = 'http://good.example';
  const EVIL = 'http://evil.example';

  async function originServer(): Promise<SignalingServer> {
    const server = await startServer({ projects: { [PROJECT]: { token: TOKEN, allowedOrigins: [GOOD] }, other: 'other-token' } });
    cleanup.defer(() => server.close());
    return server;
  }

  it('allowedOrigins: a browser join from another Origin is refused ORIGIN_REFUSED and closed 4003 (frame join and handshake join)', async () => {
    const server = await originServer();
    const byFrame = cleanup.wire(controlWire(server.url, { clientOptions: { origin: EVIL } }));
    const answer = await byFrame.join({ shardName: 'guarded' });
    assert.equal(errorCode(answer), 'ORIGIN_REFUSED', JSON.stringify(answer));
    assert.equal((await byFrame.closeWithin(2_000))?.code, 4003);

    const join: JoinMessage = { type: 'join', v: SIGNALING_VERSION, id: 1, projectId: PROJECT, kind: 'browser', shardName: 'guarded' };
    const byHandshake = cleanup.wire(controlWire(server.url, { protocols: encodeHandshakeJoin(join)!, clientOptions: { origin: EVIL } }));
    const handshakeAnswer = await byHandshake.next((f) => f['id'] === 1 || f.type === 'error', 3_000);
    assert.equal(errorCode(handshakeAnswer), 'ORIGIN_REFUSED', JSON.stringify(handshakeAnswer));
    assert.equal((await byHandshake.closeWithin(2_000))?.code, 4003);
  });

  it('allowedOrigins: a browser join from an allowed origin works; backend clients with the project token are not checked', async () => {
    const server = await originServer();
    const good = cleanup.wire(controlWire(server.url, { clientOptions: { origin: GOOD } }));
    assert.equal((await good.join({ shardName: 'guarded' })).type, 'joined');
    const backendFromAnywhere = cleanup.wire(controlWire(server.url, { clientOptions: { origin: EVIL } }));
    const answer = await backendFromAnywhere.join({ shardName: 'guarded', kind: 'backend', projectToken: TOKEN });
    assert.equal(answer.type, 'joined', JSON.stringify(answer));
    // Another project without allowedOrigins takes any origin.
    const open = cleanup.wire(controlWire(server.url, { clientOptions: { origin: EVIL } }));
    assert.equal((await open.join({ projectId: 'other', shardName: 'anywhere' })).type, 'joined');
  });

  it('allowedOrigins: a browser join with no Origin header at all is refused too', async () => {
    const server = await originServer();
    const bare = cleanup.wire(controlWire(server.url));
    const answer = await bare.join({ shardName: 'guarded' });
    assert.equal(errorCode(answer), 'ORIGIN_REFUSED', JSON.stringify(answer));
  });

  it('backendJoinsFromLoopbackOnly: a backend join with the (public) project token from another address is refused FORBIDDEN and closed 4001; from loopback it joins', async () => {
    // One proxy in front (trustProxy 1): the address is the X-Forwarded-For entry it appended.
    const server = await startServer({ trustProxy: 1, projects: { [PROJECT]: { token: TOKEN, backendJoinsFromLoopbackOnly: true }, other: 'other-token' } });
    cleanup.defer(() => server.close());
    const afar = { headers: { 'x-forwarded-for': '203.0.113.9' } };
    const byFrame = cleanup.wire(controlWire(server.url, { clientOptions: afar }));
    const answer = await byFrame.join({ shardName: 'ops', kind: 'backend', projectToken: TOKEN });
    assert.equal(errorCode(answer), 'FORBIDDEN', JSON.stringify(answer));
    assert.equal((await byFrame.closeWithin(2_000))?.code, 4001);
    // (A join with a project token never travels in the handshake: encodeHandshakeJoin keeps secrets out of headers.)

    // A client that writes 127.0.0.1 on the left of the header is still the address the proxy appended.
    const forged = cleanup.wire(controlWire(server.url, { clientOptions: { headers: { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' } } }));
    assert.equal(errorCode(await forged.join({ shardName: 'ops', kind: 'backend', projectToken: TOKEN })), 'FORBIDDEN');

    // From this machine, the backend joins; browsers from afar are not this option's business; other projects are unchanged.
    const local = cleanup.wire(controlWire(server.url, { clientOptions: { headers: { 'x-forwarded-for': '127.0.0.1' } } }));
    assert.equal((await local.join({ shardName: 'ops', kind: 'backend', projectToken: TOKEN })).type, 'joined');
    const browser = cleanup.wire(controlWire(server.url, { clientOptions: afar }));
    assert.equal((await browser.join({ shardName: 'ops' })).type, 'joined');
    const other = cleanup.wire(controlWire(server.url, { clientOptions: afar }));
    assert.equal((await other.join({ projectId: 'other', shardName: 'ops', kind: 'backend', projectToken: 'other-token' })).type, 'joined');
  });

  it('requireUserToken: a browser join without a user token is refused UNAUTHORIZED and closed; with one it joins identified', async () => {
    const server = await startServer({ projects: { [PROJECT]: { token: TOKEN, requireUserToken: true } } });
    cleanup.defer(() => server.close());
    const anonymous = cleanup.wire(controlWire(server.url));
    assert.equal(errorCode(await anonymous.join({ shardName: 'members-only' })), 'UNAUTHORIZED');
    assert.notEqual(await anonymous.closeWithin(2_000), null, 'the refused socket is closed');
    const { token } = await server.issueUserToken(PROJECT, 'alice');
    const alice = cleanup.wire(controlWire(server.url));
    const joined = await alice.join({ shardName: 'members-only', authorization: token });
    assert.equal(joined.type, 'joined', JSON.stringify(joined));
    assert.equal(joined['userId'], 'alice');
    const backendClient = cleanup.wire(controlWire(server.url));
    assert.equal((await backendClient.join({ shardName: 'members-only', kind: 'backend', projectToken: TOKEN })).type, 'joined');
  });

  it('requireUserToken: a browser join with an invalid or foreign user token is refused UNAUTHORIZED and closed', async () => {
    const server = await startServer({ projects: { [PROJECT]: { token: TOKEN, requireUserToken: true }, other: 'other-token' } });
    cleanup.defer(() => server.close());
    const { token: foreign } = await server.issueUserToken('other', 'mallory');
    for (const authorization of ['not-a-token', foreign, `${foreign.slice(0, -4)}AAAA`]) {
      const wire = cleanup.wire(controlWire(server.url));
      const answer = await wire.join({ shardName: 'members-only', authorization });
      assert.equal(errorCode(answer), 'UNAUTHORIZED', `authorization ${authorization.slice(0, 24)}…: ${JSON.stringify(answer).slice(0, 300)}`);
      assert.notEqual(await wire.closeWithin(2_000), null, 'the refused socket is closed');
    }
  });
});
