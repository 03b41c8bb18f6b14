// A deterministic fuzz of the signaling server's every door (TESTING.md, "Hostile input"):
// nesting depth from 1 to 10,000, prototype keys at every position of every client frame,
// wrong types, odd numbers, long strings, binary frames and invalid UTF-8, raw frames and
// handshakes built by hand, clients that never read, floods on control, PeerJS and HTTP.
// Generated from a seeded PRNG and fixed lists: a failing case is the same case every run.
//
// The server runs as a child process (signaling/bin.ts, default limits). After each group:
// the process still runs, GET /health answers, a fresh honest pair joins and exchanges an
// event, its RSS grew less than a bound, every frame the fuzzing sockets received was a
// well-formed server message, and none was an INTERNAL error (a handler that threw). A group
// that kills the server fails; the next group starts a new one. Every loop is bounded in
// count and time; the file runs in about 30 s on 2 cores.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { encodeHandshakeJoin, JOIN_SUBPROTOCOL_PREFIX, CONTROL_SUBPROTOCOL, parseServerMessage, SIGNALING_VERSION, type JoinMessage } from '../../protocol/signaling.js';
import {
  assertAlive,
  controlWire,
  deepArray,
  deepObjects,
  errorCode,
  floodFor,
  httpPost,
  inBatches,
  joinMember,
  jsonDepth,
  MB,
  openPeer,
  peerFrameProblem,
  peerWire,
  prng,
  PROTOTYPE_KEYS,
  rawUpgrade,
  RssWatch,
  ServerProcess,
  wsFrame,
  type Member,
  type Wire,
} from './hostile-support.js';
import { RedisProcess, SHARED_KEY, skipRedis } from './redis-support.js';
import { ADMIN_KEY, PROJECT, sleep, TOKEN, type Frame } from './signaling-support.js';

const SEED = 0x5eed_2026;
const RSS_BOUND_BYTES = 64 * MB;
/** Frames one fuzzing socket sends before a fresh one takes over: under every burst (refusals 30, messages 100). */
const FRAMES_PER_SOCKET = 20;
/** Deeper than this, a frame must be refused; at most {@link SHALLOW}, an emit must go through. */
const DEEP = 70;
const SHALLOW = 60;
/** What each non-reader of 'clients that never read' is sent: three times the server's buffer cap (8 MB), so kernel buffers cannot hide it. */
const DEAF_BYTES = 24 * MB;
/** The PeerJS members offering to the non-readers of that test: with ~200 KB a second each, the cap fills in seconds. */
const PEER_SENDERS = 24;
/** How long a barrier (a ping's pong, an EXPIRE) may take before the test calls it a hang. */
const BARRIER_GUARD_MS = 30_000;

let server: ServerProcess;
/** Every socket a group opened, terminated at its end. */
let open: Wire[] = [];
/** Problems seen by the fuzzing sockets in the current group. */
let problems: string[] = [];
/** Frames the fuzzing sockets of the current group sent, and answers (of any kind) they got: the fuzz reached the server. */
const tally = { sent: 0, answers: 0, errors: 0 };
let addressCounter = 0;

/** A loopback address of its own for each new fuzzing socket: no join or shard allowance runs out. */
const nextAddress = (): string => `127.0.${1 + (Math.floor(addressCounter / 250) % 200)}.${1 + (addressCounter++ % 250)}`;

function track<T extends Wire>(wire: T): T {
  open.push(wire);
  return wire;
}

/** Records what is wrong with a frame a control socket of the fuzz received. */
function checkControlFrame(frame: Frame, where: string): void {
  if (frame.type.startsWith('<')) return void problems.push(`${where}: a frame that is not JSON: ${JSON.stringify(frame).slice(0, 200)}`);
  if (parseServerMessage(frame) === null) problems.push(`${where}: a malformed server frame: ${JSON.stringify(frame).slice(0, 200)}`);
  if (errorCode(frame) === 'INTERNAL') problems.push(`${where}: INTERNAL (a handler threw): ${JSON.stringify(frame).slice(0, 200)}`);
}

/** A fuzzing control socket whose every received frame is checked. */
function fuzzWire(options: { protocols?: readonly string[]; where: string }): Wire {
  const wire = track(controlWire(server.url, { clientOptions: { localAddress: nextAddress() }, ...(options.protocols ? { protocols: options.protocols } : {}), record: false }));
  wire.ws.on('message', (data) => {
    let frame: Frame;
    try {
      frame = JSON.parse(String(data)) as Frame;
    } catch {
      frame = { type: '<not JSON>' };
    }
    if (typeof frame !== 'object' || frame === null || typeof frame.type !== 'string') frame = { type: '<not a frame>' };
    tally.answers++;
    if (frame.type === 'error') tally.errors++;
    checkControlFrame(frame, options.where);
  });
  return wire;
}

/** A server that runs: the current one, or a new one when a group killed it. */
async function liveServer(): Promise<ServerProcess> {
  if (server?.running) return server;
  await server?.stop();
  server = await ServerProcess.start();
  return server;
}

let watch: RssWatch | null = null;

/** Starts a group: a live server and an RSS watch on it. */
async function beginGroup(): Promise<RssWatch> {
  open = [];
  problems = [];
  Object.assign(tally, { sent: 0, answers: 0, errors: 0 });
  await liveServer();
  watch = new RssWatch(server.pid);
  return watch;
}

/** Fails the group at once when the server died (with how it ended and its last output). */
async function stillRunning(group: string): Promise<void> {
  if (!server.running) await assertAlive(server, `during the ${group} group`);
}

/** Ends a group: sockets closed, then liveness, RSS, problems (in that order: a crash says so first). */
async function endGroup(watch: RssWatch, group: string): Promise<void> {
  for (const wire of open) wire.terminate();
  open = [];
  watch.stop();
  await assertAlive(server, `after the ${group} group`);
  if (process.env['FUZZ_VERBOSE']) console.log(`${group}: ${tally.sent} frames sent, ${tally.answers} answers, ${tally.errors} errors; ${watch.describe()}`);
  // Most fuzz frames are refused: far fewer answers would mean the frames never reached the server.
  assert.ok(tally.sent === 0 || tally.errors >= tally.sent / 4, `${group}: ${tally.sent} frames sent, only ${tally.errors} error answers`);
  assert.ok(watch.growthBytes < RSS_BOUND_BYTES, `${group}: ${watch.describe()}`);
  assert.deepEqual([...new Set(problems)].slice(0, 10), [], `${group}: ${problems.length} problem(s) in what the server sent`);
}

