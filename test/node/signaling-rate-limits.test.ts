// Rate limits that outlive a socket, on the embedded (memory) store: the
// per-address join allowance (maxJoinsPerAddressPerMinute, trustProxy) and
// event buckets that travel with a resumed session. The same on 3 nodes
// sharing a Redis: redis-rate-limits.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeHandshakeJoin, SIGNALING_VERSION, type JoinMessage } from '../../protocol/signaling.js';
import { limitKey } from '../../signaling/client-address.js';
import { createSignalingServer } from '../../signaling/index.js';
import { JoinLimiter } from '../../signaling/store/join-limit.js';
import { flood, PROJECT, Raw, startServer, type Frame } from './signaling-support.js';

const codeOf = (frame: Frame): string | undefined => (frame['error'] as { code?: string } | undefined)?.code;

/** Resolves the close code of a raw socket (at once when it already closed). */
function closeCode(raw: Raw): Promise<number> {
  return new Promise((resolve) => {
    if (raw.ws.readyState === raw.ws.CLOSED) resolve(-1);
    else raw.ws.once('close', (code) => resolve(code));
  });
}

describe('join limit per address (memory store)', () => {
  it('admits exactly maxJoinsPerAddressPerMinute joins from one address, refuses the rest RATE_LIMITED and closes their sockets; other addresses are unaffected', async () => {
    const server = await startServer({ limits: { maxJoinsPerAddressPerMinute: 4 } });
    const sockets: Raw[] = [];
    try {
      // Frame joins and v2 handshake joins count alike.
      const handshake: JoinMessage = { type: 'join', v: SIGNALING_VERSION, id: 1, projectId: PROJECT, kind: 'browser', shardName: 'crowd' };
      for (let i = 0; i < 9; i++) sockets.push(new Raw(server.url, i % 2 === 0 ? encodeHandshakeJoin(handshake)! : [], { localAddress: '127.0.0.2' }));
      const closes = sockets.map(closeCode);
      const answers = await Promise.all(
        sockets.map(async (raw, i) => {
          await raw.opened;
          return i % 2 === 0 ? raw.next((f) => f['id'] === 1) : raw.join({ shardName: 'crowd' });
        }),
      );
      assert.equal(answers.filter((f) => f.type === 'joined').length, 4, JSON.stringify(answers));
      const refused = answers.filter((f) => f.type === 'error');
      assert.equal(refused.length, 5);
      assert.ok(
        refused.every((f) => codeOf(f) === 'RATE_LIMITED'),
        JSON.stringify(refused),
      );
      // Every refused socket closes (4001, the refusal's code), the admitted ones stay open.
      const codes = await Promise.all(closes.filter((_, i) => answers[i]!.type === 'error'));
      assert.deepEqual(codes, [4001, 4001, 4001, 4001, 4001]);
      assert.equal(sockets.filter((raw, i) => answers[i]!.type === 'joined' && raw.ws.readyState === raw.ws.OPEN).length, 4);
      assert.equal(server.metrics().joinsRateLimited, 5);

      const other = new Raw(server.url, [], { localAddress: '127.0.0.3' });
      sockets.push(other);
      assert.equal((await other.join({ shardName: 'crowd' })).type, 'joined');
    } finally {
      for (const raw of sockets) raw.close();
      await server.close();
    }
  });

  it('behind trustProxy proxies counts the address the proxy appended to X-Forwarded-For, never a forged one on the left', async () => {
    const server = await startServer({ trustProxy: 1, limits: { maxJoinsPerAddressPerMinute: 2 } });
    const sockets: Raw[] = [];
    const joinVia = async (forwardedFor: string): Promise<string> => {
      const raw = new Raw(server.url, [], { headers: { 'x-forwarded-for': forwardedFor } });
      sockets.push(raw);
      const answer = await raw.join();
      return answer.type === 'joined' ? 'joined' : (codeOf(answer) ?? answer.type);
    };
    try {
      assert.equal(await joinVia('198.51.100.7'), 'joined');
      // A client that writes its own X-Forwarded-For: the proxy appends the real address after it.
      assert.equal(await joinVia('203.0.113.1, 198.51.100.7'), 'joined');
      assert.equal(await joinVia('203.0.113.2, 198.51.100.7'), 'RATE_LIMITED');
      assert.equal(await joinVia('198.51.100.8'), 'joined');
      // No header (or no address in it): the socket's own address, the proxy's.
      assert.equal(await joinVia(''), 'joined');
    } finally {
      for (const raw of sockets) raw.close();
      await server.close();
    }
  });

  it('counts IPv4-mapped IPv6 as IPv4 and other IPv6 by /64; 0 or Infinity turns the limit off', () => {
    assert.equal(limitKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(limitKey('192.0.2.1'), '192.0.2.1');
    assert.equal(limitKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(limitKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
    assert.equal(limitKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(limitKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    const limiter = new JoinLimiter();
    // GCRA: N at once, then one per 60 s / N.
    const at = 1_000_000_000;
    assert.deepEqual(
      [1, 2, 3, 4].map(() => limiter.take('a', 3, at)),
      [true, true, true, false],
    );
    assert.equal(limiter.take('a', 3, at + 19_999_999), false);
    assert.equal(limiter.take('a', 3, at + 20_000_000), true);
    assert.equal(limiter.take('a', 3, at + 20_000_000), false);
    assert.ok(Array.from({ length: 100 }, () => limiter.take('b', 0, at)).every(Boolean));
    assert.ok(Array.from({ length: 100 }, () => limiter.take('b', Infinity, at)).every(Boolean));
    // Checked before anything opens: nothing to close.
    assert.throws(() => createSignalingServer({ projects: {}, limits: { maxJoinsPerAddressPerMinute: 2.5 } }), { code: 'INVALID_CONFIG' });
    assert.throws(() => createSignalingServer({ projects: {}, trustProxy: -1 }), { code: 'INVALID_CONFIG' });
  });
});

describe('event buckets travel with the session (memory store)', () => {
  it('a client that floods, loses its socket and resumes is still limited: its bucket is not refilled by reconnecting', async () => {
    // 0.5 events/s: a bucket of one event that takes 2 s to refill, far longer than a resume takes.
    const server = await startServer({ limits: { maxEventsPerSecond: 0.5, maxJoinsPerAddressPerMinute: 0 } });
    const sockets: Raw[] = [];
    try {
      const sender = new Raw(server.url);
      const receiver = new Raw(server.url);
      sockets.push(sender, receiver);
      const joined = await sender.join({ shardName: 'flood' });
      await receiver.join({ shardName: 'flood' });
      assert.deepEqual(await flood(sender, 1, 5), [2, 3, 4, 5]);
      assert.equal((await receiver.next((f) => f.type === 'event'))['seq'], 1);

      sender.ws.terminate(); // killed, no goodbye: the server keeps the session for the grace period
      const again = new Raw(server.url);
      sockets.push(again);
      const resumed = await again.join({ shardName: 'flood', resume: { clientId: joined['clientId'], resumeToken: joined['resumeToken'] } });
      assert.equal(resumed.type, 'joined');
      assert.equal(resumed['resumed'], true);
      assert.equal(resumed['clientId'], joined['clientId']);
      // A fresh bucket would admit one; the old one, nearly empty, admits none.
      assert.deepEqual(await flood(again, 6, 3), [6, 7, 8]);
      // Refused, so never relayed: nothing more reached the receiver.
      assert.deepEqual(
        receiver.frames.filter((f) => f.type === 'event'),
        [],
      );
    } finally {
      for (const raw of sockets) raw.close();
      await server.close();
    }
  });
});
