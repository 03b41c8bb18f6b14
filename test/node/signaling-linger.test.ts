// Sockets the server ends on its own initiative, whose client never answers the close frame
// (a client that does not read, a half-open network): each must be gone within about a second,
// not ws's 30 s closing handshake, or a loop of joins and leaves piles them up. A real
// createSignalingServer on loopback; the peer socket is a raw TCP connection that never answers.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { CONTROL_PATH, PEERJS_KEY, PEERJS_PATH } from '../../protocol/signaling.js';
import { Cleanup, rawUpgrade, watchUnansweredClose, wsFrame, type UnansweredClose } from './hostile-support.js';
import { PROJECT, Raw, startServer } from './signaling-support.js';
import type { SignalingServer } from '../../signaling/index.js';

const describeEnd = (close: UnansweredClose): string =>
  close.code === null
    ? 'got no close frame'
    : close.endedAfterMs === null
      ? `was still open 4 s after its close frame (${close.code})`
      : `ended ${close.endedAfterMs} ms after its close frame (${close.code})`;

describe('sockets the server closes and whose client never answers (in-process server)', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  for (const how of ['leaves', 'drops its control socket with 1001 (going away)'] as const) {
    it(`when a member ${how}, its /peerjs socket is terminated within about a second, not 30 s`, async () => {
      const server = await startServer();
      cleanup.defer(() => server.close());
      const member = new Raw(server.url);
      cleanup.defer(() => member.close());
      const joined = await member.join({ shardName: 'linger' });
      const peer = joined['peer'] as { id: string; token: string };
      const raw = await rawUpgrade(server.url, `${PEERJS_PATH}peerjs?key=${PEERJS_KEY}&id=${peer.id}&token=${peer.token}&version=1.5.5`);
      cleanup.defer(() => raw.socket.destroy());
      assert.match(raw.status, / 101 /);
      const end = watchUnansweredClose(raw, 4_000);
      if (how === 'leaves') assert.equal((await member.request({ type: 'leave' })).type, 'ok');
      else member.ws.close(1001);
      const close = await end;
      assert.equal(close.code, 1000, 'the revoked peer socket got a close frame');
      assert.ok(close.endedAfterMs !== null && close.endedAfterMs < 2_000, `the revoked peer socket ${describeEnd(close)}`);
    });
  }

  it('a control socket that never joins and ignores the 4008 close is terminated within about a second, not 30 s', async () => {
    const server = await startServer({ heartbeatIntervalMs: 500, joinTimeoutMs: 100 });
    cleanup.defer(() => server.close());
    const raw = await rawUpgrade(server.url, CONTROL_PATH);
    cleanup.defer(() => raw.socket.destroy());
    assert.match(raw.status, / 101 /);
    const close = await watchUnansweredClose(raw, 4_000);
    assert.equal(close.code, 4008, 'the join timeout closes with 4008');
    assert.ok(close.endedAfterMs !== null && close.endedAfterMs < 2_000, `the unjoined socket ${describeEnd(close)}`);
  });

  it('a member that leaves, then keeps sending frames and never answers the close, is terminated within about a second, not 30 s', async () => {
    const server = await startServer({ heartbeatIntervalMs: 200 });
    cleanup.defer(() => server.close());
    const raw = await rawUpgrade(server.url, CONTROL_PATH);
    cleanup.defer(() => raw.socket.destroy());
    const frame = (message: object): Buffer => wsFrame(1, Buffer.from(JSON.stringify(message)));
    const end = watchUnansweredClose(raw, 6_000);
    const joined = new Promise<void>((resolve) => {
      let seen = '';
      const onData = (chunk: Buffer): void => {
        seen += chunk.toString('latin1');
        if (!seen.includes('"type":"joined"')) return;
        raw.socket.off('data', onData);
        resolve();
      };
      raw.socket.on('data', onData);
    });
    raw.socket.write(frame({ type: 'join', id: 1, v: 1, projectId: PROJECT, kind: 'browser', shardName: 'leaving' }));
    await joined;
    raw.socket.write(frame({ type: 'leave', id: 2 }));
    // Frames keep the socket looking alive to the heartbeat; they are not read once it closes.
    const chatter = setInterval(() => raw.socket.writable && raw.socket.write(frame({ type: 'ping', id: 3, c: 0 })), 50);
    cleanup.defer(() => clearInterval(chatter));
    const close = await end;
    clearInterval(chatter);
    assert.equal(close.code, 1000, 'left');
    assert.ok(close.endedAfterMs !== null && close.endedAfterMs < 2_000, `the leaving socket ${describeEnd(close)}`);
  });
});

/**
 * Sends an upgrade to `target` by hand and never closes its own side (a half-open client):
 * resolves the status line it got and whether the server let go of the connection within
 * `timeoutMs`. It writes a byte every 50 ms after the answer: a server that only half-closed
 * reads them on, one that closed answers them with a reset.
 */
function halfOpenUpgrade(server: SignalingServer, target: string, options: { localAddress?: string } = {}, timeoutMs = 2_000): Promise<{ status: string; released: boolean }> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true, ...options });
    let answer = '';
    let ticker: ReturnType<typeof setInterval> | undefined;
    const finish = (released: boolean): void => {
      clearTimeout(timer);
      clearInterval(ticker);
      socket.destroy();
      resolve({ status: answer.split('\r\n')[0] ?? '', released });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      ticker ??= setInterval(() => socket.write('x'), 50);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(
      [
        `GET ${target} HTTP/1.1`,
        `Host: ${url.host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Version: 13',
        `Sec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}`,
      ].join('\r\n') + '\r\n\r\n',
    );
  });
}

describe('upgrades the server refuses, from clients that never close their side', () => {
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('404 (no such path), 400 (no URL) and 429 (too many unjoined sockets): each answered, and its connection closed, not left half open', async () => {
    const server = await startServer({ limits: { maxUnjoinedSocketsPerAddress: 1 } });
    cleanup.defer(() => server.close());
    const notFound = await halfOpenUpgrade(server, '/no-such-path');
    assert.match(notFound.status, / 404 /);
    assert.ok(notFound.released, 'the 404 connection is closed by the server');
    const noUrl = await halfOpenUpgrade(server, 'http://[::1');
    assert.match(noUrl.status, / 400 /);
    assert.ok(noUrl.released, 'the 400 connection is closed by the server');
    const holder = await rawUpgrade(server.url, CONTROL_PATH, {}, { localAddress: '127.0.0.61' });
    cleanup.defer(() => holder.socket.destroy());
    assert.match(holder.status, / 101 /);
    const tooMany = await halfOpenUpgrade(server, CONTROL_PATH, { localAddress: '127.0.0.61' });
    assert.match(tooMany.status, / 429 /);
    assert.ok(tooMany.released, 'the 429 connection is closed by the server');
  });
});
