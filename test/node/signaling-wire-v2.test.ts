// Wire v2 against a real server: the join in the handshake (one round trip),
// presence coalesced per shard (one `batch` frame per turn or window for v2
// clients, single frames for v1 clients), and the version guard.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { CONTROL_SUBPROTOCOL, encodeHandshakeJoin, JOIN_SUBPROTOCOL_PREFIX, parseServerMessage, SIGNALING_VERSION, type JoinMessage } from '../../protocol/signaling.js';
import type { SignalingServer } from '../../signaling/index.js';
import { backend, PROJECT, Raw, startServer, waitFor, type Frame } from './signaling-support.js';

const join = (extra: Partial<JoinMessage> = {}): JoinMessage => ({ type: 'join', v: SIGNALING_VERSION, id: 1, projectId: PROJECT, kind: 'browser', userInfo: {}, ...extra });

/** A raw v2 client that joins in its handshake; resolves its `joined` (or error) frame. */
async function handshakeJoin(server: SignalingServer, extra: Partial<JoinMessage> = {}): Promise<{ raw: Raw; answer: Frame }> {
  const protocols = encodeHandshakeJoin(join(extra));
  assert.ok(protocols);
  const raw = new Raw(server.url, protocols);
  const answer = await raw.next((frame) => frame['id'] === 1);
  return { raw, answer };
}

describe('signaling wire v2: join in the handshake', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  it('answers joined without a frame from the client, with the v2 subprotocol selected', async () => {
    const { raw, answer } = await handshakeJoin(server, { shardName: 'hs', userInfo: { name: 'Ann' } });
    assert.equal(answer.type, 'joined');
    assert.equal(answer['shardName'], 'hs');
    assert.equal(raw.ws.protocol, CONTROL_SUBPROTOCOL);
    assert.deepEqual(
      (answer['members'] as { userInfo: unknown }[]).map((member) => member.userInfo),
      [{ name: 'Ann' }],
    );
    // The socket is a normal control socket afterwards.
    const pong = await raw.request({ type: 'ping', c: 1 });
    assert.equal(pong.type, 'pong');
    raw.close();
  });

  it('keeps project tokens and oversized joins out of the handshake', () => {
    assert.equal(encodeHandshakeJoin(join({ kind: 'backend', projectToken: 'secret' })), null);
    // A 4 KB userInfo and a long token: over MAX_HANDSHAKE_JOIN_CHARS once in base64url.
    assert.equal(encodeHandshakeJoin(join({ userInfo: { blob: 'x'.repeat(4_000) }, authorization: 't'.repeat(1_000) })), null);
    assert.ok(encodeHandshakeJoin(join({ authorization: 'a.b.c' })));
  });

  it('encodes the join as base64url of its UTF-8 JSON, whatever its length modulo 3', () => {
    // Names of 0, 1 and 2 extra bytes and multi-byte characters cover every tail of the encoder.
    for (const name of ['', 'a', 'ab', 'abc', 'é', 'Zoë 🎈', 'x'.repeat(301)]) {
      const offered = join({ userInfo: { name } });
      const encoded = encodeHandshakeJoin(offered)![1]!.slice(JOIN_SUBPROTOCOL_PREFIX.length);
      assert.equal(encoded, Buffer.from(JSON.stringify(offered)).toString('base64url'), name);
    }
  });

  it('answers a malformed handshake join with INVALID_MESSAGE and still takes a join frame', async () => {
    for (const junk of ['%%%', 'bm90IGpzb24', Buffer.from(JSON.stringify({ type: 'emit' })).toString('base64url')]) {
      const raw = new Raw(server.url, [CONTROL_SUBPROTOCOL, JOIN_SUBPROTOCOL_PREFIX + junk]);
      const error = await raw.next((frame) => frame.type === 'error');
      assert.equal((error['error'] as { code: string }).code, 'INVALID_MESSAGE');
      assert.equal((await raw.join({ v: SIGNALING_VERSION })).type, 'joined');
      raw.close();
    }
  });

  it('refuses an unknown version in the handshake with UNSUPPORTED, and still speaks v1 by frame', async () => {
    const { raw, answer } = await handshakeJoin(server, { v: SIGNALING_VERSION + 1 });
    assert.equal((answer['error'] as { code: string }).code, 'UNSUPPORTED');
    raw.close();
    const v1 = new Raw(server.url);
    assert.equal((await v1.join({ v: 1 })).type, 'joined');
    v1.close();
  });

  it('sends the 101 and joined in one write', async () => {
    // Read on a raw TCP socket: the upgrade response and the first frame arrive as one chunk.
    const protocols = encodeHandshakeJoin(join({ shardName: 'one-write' }))!;
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(
      [
        'GET /dispatch HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        `Sec-WebSocket-Protocol: ${protocols.join(', ')}`,
        '',
        '',
      ].join('\r\n'),
    );
    const chunk = await new Promise<string>((resolve) => socket.once('data', (data: Buffer) => resolve(data.toString('latin1'))));
    socket.destroy();
    assert.match(chunk, /^HTTP\/1\.1 101 /);
    assert.match(chunk, new RegExp(`Sec-WebSocket-Protocol: ${CONTROL_SUBPROTOCOL.replace('.', '\\.')}`));
    assert.ok(chunk.includes('{"type":"joined"'), 'joined in the same chunk as the 101');
  });
});