/** The shard the fuzz sends into, with a watcher member that checks everything it hears. */
interface Arena {
  readonly shardName: string;
  readonly watcher: Member;
  readonly peer: Wire;
}

async function arena(shardName: string): Promise<Arena> {
  const watcher = await joinMember(server.url, shardName, { clientOptions: { localAddress: nextAddress() } });
  track(watcher.control);
  const peer = track(await openPeer(server.url, watcher));
  return { shardName, watcher, peer };
}

/** What the watcher heard that it must never hear: frames deeper than the limit, malformed frames, INTERNAL. */
function checkWatcher(a: Arena, group: string): void {
  for (const frame of a.watcher.control.frames) {
    checkControlFrame(frame, `${group} (watcher)`);
    if (frame.type === 'event' && jsonDepth(frame) > 64) problems.push(`${group}: the watcher got an event ${jsonDepth(frame)} deep`);
  }
  for (const frame of a.peer.frames) {
    const problem = peerFrameProblem(frame);
    if (problem) problems.push(`${group} (watcher's peer socket): ${problem}`);
    if (jsonDepth(frame) > 64) problems.push(`${group}: the watcher's peer socket got a frame ${jsonDepth(frame)} deep`);
  }
}

/**
 * Sends frames from joined sockets of `shardName`, {@link FRAMES_PER_SOCKET} per socket, each
 * batch followed by a ping whose pong (or the socket's close) says the server read them all.
 * Resolves the number of batches that got no pong and no close within 3 s.
 */
async function sendJoined(shardName: string, frames: readonly (string | Buffer)[], where: string, perSocket = FRAMES_PER_SOCKET): Promise<number> {
  let silent = 0;
  const batches: (string | Buffer)[][] = [];
  for (let i = 0; i < frames.length; i += perSocket) batches.push(frames.slice(i, i + perSocket));
  await inBatches(batches.length, 4, async (b) => {
    if (!server.running) return;
    const wire = fuzzWire({ where });
    let joined: Frame;
    try {
      joined = await wire.join({ shardName }, 3_000);
    } catch {
      // The server died (the group's end says so), or it stopped answering joins.
      if (server.running) silent++;
      return;
    }
    if (joined.type !== 'joined') return void problems.push(`${where}: an honest join was refused: ${JSON.stringify(joined).slice(0, 200)}`);
    for (const frame of batches[b]!) wire.send(frame, Buffer.isBuffer(frame));
    tally.sent += batches[b]!.length;
    const barrier = wire.next((f) => f.type === 'pong' && f['id'] === 424242, 3_000);
    wire.send('{"type":"ping","id":424242,"c":0}');
    const done = await Promise.race([barrier.then(() => true), wire.closed.then(() => true)]).catch(() => false);
    if (!done && wire.isOpen) silent++;
    wire.terminate();
  });
  return silent;
}

/** Sends each frame as the first frame of a fresh socket (joins, and what comes before one). */
async function sendFirst(frames: readonly string[], where: string): Promise<void> {
  await inBatches(frames.length, 8, async (i) => {
    if (!server.running) return;
    const wire = fuzzWire({ where });
    try {
      await wire.opened;
    } catch {
      return;
    }
    const answered = Promise.race([wire.maybeNext(() => true, 1_500), wire.closed]);
    wire.send(frames[i]!);
    tally.sent++;
    await answered;
    wire.terminate();
  });
}

/** Sends frames on the PeerJS socket of a fresh member of `shardName`; waits for the server to take them. */
async function sendPeer(shardName: string, frames: readonly string[], where: string): Promise<void> {
  for (let i = 0; i < frames.length && server.running; i += 150) {
    let member: Member;
    let wire: Wire;
    try {
      member = await joinMember(server.url, shardName, { clientOptions: { localAddress: nextAddress() } });
      track(member.control);
      wire = track(await openPeer(server.url, member));
    } catch {
      if (server.running) problems.push(`${where}: an honest member could not join and open its PeerJS socket`);
      return;
    }
    for (const frame of frames.slice(i, i + 150)) wire.send(frame);
    // No answer to wait for (the PeerJS side answers nothing to junk): a heartbeat round trip through the server instead.
    await sleep(150);
    for (const frame of wire.frames) {
      const problem = peerFrameProblem(frame);
      if (problem) problems.push(`${where}: ${problem}`);
    }
    wire.terminate();
    member.control.terminate();
  }
}

/** Inserts `"key":value` as the last member of a JSON object text. */
const withMember = (objectText: string, key: string, valueText: string): string =>
  objectText === '{}' ? `{${JSON.stringify(key)}:${valueText}}` : `${objectText.slice(0, -1)},${JSON.stringify(key)}:${valueText}}`;

/** A client frame with one field's value replaced by raw JSON text (absent: the field removed). */
function frameWith(template: Record<string, unknown>, field: string, valueText: string | undefined): string {
  let text = '{';
  let first = true;
  for (const [key, value] of Object.entries(template)) {
    if (key === field) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
    first = false;
  }
  if (valueText !== undefined) text += `${first ? '' : ','}${JSON.stringify(field)}:${valueText}`;
  return text + '}';
}

