// Scale-out on real components: one redis-server and three signaling nodes,
// each its own process on a loopback port, with Node clients.
// Capacity across nodes, cross-node relay, presence and info agreement,
// cross-node PeerJS signaling, the keystore in Redis, a Redis restart, and
// kill -9 of a node (last: it takes node 1 away).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { isPlatformError } from '../../protocol/errors.js';
import { PlatformBackend } from '../../signaling/index.js';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { PROJECT, Raw, sleep, TOKEN, waitFor, type Frame } from './signaling-support.js';

// Short so the kill -9 test runs fast; long enough that a node stalled by a loaded CI machine is not taken for dead.
const LEASE_MS = 3_000;

function client(urls: string | readonly string[], extra: { receiveOwnBroadcasts?: boolean } = {}) {
  return new PlatformBackend.Dispatch({ projectId: PROJECT, projectToken: TOKEN, url: urls, reconnectInitialDelayMs: 100, ...extra });
}

/** A PeerJS signaling socket, as peerjs opens it. */
class PeerSocket {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;
  readonly open: Promise<void>;
  constructor(base: string, id: string, token: string) {
    const url = new URL(base);
    this.ws = new WebSocket(`ws://${url.host}/peerjs/peerjs?key=peerjs&id=${id}&token=${token}&version=1.5.5`);
    this.open = new Promise((resolve, reject) => {
      this.ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as Frame;
        if (frame.type === 'OPEN') resolve();
        else this.frames.push(frame);
      });
      this.ws.once('error', reject);
    });
  }
  send(frame: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(frame));
  }
}