describe('signaling wire v2: presence coalescing', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer({ presenceIntervalMs: 300 })));
  after(() => server.close());

  it('sends a burst of joins as one batch to v2 members and as single frames to v1 members', async () => {
    const { raw: watcher } = await handshakeJoin(server, { shardName: 'burst' });
    const old = new Raw(server.url);
    await old.join({ v: 1, shardName: 'burst' });
    // The watcher hears the v1 member's add (the shard's first change after a quiet spell: end of turn).
    await watcher.next((frame) => frame.type === 'presence');
    // Three joins within the window that follows: one frame for the watcher, three for the v1 member.
    const joiners = await Promise.all([0, 1, 2].map(() => handshakeJoin(server, { shardName: 'burst' })));
    const batch = await watcher.next((frame) => frame.type === 'presence');
    assert.equal(batch['op'], 'batch');
    const ids = (batch['changes'] as { op: string; member: { clientId: string } }[]).map((change) => change.member.clientId);
    assert.deepEqual(new Set(ids), new Set(joiners.map(({ answer }) => answer['clientId'] as string)));
    assert.ok(parseServerMessage(batch), 'the batch passes the client guard');
    for (let i = 0; i < 3; i++) assert.equal((await old.next((frame) => frame.type === 'presence' && frame['op'] === 'add'))['op'], 'add');
    // A joiner never hears of its own add, and hears nothing of the changes made before it joined.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { raw, answer } of joiners) {
      for (const frame of raw.frames.filter((f) => f.type === 'presence')) {
        const changes = (frame['op'] === 'batch' ? frame['changes'] : [frame]) as { op: string; member?: { clientId: string } }[];
        assert.ok(changes.every((change) => change.member?.clientId !== answer['clientId']));
      }
      raw.close();
    }
    watcher.close();
    old.close();
  });

  it('never lets an event overtake the presence of its sender', async () => {
    const { raw: watcher } = await handshakeJoin(server, { shardName: 'order' });
    const first = new Raw(server.url);
    await first.join({ v: SIGNALING_VERSION, shardName: 'order' });
    await waitFor(() => watcher.frames.some((frame) => frame.type === 'presence'), 'the first add');
    // Within the window: the sender's add waits for the timer, but its event sends it first.
    const sender = backend(server);
    const { clientId } = await sender.connect({ shardName: 'order' });
    await sender.emitEvent('hello', { n: 1 });
    await waitFor(() => watcher.frames.some((frame) => frame.type === 'event'), 'the event');
    const listsSender = (frame: Frame): boolean =>
      frame.type === 'presence' &&
      ((frame['op'] === 'batch' ? frame['changes'] : [frame]) as Frame[]).some((change) => (change['member'] as { clientId?: string } | undefined)?.clientId === clientId);
    const presenceAt = watcher.frames.findIndex(listsSender);
    const eventAt = watcher.frames.findIndex((frame) => frame.type === 'event');
    assert.ok(presenceAt >= 0 && presenceAt < eventAt, `presence at ${presenceAt}, event at ${eventAt}`);
    await sender.disconnect();
    watcher.close();
    first.close();
  });

  it('fires onConnectedClientsChanged once per batch, with the whole latest list', async () => {
    const observer = backend(server);
    await observer.connect({ shardName: 'listeners' });
    const lists: number[] = [];
    observer.onConnectedClientsChanged((clients) => lists.push(clients.length));
    const first = backend(server);
    await first.connect({ shardName: 'listeners' });
    await waitFor(() => lists.length === 1, 'the first add (leading edge)');
    const more = [backend(server), backend(server), backend(server)];
    await Promise.all(more.map((client) => client.connect({ shardName: 'listeners' })));
    await waitFor(() => lists.at(-1) === 5, 'the burst');
    // Three joins, fewer notifications (they came within one window, or two on a slow machine),
    // each with the whole list as it stood.
    assert.equal(lists[0], 2);
    assert.ok(lists.length <= 3, `notified ${lists.length} times: ${lists.join(', ')}`);
    assert.deepEqual(
      [...lists].sort((a, b) => a - b),
      lists,
    );
    for (const client of [observer, first, ...more]) await client.disconnect();
  });
});

describe('signaling wire v2: guards', () => {
  const member = { clientId: 'c1', userInfo: {}, userId: null, connectedAt: 1, peerId: null };
  it('accept a batch of valid changes only', () => {
    const add = { type: 'presence', op: 'add', member };
    const remove = { type: 'presence', op: 'remove', clientId: 'c1' };
    assert.ok(parseServerMessage({ type: 'presence', op: 'batch', changes: [add, remove] }));
    for (const changes of [[], [add, { type: 'presence', op: 'batch', changes: [add] }], [{ ...add, member: { ...member, clientId: '' } }], [{ op: 'add', member }], 'x', null]) {
      assert.equal(parseServerMessage({ type: 'presence', op: 'batch', changes }), null, JSON.stringify(changes));
    }
  });
  it('decode only a well-formed join from the handshake header', async () => {
    const { parseHandshakeJoin } = await import('../../protocol/signaling.js');
    const decode = (text: string) => Buffer.from(text, 'base64url').toString('utf8');
    const protocols = encodeHandshakeJoin(join())!;
    assert.deepEqual(parseHandshakeJoin(protocols.join(', '), decode), join());
    assert.equal(parseHandshakeJoin(undefined, decode), undefined);
    assert.equal(parseHandshakeJoin(CONTROL_SUBPROTOCOL, decode), undefined);
    assert.equal(parseHandshakeJoin(`${JOIN_SUBPROTOCOL_PREFIX}!!`, decode), null);
    assert.equal(parseHandshakeJoin(`${JOIN_SUBPROTOCOL_PREFIX}${'A'.repeat(10_000)}`, decode), null);
    assert.equal(parseHandshakeJoin(['a', 'b'], decode), null);
  });
});
