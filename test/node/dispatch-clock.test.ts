// The clock sync at connect() (issues 18 and 27): connect() waits for no ping
// round trip (the server's time in `joined` is the first guess); the five
// samples follow once connected, and a skewed clock is cancelled all the
// same. Shown with the session both clients share
// (guest/dispatch/session.ts) on a real server, its socket's frames counted as
// they leave.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { DispatchSession } from '../../guest/dispatch/session.js';
import type { SocketLike } from '../../guest/dispatch/types.js';
import { controlUrl } from '../../signaling/backend-dispatch.js';
import type { SignalingServer } from '../../signaling/index.js';
import { PROJECT, startServer, TOKEN, waitFor } from './signaling-support.js';

/** A session whose control socket notes the type of every frame it sends, and of every one it receives. */
function countingSession(server: SignalingServer, sent: string[], clockSkewMs = 0, received: string[] = []): DispatchSession {
  return new DispatchSession({
    url: controlUrl(server.url),
    projectId: PROJECT,
    projectToken: TOKEN,
    kind: 'backend',
    clockSkewMs,
    createSocket: (target, protocols = []) => {
      const socket = new WebSocket(target, [...protocols], { perMessageDeflate: false });
      socket.addEventListener('message', (event) => received.push(String((JSON.parse(String(event.data)) as { type?: unknown }).type)));
      const send = socket.send.bind(socket);
      socket.send = ((data: string) => {
        sent.push(String((JSON.parse(data) as { type?: unknown }).type));
        send(data);
      }) as typeof socket.send;
      return socket as unknown as SocketLike;
    },
  });
}

describe('Dispatch clock sync at connect()', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('resolves connect() with no ping round trip; the five samples follow once connected', async () => {
    const sent: string[] = [];
    const received: string[] = [];
    const session = countingSession(server, sent, 0, received);
    try {
      await session.connect({ shardName: 'clock-once' });
      assert.deepEqual(
        received.filter((type) => type === 'pong'),
        [],
        `frames received before connect() resolved: ${received.join(', ')}`,
      );
      await waitFor(() => received.filter((type) => type === 'pong').length === 5, 'the five samples');
      assert.equal(sent.filter((type) => type === 'ping').length, 5, 'five samples in all, as before');
    } finally {
      await session.disconnect();
    }
  });

  it('cancels a skew of seconds from the join on, before any ping', async () => {
    const sent: string[] = [];
    const session = countingSession(server, sent, 7_000);
    try {
      await session.connect({ shardName: 'clock-skew' });
      // From `joined`'s time alone: off by its one-way delay, not by the seven seconds of skew.
      assert.ok(Math.abs(session.serverNow() - Date.now()) < 1_000, `off by ${(session.serverNow() - Date.now()).toFixed(1)} ms at connect()`);
    } finally {
      await session.disconnect();
    }
  });
});