describe('signaling on 3 nodes sharing a real Redis', { skip: skipRedis }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[] = [];
  const urls = (): string[] => nodes.map((node) => node.url);

  before(async () => {
    redis = await RedisProcess.start();
    // Every simulated client comes from 127.0.0.1: about 333 sockets per node at once and hundreds of new shards,
    // over the per-address limits meant for one real address (signaling-hostile.test.ts tests those).
    const perAddress = ['--max-unjoined-sockets-per-address', '0', '--max-shards-per-address-per-minute', '0'];
    nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => NodeProcess.start(redis.url, id, ['--lease-ms', String(LEASE_MS), '--grace-ms', '10000', ...perAddress])));
  });
  after(async () => {
    if (process.env['DBG']) for (const n of nodes) console.log(n.id, n.output.join(''));
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  it('1,000 concurrent joins spread over 3 nodes with a maximum of 10 make exactly 100 shards of 10, and every node reports them', async () => {
    const sockets = Array.from({ length: 1_000 }, (_, i) => new Raw(nodes[i % 3]!.url));
    try {
      // Each answer is waited for up to a minute: what is checked is where the thousand land, not how fast (at a load of 35, 5 s was seen to pass).
      const joined = await Promise.all(sockets.map((socket) => socket.join({ kind: 'backend', projectToken: TOKEN, maxConnectionsPerShard: 10 }, 60_000)));
      assert.ok(
        joined.every((frame) => frame.type === 'joined'),
        JSON.stringify(joined.find((frame) => frame.type !== 'joined')),
      );
      const sizes = new Map<string, number>();
      for (const frame of joined) sizes.set(frame['shardName'] as string, (sizes.get(frame['shardName'] as string) ?? 0) + 1);
      assert.equal(sizes.size, 100);
      assert.ok(
        [...sizes.values()].every((size) => size === 10),
        JSON.stringify([...sizes]),
      );
      // The members list of every join is consistent with the cap: never more than 10.
      assert.ok(joined.every((frame) => (frame['members'] as unknown[]).length <= 10));
      // Presence converges: each member's list (its `joined` list, then every presence frame) is its
      // shard's ten members, the ones that joined just after it on another node included.
      const shardOf = new Map<string, Set<string>>();
      for (const frame of joined) {
        const shard = frame['shardName'] as string;
        if (!shardOf.has(shard)) shardOf.set(shard, new Set());
        shardOf.get(shard)!.add(frame['clientId'] as string);
      }
      const wrong = (): string[] =>
        joined.flatMap((frame, i) => {
          const list = presenceList(frame, sockets[i]!.frames);
          const expected = shardOf.get(frame['shardName'] as string)!;
          const same = list.size === expected.size && [...expected].every((id) => list.has(id));
          return same ? [] : [`${frame['clientId'] as string} lists ${list.size} of ${expected.size}: missing ${[...expected].filter((id) => !list.has(id)).join(',')}`];
        });
      await waitFor(() => wrong().length === 0, 'every presence list equal to its shard', 20_000).catch(() => assert.fail(wrong().slice(0, 5).join('; ')));
      for (const i of [0, 1, 2]) {
        const info = await sockets[i]!.request({ type: 'info' });
        const shards = info['shards'] as { shardName: string; numConnectedClients: number }[];
        assert.equal(shards.length, 100, `node ${i + 1}`);
        assert.ok(shards.every((shard) => shard.numConnectedClients === 10));
      }
    } finally {
      await Promise.all(sockets.map((socket) => socket.request({ type: 'leave' }).catch(() => undefined)));
      for (const socket of sockets) socket.close();
    }
  });

  it('members of one shard on different nodes exchange events; presence and info() agree on every node', async () => {
    // What crossed nodes is counted: each client's own broadcast, delivered locally since issue 16, is left out.
    const clients = nodes.map((node) => client(node.url, { receiveOwnBroadcasts: false }));
    try {
      for (const c of clients) await c.connect({ shardName: 'cross' });
      const got = clients.map(() => [] as string[]);
      clients.forEach((c, i) =>
        c.on('hello', (payload, meta) => got[i]!.push(`${payload['from'] as string}:${meta.clientId === clients[Number(payload['from'])]!.connectionInfo!.clientId}`)),
      );
      await waitFor(() => clients.every((c) => c.session.connectedClients.length === 3), 'presence of 3 on every node');
      for (const [i, c] of clients.entries()) await c.emitEvent('hello', { from: String(i) });
      // A targeted event to the member on node 3, from node 1.
      const direct: string[] = [];
      clients[2]!.on('direct', (payload) => direct.push(payload['text'] as string));
      clients[1]!.on('direct', () => direct.push('wrong recipient'));
      await clients[0]!.emitEvent('direct', { text: 'for n3' }, clients[2]!.connectionInfo!.clientId);
      await waitFor(() => got.every((list) => list.length === 2) && direct.length === 1, 'cross-node events');
      got.forEach((list, i) =>
        assert.deepEqual(
          list.sort(),
          ['0', '1', '2'].filter((from) => from !== String(i)).map((from) => `${from}:true`),
        ),
      );
      assert.deepEqual(direct, ['for n3']);

      await clients[1]!.session.setUserInfo({ name: 'on node 2' });
      await waitFor(() => clients.every((c) => c.session.connectedClients.some((member) => member.userInfo['name'] === 'on node 2')), 'user info everywhere');
      const lists = clients.map((c) => JSON.stringify(c.session.connectedClients.map((member) => [member.clientId, member.userInfo]).sort()));
      assert.equal(new Set(lists).size, 1, lists.join('\n'));
      const infos = await Promise.all(clients.map((c) => c.info()));
      for (const info of infos)
        assert.deepEqual(
          info.find((shard) => shard.shardName === 'cross'),
          { shardName: 'cross', numConnectedClients: 3 },
        );
      assert.equal(new Set(infos.map((info) => JSON.stringify(info))).size, 1);
    } finally {
      await Promise.all(clients.map((c) => c.disconnect()));
    }
  });

  it('PeerJS signaling crosses nodes within a shard (OFFER node 1 → node 2, ANSWER back), and never leaves it', async () => {
    const a = new Raw(nodes[0]!.url);
    const b = new Raw(nodes[1]!.url);
    const stranger = new Raw(nodes[2]!.url);
    try {
      const ja = await a.join({ shardName: 'mesh' });
      const jb = await b.join({ shardName: 'mesh' });
      const js = await stranger.join({ shardName: 'elsewhere' });
      const peer = (frame: Frame) => frame['peer'] as { id: string; token: string };
      const pa = new PeerSocket(nodes[0]!.url, peer(ja).id, peer(ja).token);
      const pb = new PeerSocket(nodes[1]!.url, peer(jb).id, peer(jb).token);
      const ps = new PeerSocket(nodes[2]!.url, peer(js).id, peer(js).token);
      await Promise.all([pa.open, pb.open, ps.open]);
      pa.send({ type: 'OFFER', dst: peer(jb).id, payload: { sdp: 'offer-sdp', connectionId: 'dc_1' } });
      await waitFor(() => pb.frames.some((frame) => frame.type === 'OFFER'), 'the OFFER on node 2');
      assert.deepEqual(pb.frames[0], { type: 'OFFER', src: peer(ja).id, dst: peer(jb).id, payload: { sdp: 'offer-sdp', connectionId: 'dc_1' } });
      pb.send({ type: 'ANSWER', dst: peer(ja).id, payload: { sdp: 'answer-sdp' } });
      pb.send({ type: 'CANDIDATE', dst: peer(ja).id, payload: { candidate: 'c1' } });
      await waitFor(() => pa.frames.length >= 2, 'ANSWER and CANDIDATE on node 1');
      assert.deepEqual(
        pa.frames.map((frame) => [frame.type, frame['src']]),
        [
          ['ANSWER', peer(jb).id],
          ['CANDIDATE', peer(jb).id],
        ],
      );
      // A peer of another shard on node 3 cannot reach b.
      ps.send({ type: 'OFFER', dst: peer(jb).id, payload: { sdp: 'intruder' } });
      await sleep(300);
      assert.equal(pb.frames.filter((frame) => frame.type === 'OFFER').length, 1);
      for (const socket of [pa, pb, ps]) socket.ws.terminate();
    } finally {
      for (const raw of [a, b, stranger]) {
        await raw.request({ type: 'leave' }).catch(() => undefined);
        raw.close();
      }
    }
  });

  it('the keystore lives in Redis: a secret stored through node 1 resolves through node 3', async () => {
    const headers = { 'content-type': 'application/json', 'x-platform-project-id': PROJECT, authorization: `Bearer ${TOKEN}` };
    const stored = await fetch(`${nodes[0]!.url}/services/keystore/secrets`, { method: 'POST', headers, body: JSON.stringify({ name: 'api-key', value: 's3cret' }) });
    assert.equal(stored.status, 200);
    const { keyPath } = (await stored.json()) as { keyPath: string };
    const resolved = await fetch(`${nodes[2]!.url}/services/keystore/resolve`, { method: 'POST', headers, body: JSON.stringify({ keyPath }) });
    assert.deepEqual(await resolved.json(), { value: 's3cret' });
  });

  it('a Redis restart: joins fail with UNAVAILABLE meanwhile, sockets stay open, then the state is rebuilt from the live nodes', async () => {
    const a = client(nodes[0]!.url);
    const b = client(nodes[1]!.url);
    try {
      await a.connect({ shardName: 'survive' });
      await b.connect({ shardName: 'survive' });
      const got: number[] = [];
      b.on('tick', (payload) => got.push(payload['i'] as number));
      await a.emitEvent('tick', { i: 0 });
      await waitFor(() => got.length === 1, 'an event before the restart');

      await redis.kill();
      const raw = new Raw(nodes[2]!.url);
      const refused = await raw.join({ shardName: 'survive' });
      assert.equal(refused.type, 'error');
      assert.equal((refused['error'] as { code: string }).code, 'UNAVAILABLE');
      raw.close();
      await sleep(300);
      assert.equal(a.session.state, 'connected');
      assert.equal(b.session.state, 'connected');

      const down = Date.now();
      await redis.restart();
      // Emit until one crosses again: the pause clients see.
      let i = 1;
      while (got.length < 2) {
        if (Date.now() - down > 10_000) assert.fail('no cross-node event within 10 s of the restart');
        await a.emitEvent('tick', { i: i++ });
        await sleep(50);
      }
      const pauseMs = Date.now() - down;
      assert.ok(pauseMs < 10_000, `pause ${pauseMs} ms`);
      // Rebuilt: both members are back in Redis, every node says so, and new joins work. Each node
      // reconnects to Redis on its own backoff: one event between nodes 1 and 2 says nothing of
      // node 3, which answers UNAVAILABLE ("retry shortly") until it is back. Under load that was
      // still the case when the new client joined there; it retries as it is told, within the 10 s.
      const whenAvailable = async <T>(call: () => Promise<T>): Promise<T> => {
        for (;;) {
          try {
            return await call();
          } catch (error) {
            if (!(isPlatformError(error) && error.code === 'UNAVAILABLE') || Date.now() - down > 10_000) throw error;
            await sleep(100);
          }
        }
      };
      let info = await whenAvailable(() => a.info());
      for (let tries = 0; info.find((shard) => shard.shardName === 'survive')?.numConnectedClients !== 2 && tries < 50; tries++) {
        await sleep(100);
        info = await whenAvailable(() => a.info());
      }
      assert.deepEqual(
        info.find((shard) => shard.shardName === 'survive'),
        { shardName: 'survive', numConnectedClients: 2 },
      );
      const c = client(nodes[2]!.url);
      await whenAvailable(() => c.connect({ shardName: 'survive' }));
      await waitFor(() => c.session.connectedClients.length === 3, 'the rebuilt members in the presence list of a new client on node 3');
      assert.deepEqual(c.session.connectedClients.map((member) => member.clientId).sort(), [a, b, c].map((x) => x.connectionInfo!.clientId).sort());
      await c.disconnect();
      assert.ok(a.session.state === 'connected' && b.session.state === 'connected');
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('kill -9 of a node: its clients reconnect to the others with their ids and shard, queued events arrive once, its presence goes within the lease', async () => {
    const movers = [client(urls()), client(urls())]; // node 1 first, then the others
    const stuck = client(nodes[0]!.url); // only node 1: it never comes back, the lease removes it
    const observer = client(nodes[1]!.url);
    try {
      for (const c of [...movers, stuck, observer]) await c.connect({ shardName: 'failover' });
      const ids = movers.map((c) => c.connectionInfo!.clientId);
      const got: string[] = [];
      observer.on('n', (payload, meta) => got.push(`${meta.clientId === ids[0] ? 'a' : 'b'}${payload['i'] as number}`));
      await waitFor(() => observer.session.connectedClients.length === 4, 'four members');
      await movers[0]!.emitEvent('n', { i: 0 });
      await waitFor(() => got.length === 1, 'an event before the kill');

      await nodes[0]!.kill9();
      const killedAt = Date.now();
      // Sent while the node is dead: queued (or kept for a resend) on the clients.
      for (let i = 1; i <= 5; i++) {
        await movers[0]!.emitEvent('n', { i });
        await movers[1]!.emitEvent('n', { i });
      }
      await waitFor(() => movers.every((c) => c.session.state === 'connected' && c.session.url !== controlOf(nodes[0]!.url)), 'movers on other nodes', 10_000);
      assert.deepEqual(
        movers.map((c) => c.connectionInfo),
        ids.map((clientId) => ({ clientId, shardName: 'failover' })),
      );
      await waitFor(() => got.length >= 11, 'the queued events', 5_000);
      await sleep(200);
      assert.deepEqual(
        got.filter((item) => item.startsWith('a')),
        ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'],
      );
      assert.deepEqual(
        got.filter((item) => item.startsWith('b')),
        ['b1', 'b2', 'b3', 'b4', 'b5'],
      );

      const stuckId = stuck.connectionInfo!.clientId;
      await waitFor(() => !observer.session.connectedClients.some((member) => member.clientId === stuckId), "the dead node's presence entry gone", 10_000);
      const goneAfterMs = Date.now() - killedAt;
      assert.ok(goneAfterMs <= LEASE_MS * 3, `gone after ${goneAfterMs} ms (lease ${LEASE_MS} ms)`);
      assert.deepEqual(observer.session.connectedClients.map((member) => member.clientId).sort(), [...ids, observer.connectionInfo!.clientId].sort());
      const info = await observer.info();
      assert.deepEqual(
        info.find((shard) => shard.shardName === 'failover'),
        { shardName: 'failover', numConnectedClients: 3 },
      );
    } finally {
      await Promise.all([...movers, stuck, observer].map((c) => c.disconnect()));
    }
  });
});

/** A client's member list: its `joined` answer's, then each presence change it received, in order. */
function presenceList(joined: Frame, frames: readonly Frame[]): Set<string> {
  const list = new Set((joined['members'] as { clientId: string }[]).map((member) => member.clientId));
  const apply = (change: Frame): void => {
    if (change['op'] === 'remove') list.delete(change['clientId'] as string);
    else if (change['op'] === 'add') list.add((change['member'] as { clientId: string }).clientId);
  };
  for (const frame of frames) {
    if (frame.type !== 'presence') continue;
    if (frame['op'] === 'batch') for (const change of frame['changes'] as Frame[]) apply(change);
    else apply(frame);
  }
  return list;
}

function controlOf(url: string): string {
  return url.replace(/^http/, 'ws') + '/dispatch';
}

describe('the embedded default', () => {
  it('never loads ioredis: one process, in memory', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `
      import { createRequire } from 'node:module';
      import { createSignalingServer, PlatformBackend } from './signaling/index.ts';
      const server = createSignalingServer({ port: 0, host: '127.0.0.1', projects: { demo: 'token' }, secretKey: Buffer.alloc(32, 1), dataDir: process.argv[1] });
      await server.ready;
      const client = new PlatformBackend.Dispatch({ projectId: 'demo', projectToken: 'token', url: server.url });
      await client.connect();
      await client.disconnect();
      await server.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/ioredis/'));
      console.log(JSON.stringify(loaded));
    `;
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'platform-embedded-'));
    try {
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
