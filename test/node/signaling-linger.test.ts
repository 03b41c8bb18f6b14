// Sockets the server ends on its own initiative, whose client never answers the close frame
// (a client that does not read, a half-open network): each must be gone within about a second,
// not ws's 30 s closing handshake, or a loop of joins and leaves piles them up. A real
// createSignalingServer on loopback; the peer socket is a raw TCP connection that never answers.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PEERJS_KEY, PEERJS_PATH } from '../../protocol/signaling.js';
import { Cleanup, rawUpgrade, watchUnansweredClose, type UnansweredClose } from './hostile-support.js';
import { Raw, startServer } from './signaling-support.js';

const describeEnd = (close: UnansweredClose): string =>
  close.code === null ? 'got no close frame' : close.endedAfterMs === null ? `was still open 4 s after its close frame (${close.code})` : `ended ${close.endedAfterMs} ms after its close frame (${close.code})`;

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
});