/** Valid frames of every client type, the fields each fuzz case replaces. */
function templates(watcherId: string): { name: string; frame: Record<string, unknown>; first: boolean }[] {
  return [
    {
      name: 'join',
      first: true,
      frame: { type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'browser', shardName: 'fuzz-join', maxConnectionsPerShard: 50, userInfo: { name: 'x' } },
    },
    { name: 'join+resume', first: true, frame: { type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'browser', resume: { clientId: 'c', resumeToken: 't' } } },
    { name: 'emit', first: false, frame: { type: 'emit', seq: 1, name: 'ev', payload: { a: 1 }, ts: 0 } },
    { name: 'emit+to', first: false, frame: { type: 'emit', seq: 1, name: 'ev', payload: { a: 1 }, ts: 0, to: [watcherId] } },
    { name: 'ping', first: false, frame: { type: 'ping', id: 2, c: 1 } },
    { name: 'identify', first: false, frame: { type: 'identify', id: 3, token: 'not-a-token' } },
    { name: 'userInfo', first: false, frame: { type: 'userInfo', id: 4, userInfo: { name: 'y' } } },
    { name: 'info', first: false, frame: { type: 'info', id: 5 } },
    { name: 'leave', first: false, frame: { type: 'leave', id: 6 } },
    { name: 'focus', first: false, frame: { type: 'focus', id: 7, state: 'away' } },
    { name: 'takeSeat', first: false, frame: { type: 'takeSeat', id: 8 } },
    { name: 'join+spectator', first: true, frame: { type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'browser', shardName: 'fuzz-join', spectator: true, state: 'away' } },
  ];
}

before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  for (const wire of open) wire.terminate();
  await server?.stop();
});

describe('signaling fuzz (deterministic, server in a child process)', () => {
  // Whatever a failed group left: its sockets and its RSS watch.
  afterEach(() => {
    for (const wire of open) wire.terminate();
    open = [];
    watch?.stop();
    watch = null;
  });

  it('nesting depth 1 to 10,000 in every frame type (control, handshake join, PeerJS): deep frames refused, shallow ones served', async () => {
    const watch = await beginGroup();
    const random = prng(SEED);
    const depths = [1, 2, 3, 8, 16, 31, 32, 33, 48, SHALLOW, DEEP, 100, 257, 1_000, 2_500, 4_999, 5_000, 6_000, 10_000];
    for (let i = 0; i < 4; i++) depths.push(1 + random.int(10_000));
    const a = await arena('fuzz-depth');
    const joined: string[] = [];
    const first: string[] = [];
    const peer: string[] = [];
    let seq = 1;
    for (const depth of depths) {
      const arrays = deepArray(depth);
      const objects = deepObjects(depth);
      joined.push(
        `{"type":"emit","seq":${seq++},"name":"deep","payload":{"d":${arrays}},"ts":0}`,
        `{"type":"emit","seq":${seq++},"name":"deep","payload":${objects},"ts":0,"to":[${JSON.stringify(a.watcher.clientId)}]}`,
        `{"type":"emit","seq":${seq++},"name":"deep","payload":{},"ts":0,"to":${arrays}}`,
        `{"type":"emit","seq":${seq++},"name":${arrays},"payload":{},"ts":0}`,
        `{"type":"userInfo","id":${depth},"userInfo":{"d":${arrays}}}`,
        `{"type":"identify","id":${depth},"token":${arrays}}`,
        `{"type":"ping","id":${depth},"c":${arrays}}`,
        `{"type":"info","id":${arrays}}`,
        arrays,
      );
      first.push(
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","shardName":"fuzz-depth","userInfo":{"d":${arrays}}}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","resume":${objects}}`,
      );
      peer.push(
        `{"type":"OFFER","dst":${JSON.stringify(a.watcher.peer.id)},"payload":${objects}}`,
        `{"type":"CANDIDATE","dst":${arrays},"payload":{}}`,
        `{"type":"ANSWER","dst":"no-such-peer","payload":{"d":${arrays}}}`,
      );
    }
    const silent = await sendJoined('fuzz-depth', joined, 'depth (joined)');
    await sendFirst(first, 'depth (first frame)');
    // Handshake joins (v2) with deep userInfo, as deep as fits in the header.
    for (const depth of [10, DEEP, 500, 2_000]) {
      const join = {
        type: 'join',
        v: SIGNALING_VERSION,
        id: 1,
        projectId: PROJECT,
        kind: 'browser',
        shardName: 'fuzz-depth',
        userInfo: JSON.parse(`{"d":${deepArray(depth)}}`) as Record<string, never>,
      } satisfies JoinMessage;
      const protocols = encodeHandshakeJoin(join);
      if (!protocols || !server.running) continue;
      const wire = fuzzWire({ protocols, where: `depth (handshake join ${depth} deep)` });
      const answer = await Promise.race([wire.maybeNext(() => true, 2_000), wire.closed]);
      if (depth >= DEEP && answer && 'type' in answer && answer.type === 'joined') problems.push(`a handshake join ${depth} deep was admitted`);
      wire.terminate();
    }
    await sendPeer('fuzz-depth', peer, 'depth (PeerJS)');
    await stillRunning('depth');
    // A shallow event still goes through, after all that.
    const shallow = await joinMember(server.url, 'fuzz-depth', { clientOptions: { localAddress: nextAddress() } });
    track(shallow.control);
    shallow.control.send(`{"type":"emit","seq":1,"name":"shallow","payload":{"d":${deepArray(SHALLOW - 2)}},"ts":0}`);
    if (server.running)
      await a.watcher.control.next((f) => f.type === 'event' && f['name'] === 'shallow', 3_000).catch(() => problems.push(`an emit ${SHALLOW} deep was not relayed`));
    checkWatcher(a, 'depth');
    await endGroup(watch, 'depth');
    assert.equal(silent, 0, 'every fuzzing socket was answered or closed');
  });

  it('prototype keys (__proto__, constructor, toString, hasOwnProperty, valueOf…) as keys, values, shard and event names, recipients and resume ids of every frame type', async () => {
    const watch = await beginGroup();
    const a = await arena('fuzz-proto');
    const joined: string[] = [];
    const first: string[] = [];
    const peer: string[] = [];
    let seq = 1;
    for (const key of PROTOTYPE_KEYS) {
      const k = JSON.stringify(key);
      const polluting = `{"polluted":true,"toString":1,"valueOf":{"x":1}}`;
      for (const template of templates(a.watcher.clientId)) {
        const base = JSON.stringify(template.frame.type === 'emit' ? { ...template.frame, seq: seq++ } : template.frame);
        const variants = [
          withMember(base, key, '1'),
          withMember(base, key, polluting),
          withMember(base, key, 'null'),
          frameWith(template.frame, 'type', k),
          ...Object.keys(template.frame)
            .filter((field) => field !== 'type')
            .flatMap((field) => [frameWith(template.frame, field, k), frameWith(template.frame, field, `{${k}:${k}}`), frameWith(template.frame, field, `[${k}]`)]),
        ];
        (template.first ? first : joined).push(...variants);
      }
      // Nested keys where objects come from the client: payload, userInfo, resume, recipients.
      joined.push(
        `{"type":"emit","seq":${seq++},"name":"proto","payload":{${k}:${polluting},"constructor":{"prototype":{"polluted":true}}},"ts":0}`,
        `{"type":"emit","seq":${seq++},"name":${k},"payload":{},"ts":0}`,
        `{"type":"emit","seq":${seq++},"name":"proto","payload":{},"ts":0,"to":[${k},"constructor","toString",${JSON.stringify(a.watcher.clientId)}]}`,
        `{"type":"userInfo","id":7,"userInfo":{${k}:${polluting}}}`,
      );
      first.push(
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","shardName":${k},"userInfo":{${k}:${polluting}}}`,
        `{"type":"join","v":1,"id":1,"projectId":${k},"kind":"browser"}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","resume":{"clientId":${k},"resumeToken":${k}}}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","resume":{"clientId":${JSON.stringify(a.watcher.clientId)},"resumeToken":${k}}}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":${k},"projectToken":${k}}`,
      );
      peer.push(
        `{"type":"OFFER","dst":${k},"payload":{}}`,
        `{"type":${k},"dst":${JSON.stringify(a.watcher.peer.id)},"payload":{}}`,
        `{"type":"OFFER","dst":${JSON.stringify(a.watcher.peer.id)},"payload":{${k}:${polluting}},${k}:1}`,
        `{${k}:{"type":"OFFER"},"type":"CANDIDATE","dst":${JSON.stringify(a.watcher.peer.id)}}`,
      );
    }
    const silent = await sendJoined(
      'fuzz-proto',
      joined.filter((f) => !f.includes('"type":"leave"')),
      'prototype keys (joined)',
    );
    // A valid leave closes its socket: one frame per socket, so none hides another.
    const silentLeaves = await sendJoined(
      'fuzz-proto',
      joined.filter((f) => f.includes('"type":"leave"')),
      'prototype keys (leave)',
      1,
    );
    await sendFirst(first, 'prototype keys (first frame)');
    await sendPeer('fuzz-proto', peer, 'prototype keys (PeerJS)');
    await stillRunning('prototype keys');
    // PeerJS sockets opened with prototype-key ids and tokens are refused, and nothing breaks.
    for (const key of PROTOTYPE_KEYS) {
      const wire = track(peerWire(server.url, { id: key, token: key }));
      const answer = await Promise.race([wire.maybeNext(() => true, 1_000), wire.closed]);
      if (answer && 'type' in answer && answer.type === 'OPEN') problems.push(`a PeerJS socket with id ${key} was opened`);
      wire.terminate();
    }
    // Shards named like Object.prototype members work like any other: two members, one event, listed by info.
    for (const name of PROTOTYPE_KEYS.filter((key) => /^[A-Za-z0-9]/.test(key))) {
      const one = await joinMember(server.url, name, { clientOptions: { localAddress: nextAddress() } });
      const two = await joinMember(server.url, name, { clientOptions: { localAddress: nextAddress() } });
      track(one.control);
      track(two.control);
      one.control.send(`{"type":"emit","seq":1,"name":${JSON.stringify(name)},"payload":{${JSON.stringify(name)}:1},"ts":0}`);
      const event = await two.control.next((f) => f.type === 'event', 3_000);
      assert.deepEqual(event['payload'], JSON.parse(`{${JSON.stringify(name)}:1}`));
      const info = await one.control.request({ type: 'info' });
      const listed = (info['shards'] as { shardName: string; numConnectedClients: number }[] | undefined)?.find((s) => s.shardName === name);
      assert.equal(listed?.numConnectedClients, 2, `info lists shard ${name}: ${JSON.stringify(info).slice(0, 300)}`);
      const fresh = await joinMember(server.url, `fresh-${name}`, { clientOptions: { localAddress: nextAddress() } });
      track(fresh.control);
      assert.ok(!JSON.stringify(fresh.joined).includes('polluted'), `a fresh join shows no polluted prototype: ${JSON.stringify(fresh.joined).slice(0, 300)}`);
    }
    checkWatcher(a, 'prototype keys');
    await endGroup(watch, 'prototype keys');
    assert.equal(silent + silentLeaves, 0, 'every fuzzing socket was answered or closed');
  });

  it('wrong types, odd numbers (huge, negative, fractional, -0, 1e400, 2^53+) and missing fields in every field of every frame type', async () => {
    const watch = await beginGroup();
    const a = await arena('fuzz-types');
    const values = [
      'null',
      'true',
      'false',
      '0',
      '-0',
      '-1',
      '0.5',
      '1e-7',
      '1e-400',
      '1e21',
      '1e308',
      '-1e308',
      '1e400',
      '-1e400',
      String(Number.MAX_SAFE_INTEGER),
      String(2 ** 53),
      String(2 ** 53 + 2),
      '""',
      '"x"',
      `"${'y'.repeat(300)}"`,
      '[]',
      '{}',
      '[1,"a",null]',
      '{"a":{"b":[]}}',
      '"\\ud800"',
      '"\\u0000"',
      '"\\u2028é😀"',
    ];
    const joined: string[] = [];
    const first: string[] = [];
    let seq = 1;
    for (const template of templates(a.watcher.clientId)) {
      for (const field of Object.keys(template.frame)) {
        const frame = template.frame.type === 'emit' ? { ...template.frame, seq: seq++ } : template.frame;
        const cases = [...values.map((value) => frameWith(frame, field, value)), frameWith(frame, field, undefined)];
        (template.first ? first : joined).push(...cases);
      }
    }
    // Numbers where the server uses them: seq order, capacities, versions, clock echo.
    for (const n of ['0', '-1', '1.5', '1e308', String(2 ** 53), '1e400']) {
      first.push(
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","shardName":"fuzz-n","maxConnectionsPerShard":${n}}`,
        `{"type":"join","v":${n},"id":1,"projectId":"${PROJECT}","kind":"browser"}`,
        `{"type":"join","v":1,"id":${n},"projectId":"${PROJECT}","kind":"browser"}`,
      );
    }
    const silent = await sendJoined(
      'fuzz-types',
      joined.filter((f) => !f.includes('"type":"leave"')),
      'wrong types (joined)',
    );
    const silentLeaves = await sendJoined(
      'fuzz-types',
      joined.filter((f) => f.includes('"type":"leave"')),
      'wrong types (leave)',
      1,
    );
    await sendFirst(first, 'wrong types (first frame)');
    await stillRunning('wrong types');
    // A valid but extreme ping is echoed as sent.
    const pinger = await joinMember(server.url, 'fuzz-types', { clientOptions: { localAddress: nextAddress() } });
    track(pinger.control);
    for (const c of [1e308, -1e308, 0.1, Number.MIN_VALUE, -0]) {
      const pong = await pinger.control.request({ type: 'ping', c });
      assert.equal(pong.type, 'pong', JSON.stringify(pong));
      assert.equal(pong['c'], c === 0 ? 0 : c);
    }
    checkWatcher(a, 'wrong types');
    await endGroup(watch, 'wrong types');
    assert.equal(silent + silentLeaves, 0, 'every fuzzing socket was answered or closed');
  });

  it('very long strings in every string field (shard, event and project names, tokens, recipients, resume ids, user info), lone surrogates, control characters', async () => {
    const watch = await beginGroup();
    const a = await arena('fuzz-long');
    const random = prng(SEED + 1);
    const long = (n: number): string => JSON.stringify(Array.from({ length: n }, () => String.fromCharCode(32 + random.int(95))).join(''));
    const joined: string[] = [];
    const first: string[] = [];
    let seq = 1;
    for (const n of [65, 129, 257, 8_193, 60_000, 100_000, 300_000]) {
      const s = long(n);
      joined.push(
        `{"type":"emit","seq":${seq++},"name":${s},"payload":{},"ts":0}`,
        `{"type":"emit","seq":${seq++},"name":"long","payload":{"s":${s}},"ts":0}`,
        `{"type":"emit","seq":${seq++},"name":"long","payload":{},"ts":0,"to":[${s}]}`,
        `{"type":"emit","seq":${seq++},"name":"long","payload":{},"ts":0,"to":[${Array.from({ length: 1_001 }, () => '"abc"').join(',')}]}`,
        `{"type":"identify","id":1,"token":${s}}`,
        `{"type":"userInfo","id":1,"userInfo":{"s":${s}}}`,
        `{"type":"userInfo","id":1,"userInfo":{${s}:1}}`,
      );
      first.push(
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","shardName":${s}}`,
        `{"type":"join","v":1,"id":1,"projectId":${s},"kind":"browser"}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"backend","projectToken":${s}}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","authorization":${s}}`,
        `{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","resume":{"clientId":${s},"resumeToken":${s}}}`,
      );
    }
    for (const odd of ['"\\ud800"', '"\\udfff\\ud800"', '"a\\u0000b"', '"\\u001f\\u007f"', '"\\u2028\\u2029"', '"😀é"']) {
      joined.push(
        `{"type":"emit","seq":${seq++},"name":"odd","payload":{"s":${odd},${odd}:1},"ts":0}`,
        `{"type":"userInfo","id":1,"userInfo":{"s":${odd}}}`,
        `{"type":"emit","seq":${seq++},"name":${odd},"payload":{},"ts":0}`,
      );
      first.push(`{"type":"join","v":1,"id":1,"projectId":"${PROJECT}","kind":"browser","shardName":${odd}}`);
    }
    const silent = await sendJoined('fuzz-long', joined, 'long strings (joined)');
    await sendFirst(first, 'long strings (first frame)');
    await sendPeer(
      'fuzz-long',
      [
        `{"type":"OFFER","dst":${long(70_000)},"payload":{}}`,
        `{"type":"OFFER","dst":${JSON.stringify(a.watcher.peer.id)},"payload":{"s":${long(66_000)}}}`,
        `{"type":"OFFER","dst":"\\ud800","payload":{}}`,
      ],
      'long strings (PeerJS)',
    );
    checkWatcher(a, 'long strings');
    await endGroup(watch, 'long strings');
    assert.equal(silent, 0, 'every fuzzing socket was answered or closed');
  });

  it('binary frames, invalid UTF-8, frames built by hand (reserved bits, unmasked, lying lengths, bad opcodes) and malformed handshakes', async () => {
    const watch = await beginGroup();
    const a = await arena('fuzz-bytes');
    const random = prng(SEED + 2);
    const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => random.int(256)));
    // Binary frames on joined sockets: refused, never relayed.
    const binaries = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? Buffer.from(`{"type":"emit","seq":${i + 1},"name":"bin","payload":{},"ts":0}`) : bytes(1 + random.int(2_000)),
    );
    await sendJoined('fuzz-bytes', binaries, 'binary frames');
    await stillRunning('binary frames');
    if (a.watcher.control.frames.some((f) => f.type === 'event' && f['name'] === 'bin')) problems.push('a binary frame was relayed as an event');
    // Invalid UTF-8 in text frames (ws sends the bytes unchecked): the socket goes, the server stays.
    for (const bad of [
      Buffer.from([0xff, 0xfe]),
      Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      Buffer.from('{"type":"ping","id":1,"c":0}\u0000'),
      Buffer.from([0xed, 0xa0, 0x80]),
      bytes(500),
    ]) {
      const wire = fuzzWire({ where: 'invalid UTF-8' });
      await wire.opened.catch(() => undefined);
      wire.ws.send(bad, { binary: false });
      await Promise.race([wire.closed, sleep(500)]);
      wire.terminate();
      const member = await joinMember(server.url, 'fuzz-bytes', { clientOptions: { localAddress: nextAddress() } });
      track(member.control);
      const peer = track(await openPeer(server.url, member));
      peer.ws.send(bad, { binary: false });
      peer.ws.send(bytes(100), { binary: true });
      await Promise.race([peer.closed, sleep(300)]);
    }
    // Frames built by hand after a real upgrade, on control and PeerJS sockets.
    const handmade = [
      wsFrame(0x1, Buffer.from('{"type":"ping","id":1,"c":0}'), { rsv: 4 }),
      wsFrame(0x1, Buffer.from('{"type":"ping","id":1,"c":0}'), { mask: false }),
      wsFrame(0x3, Buffer.from('x')),
      wsFrame(0xb, Buffer.from('x')),
      wsFrame(0x0, Buffer.from('continuation without a start')),
      wsFrame(0x9, bytes(126)),
      wsFrame(0x8, Buffer.from([0x03, 0xe7])),
      wsFrame(0x8, Buffer.from([0x0b, 0xb8, 0xff])),
      wsFrame(0x1, Buffer.from('{"type":'), { fin: false }),
      wsFrame(0x1, Buffer.alloc(0), { length: 2n ** 62n }),
      wsFrame(0x2, Buffer.alloc(0), { length: 10n * BigInt(MB) }),
      bytes(64),
    ];
    for (const frame of handmade) {
      for (const path of ['/dispatch', null]) {
        let target = path;
        if (target === null) {
          const member = await joinMember(server.url, 'fuzz-bytes', { clientOptions: { localAddress: nextAddress() } });
          track(member.control);
          target = `/peerjs/peerjs?key=peerjs&id=${member.peer.id}&token=${member.peer.token}`;
        }
        const upgraded = await rawUpgrade(server.url, target, {}, { localAddress: nextAddress() });
        if (!upgraded.status.includes('101')) problems.push(`an honest upgrade of ${target} got "${upgraded.status}"`);
        upgraded.socket.write(frame);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 300);
          upgraded.socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        upgraded.socket.destroy();
      }
    }
    // Handshakes no browser would send: malformed join subprotocols, huge headers, odd peer queries.
    const join = (text: string): string => `${CONTROL_SUBPROTOCOL}, ${JOIN_SUBPROTOCOL_PREFIX}${Buffer.from(text).toString('base64url')}`;
    const handshakes: [string, Record<string, string>][] = [
      ['/dispatch', { 'Sec-WebSocket-Protocol': `${CONTROL_SUBPROTOCOL}, ${JOIN_SUBPROTOCOL_PREFIX}!!!` }],
      ['/dispatch', { 'Sec-WebSocket-Protocol': join('not json') }],
      ['/dispatch', { 'Sec-WebSocket-Protocol': join('[1,2,3]') }],
      ['/dispatch', { 'Sec-WebSocket-Protocol': join(`{"type":"join","v":2,"id":1,"projectId":"${PROJECT}","kind":"browser","userInfo":{"__proto__":{"polluted":true}}}`) }],
      ['/dispatch', { 'Sec-WebSocket-Protocol': join(`{"type":"join","v":2,"id":1,"projectId":"${PROJECT}","kind":"browser","userInfo":{"d":${deepArray(2_200)}}}`) }],
      ['/dispatch', { 'Sec-WebSocket-Protocol': `${CONTROL_SUBPROTOCOL}, ${JOIN_SUBPROTOCOL_PREFIX}${'A'.repeat(6_500)}` }],
      [
        '/dispatch',
        { 'Sec-WebSocket-Protocol': `${JOIN_SUBPROTOCOL_PREFIX}${Buffer.from(`{"type":"join","v":2,"id":1,"projectId":"${PROJECT}","kind":"browser"}`).toString('base64url')}` },
      ],
      ['/dispatch', { 'Sec-WebSocket-Protocol': ',,,, ,' }],
      ['/dispatch', { 'X-Filler': 'x'.repeat(15_000) }],
      ['/dispatch', { 'X-Forwarded-For': Array.from({ length: 500 }, () => '1.2.3.4').join(', ') }],
      ['/dispatch?x=' + '%'.repeat(2_000), {}],
      ['/peerjs/peerjs', {}],
      ['/peerjs/peerjs?key=peerjs&id=&token=', {}],
      ['/peerjs/peerjs?key=peerjs&id=a&id=b&token=c&token=d', {}],
      ['/peerjs/peerjs?key=' + 'k'.repeat(8_000), {}],
      ['/peerjs/peerjs?key=peerjs&id=%ZZ&token=%', {}],
      ['http://evil.example/dispatch', {}],
      ['*', {}],
      ['/nowhere', {}],
    ];
    for (const [path, headers] of handshakes) {
      const upgraded = await rawUpgrade(server.url, path, headers, { localAddress: nextAddress() });
      if (/^HTTP\/1\.1 5\d\d/.test(upgraded.status)) problems.push(`upgrade ${path.slice(0, 60)} answered ${upgraded.status}`);
      if (upgraded.rest.includes('"INTERNAL"')) problems.push(`upgrade ${path.slice(0, 60)} answered INTERNAL`);
      upgraded.socket.destroy();
    }
    checkWatcher(a, 'bytes');
    await endGroup(watch, 'binary, UTF-8 and handshakes');
  });

  it('clients that never read, on a busy shard: each of their sockets is dropped at its buffer cap and the server stays within its bound', async () => {
    const watch = await beginGroup();
    const joinFresh = async (shardName: string, record: boolean): Promise<Member> => {
      const member = await joinMember(server.url, shardName, { clientOptions: { localAddress: nextAddress() }, record });
      track(member.control);
      return member;
    };
    // Every send below is bounded by bytes, not time: each non-reader is sent DEAF_BYTES however
    // long that takes (a slow machine sends them later, not fewer), and a barrier, not a sleep,
    // says when the server has handled them. The control half and the PeerJS half run one after
    // the other, so the server holds one kind of full buffer at a time.

    // Control: two members that never read their control socket, in a shard where one sender
    // emits events of 60 KB (a burst of 150, then 90 a second: within its bucket of 100 a second).
    const sender = await joinFresh('fuzz-deaf', true);
    const deafControls = await inBatches(2, 2, () => joinFresh('fuzz-deaf', false));
    for (const member of deafControls) member.control.pause();
    const listener = await joinFresh('fuzz-deaf', false);
    const payload = JSON.stringify({ blob: 'z'.repeat(60_000) });
    let seq = 1;
    const emits = Math.ceil(DEAF_BYTES / 60_000);
    for (let i = 0; i < emits && server.running; i++) {
      sender.control.send(`{"type":"emit","seq":${seq++},"name":"blob","payload":${payload},"ts":0}`);
      if (i >= 150) await sleep(11);
    }
    // A socket's frames are handled in order: once the ping is answered, every event before it
    // was written out or found a socket over its cap. (The wait only guards against a hang.)
    await sender.control.request({ type: 'ping', c: 0 }, BARRIER_GUARD_MS);
    // Dropped already: reading again, each gets what its kernel buffers hold, then the close.
    const controlCloses = await Promise.all(deafControls.map((m) => m.control.closeWithin(3_000)));
    if (listener.control.received < (seq - 1) / 2) problems.push(`the reading member got ${listener.control.received} of ${seq - 1} events`);

    // PeerJS: two members that read their control socket but never their PeerJS one, sent offers of
    // 60 KB by PEER_SENDERS members of their shard. A peer sends at most ~200 KB a second (a frame
    // costs a token per KB, of 200 a second), so it takes many to put the cap (8 MB) into a socket.
    // Their control sockets read, so nothing but the buffer cap (or the heartbeat, 10 s and more
    // away) can close these PeerJS sockets: not their member's leave at the end of its grace.
    const deafPeers = await inBatches(2, 2, async () => {
      const member = await joinFresh('fuzz-deaf-peer', false);
      const peer = track(await openPeer(server.url, member, { record: false }));
      peer.pause();
      return { member, peer };
    });
    const peerSenders = await inBatches(PEER_SENDERS, 4, async () => track(await openPeer(server.url, await joinFresh('fuzz-deaf-peer', false))));
    const deafIds = deafPeers.map((d) => d.member.peer.id);
    // Offers to a dropped peer wait in its queue, and once that is full (128 KB) each is answered
    // EXPIRE: the server's own word that the socket is gone, and that no more need be sent.
    const dropped = new Set<string>();
    for (const wire of peerSenders) {
      wire.ws.on('message', (data) => {
        let src: unknown;
        try {
          ({ src } = JSON.parse(String(data)) as { src?: unknown });
        } catch {
          return void problems.push(`a PeerJS sender got a frame that is not JSON: ${String(data).slice(0, 200)}`);
        }
        if (typeof src === 'string' && deafIds.includes(src)) dropped.add(src);
      });
    }
    const offers = deafIds.map((id) => JSON.stringify({ type: 'OFFER', dst: id, payload: { sdp: 'o'.repeat(60_000) } }));
    // Each sender keeps within its bucket (6 at once, then one every 350 ms): the server refuses none.
    const offersPerSender = Math.ceil((DEAF_BYTES * deafIds.length) / 60_000 / PEER_SENDERS);
    let offered = 0;
    await Promise.all(
      peerSenders.map(async (wire, s) => {
        for (let i = 0; i < offersPerSender && dropped.size < deafIds.length && server.running; i++) {
          wire.send(offers[(s + i) % offers.length]!);
          offered++;
          if (i >= 5) await sleep(350);
        }
      }),
    );
    // The same barrier for PeerJS: an offer to nobody is answered EXPIRE after every offer before it.
    await Promise.all(
      peerSenders.map((wire, s) => {
        const answer = wire.next((f) => f.type === 'EXPIRE' && f['src'] === `nobody-${s}`, BARRIER_GUARD_MS);
        wire.send(JSON.stringify({ type: 'OFFER', dst: `nobody-${s}`, payload: {} }));
        return answer;
      }),
    );
    const peerCloses = await Promise.all(deafPeers.map((d) => d.peer.closeWithin(3_000)));
    for (const d of deafPeers)
      if (d.member.control.closedWith) problems.push(`a member deaf on PeerJS only lost its control socket: ${JSON.stringify(d.member.control.closedWith)}`);
    const labels = ['control', 'control', 'PeerJS', 'PeerJS'];
    const stillOpen = [...controlCloses, ...peerCloses].flatMap((c, i) => (c === null ? [labels[i]!] : []));
    await endGroup(watch, 'non-readers');
    assert.deepEqual(
      stillOpen,
      [],
      `deaf sockets never dropped (${seq - 1} events and ${offered} offers of 60 KB sent; the server answered EXPIRE for ${dropped.size} of the 2 PeerJS ones)`,
    );
  });

  it('floods on every socket kind: control junk, PeerJS heartbeats and offers to nobody from non-readers, HTTP bodies deep and huge on every /services route', async () => {
    const watch = await beginGroup();
    const random = prng(SEED + 3);
    const verdicts: string[] = [];
    // Control: a non-reader sending junk of every kind.
    const junk = ['{}', 'null', '[]', '{"type":"emit"}', 'not json', '{"type":"join"}', `{"type":"info","id":${deepArray(50)}}`];
    const junkWire = fuzzWire({ where: 'control junk flood' });
    await junkWire.join({ shardName: 'fuzz-flood' });
    junkWire.pause();
    await floodFor(junkWire, (i) => junk[i % junk.length]!, { ms: 1_000, maxFrames: 200_000 });
    const junkClose = await junkWire.closeWithin(3_000);
    if (junkClose === null) verdicts.push('a non-reader flooding junk on its control socket was never closed');
    // PeerJS: a non-reader flooding offers to peers that do not exist (each answered EXPIRE), and one flooding heartbeats.
    for (const [label, frame] of [
      ['offers to nobody', (i: number) => `{"type":"OFFER","dst":"nobody-${i % 1000}","payload":{"sdp":"${'s'.repeat(200)}"}}`],
      ['heartbeats', () => '{"type":"HEARTBEAT"}'],
    ] as const) {
      const member = await joinMember(server.url, 'fuzz-flood', { clientOptions: { localAddress: nextAddress() } });
      track(member.control);
      const peer = track(await openPeer(server.url, member, { record: false }));
      peer.pause();
      await floodFor(peer, frame, { ms: 1_000, maxFrames: 500_000 });
      const closed = await peer.closeWithin(3_000);
      if (closed === null) verdicts.push(`a PeerJS socket flooding ${label} was never closed`);
    }
    // HTTP: every /services route, bodies deep, huge, malformed and prototype-keyed, 8 at a time for 1.5 s.
    const { token } = await (async () => {
      const answer = await httpPost(server.url, '/services/identity/tokens', JSON.stringify({ userId: 'fuzzer' }), {
        authorization: `Bearer ${ADMIN_KEY}`,
        'x-platform-project-id': PROJECT,
      });
      return 'status' in answer && answer.status === 200 ? (JSON.parse(answer.text) as { token: string }) : { token: 'none' };
    })();
    // [path, headers, whether the route reads a body at all] (one that never parses it cannot be fooled by it).
    const routes: [string, Record<string, string>, boolean][] = [
      ['/services/identity/tokens', { authorization: `Bearer ${ADMIN_KEY}`, 'x-platform-project-id': PROJECT }, true],
      ['/services/identity/anonymous', { 'x-platform-project-id': PROJECT }, false],
      ['/services/identity/backend-token', { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': PROJECT }, false],
      ['/services/identity/verify', { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': PROJECT }, true],
      ['/services/keystore/resolve', { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': PROJECT }, true],
      ['/services/keystore/sign', { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': PROJECT }, true],
      ['/services/keystore/secrets', { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': 'other' }, true],
      ['/services/nowhere', {}, false],
    ];
    // Bodies deeper than maxJsonDepth must be refused (4xx) on every route, even with every field right.
    const bodies: { text: string; deep: boolean }[] = [
      { text: `{"userId":"u","token":${JSON.stringify(token)},"x":${deepArray(10_000)}}`, deep: true },
      { text: `{"userId":"u","token":${JSON.stringify(token)},"x":${deepArray(100)}}`, deep: true },
      { text: `{"attributes":${deepObjects(5_000)},"userId":"u"}`, deep: true },
      { text: `{"userId":"u","attributes":{"__proto__":{"polluted":"yes"},"constructor":"x"}}`, deep: false },
      { text: `{"__proto__":{"token":"x"},"token":{"toString":1},"keyPath":{"valueOf":2},"resource":["x"],"value":{}}`, deep: false },
      { text: `{"userId":"u","ttlSeconds":1e400,"expirySeconds":-1e308}`, deep: false },
      { text: `{"s":"${'h'.repeat(70_000)}"}`, deep: false },
      { text: '{"unterminated":', deep: false },
      { text: `[${deepArray(3_000)}]`, deep: true },
      { text: '', deep: false },
    ];
    const statuses = new Map<string, number>();
    const httpStart = Date.now();
    let requests = 0;
    await inBatches(8, 8, async () => {
      while (Date.now() - httpStart < 1_500 && requests < 2_000 && server.running) {
        const [path, headers, readsBody] = random.pick(routes);
        const body = random.pick(bodies);
        requests++;
        const answer = await httpPost(server.url, path, body.text, headers, 3_000);
        const key = 'status' in answer ? String(answer.status) : 'no answer';
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if ('status' in answer && answer.status >= 500) problems.push(`POST ${path} with ${body.text.slice(0, 40)}… answered ${answer.status} ${answer.text.slice(0, 120)}`);
        if ('status' in answer && body.deep && readsBody && answer.status < 400)
          problems.push(`POST ${path} with a body deeper than the limit (${body.text.slice(0, 40)}…) answered ${answer.status}`);
      }
    });
    await endGroup(watch, 'floods');
    assert.deepEqual(verdicts, [], `floods: ${JSON.stringify(Object.fromEntries(statuses))} HTTP statuses over ${requests} requests`);
  });

  it('on two Redis nodes: deep and prototype-keyed PeerJS frames to peers on the other node and to nobody', { skip: skipRedis }, async () => {
    problems = [];
    const redis = await RedisProcess.start();
    const nodes: ServerProcess[] = [];
    try {
      for (const id of ['fuzz-n1', 'fuzz-n2']) nodes.push(await ServerProcess.start(['--redis', redis.url, '--secret-key', SHARED_KEY, '--node-id', id]));
      const [n1, n2] = nodes as [ServerProcess, ServerProcess];
      const a = await joinMember(n1.url, 'fuzz-redis', { clientOptions: { localAddress: nextAddress() } });
      const b = await joinMember(n2.url, 'fuzz-redis', { clientOptions: { localAddress: nextAddress() } });
      const peerA = await openPeer(n1.url, a);
      const peerB = await openPeer(n2.url, b);
      const dstB = JSON.stringify(b.peer.id);
      const frames: string[] = [];
      for (const depth of [10, DEEP, 1_000, 6_000, 10_000])
        frames.push(`{"type":"OFFER","dst":${dstB},"payload":${deepObjects(depth)}}`, `{"type":"OFFER","dst":"nobody","payload":{"d":${deepArray(depth)}}}`);
      for (const key of PROTOTYPE_KEYS) {
        const k = JSON.stringify(key);
        frames.push(`{"type":"OFFER","dst":${k},"payload":{}}`, `{"type":"CANDIDATE","dst":${dstB},"payload":{${k}:{"polluted":true}},${k}:1}`);
      }
      for (const frame of frames) peerA.send(frame);
      peerA.send(JSON.stringify({ type: 'OFFER', dst: b.peer.id, payload: { last: true } }));
      await peerB.next((f) => f.type === 'OFFER' && JSON.stringify(f['payload']) === '{"last":true}', 3_000).catch(() => problems.push('the last OFFER never crossed nodes'));
      for (const frame of peerB.frames) {
        const problem = peerFrameProblem(frame);
        if (problem) problems.push(`redis (peer B): ${problem}`);
        if (jsonDepth(frame) > 64) problems.push(`redis: peer B got a frame ${jsonDepth(frame)} deep`);
      }
      for (const wire of [peerA, peerB, a.control, b.control]) wire.terminate();
      for (const node of nodes) await assertAlive(node, 'after the Redis PeerJS fuzz');
      assert.deepEqual(problems.slice(0, 10), []);
    } finally {
      for (const node of nodes) await node.stop();
      await redis.stop();
    }
  });
});
