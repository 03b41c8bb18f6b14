// The signaling server over real sockets: routes, shards and capacity under
// concurrency, presence, identity, limits, heartbeats and peer signaling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { WebSocket } from 'ws';
import type { SignalingServer } from '../../signaling/index.js';
import { SWEEP_SLICE } from '../../signaling/control/heartbeat.js';
import { createMemoryStore } from '../../signaling/store/memory-store.js';
import type { ShardStore } from '../../signaling/store/store.js';
import { ADMIN_KEY, backend, bindStore, codeOf, PROJECT, Raw, SECRET, sleep, startServer, TOKEN, waitFor, type Frame } from './signaling-support.js';

const auth = { authorization: `Bearer ${TOKEN}`, 'x-platform-project': PROJECT };

describe('signaling server: HTTP routes', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  it('listens on a free port and answers health, metrics, info and 404', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${server.url}/health`)).json()) as { status: string };
    assert.equal(health.status, 'ok');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^platform_kit_connections \d+$/m);
    assert.match(metrics, /^platform_kit_heap_used_bytes \d+$/m);
    assert.equal((await fetch(`${server.url}/info`)).status, 401);
    assert.equal((await fetch(`${server.url}/info`, { headers: { ...auth, authorization: 'Bearer wrong' } })).status, 401);
    const info = await fetch(`${server.url}/info`, { headers: auth });
    assert.equal(info.status, 200);
    assert.deepEqual(await info.json(), []);
    assert.equal((await fetch(`${server.url}/nope`)).status, 404);
    // peerjs asks for an id only when given none; ours come from the control socket.
    assert.equal((await fetch(`${server.url}/peerjs/peerjs/id`)).status, 403);
  });

  it('issues user tokens only with the admin key, on the services route of the same server', async () => {
    const tokens = `${server.url}/services/identity/tokens`;
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'x-platform-project-id': PROJECT, 'content-type': 'application/json' };
    const refused = await fetch(tokens, { method: 'POST', body: JSON.stringify({ userId: 'u1' }) });
    assert.equal(refused.status, 401);
    // A project token is not the admin key.
    const projectToken = await fetch(tokens, { method: 'POST', headers: { ...admin, authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ userId: 'u1' }) });
    assert.equal(projectToken.status, 401);
    const issued = await fetch(tokens, { method: 'POST', headers: admin, body: JSON.stringify({ userId: 'u1', ttlSeconds: 60 }) });
    assert.equal(issued.status, 200);
    const body = (await issued.json()) as { token: string; expiresAt: number };
    assert.equal(body.token.split('.').length, 3);
    assert.ok(body.expiresAt > Date.now() + 50_000);
    const tooLong = await fetch(tokens, { method: 'POST', headers: admin, body: JSON.stringify({ userId: 'u1', ttlSeconds: 1e9 }) });
    assert.equal(tooLong.status, 400);
    // The minimal route of before is gone: one issuer, one route.
    assert.equal((await fetch(`${server.url}/identity/token`, { method: 'POST', headers: auth, body: '{}' })).status, 404);
  });

  it('takes project credentials for /info in the services header too', async () => {
    const info = await fetch(`${server.url}/info`, { headers: { authorization: `Bearer ${TOKEN}`, 'x-platform-project-id': PROJECT } });
    assert.equal(info.status, 200);
    assert.equal((await fetch(`${server.url}/info`, { headers: { authorization: 'Bearer other-token', 'x-platform-project-id': PROJECT } })).status, 401);
  });
});

describe('signaling server: shards', () => {
  let server: SignalingServer;
  // This suite opens well over 100 shards a minute from one address (127.0.0.1): the per-address shard limit is
  // signaling-hostile.test.ts's subject, not this one's.
  before(async () => (server = await startServer({ limits: { maxShardsPerProject: 200, maxShardsPerAddressPerMinute: Infinity } })));
  after(() => server.close());

  it('never exceeds capacity: 1,000 concurrent joins with a maximum of 10 make exactly 100 shards of 10', async () => {
    const clients = Array.from({ length: 1_000 }, () => new Raw(server.url));
    const answers = await Promise.all(clients.map((client) => client.join({ maxConnectionsPerShard: 10 })));
    assert.ok(answers.every((answer) => answer.type === 'joined'));
    const bySize = new Map<string, number>();
    for (const answer of answers) bySize.set(answer['shardName'] as string, (bySize.get(answer['shardName'] as string) ?? 0) + 1);
    assert.equal(bySize.size, 100);
    assert.ok([...bySize.values()].every((count) => count === 10));
    for (const name of bySize.keys()) assert.match(name, /^[a-z]+-[a-z]+-\d{4}$/); // readable generated names
    const info = (await (await fetch(`${server.url}/info`, { headers: auth })).json()) as { numConnectedClients: number }[];
    assert.equal(info.length, 100);
    assert.ok(info.every((shard) => shard.numConnectedClients === 10));
    // Leaving for good empties the shards, and empty shards disappear.
    await Promise.all(clients.map((client) => client.request({ type: 'leave' })));
    await waitFor(() => server.metrics().shards === 0, 'every shard to disappear');
    assert.deepEqual(await (await fetch(`${server.url}/info`, { headers: auth })).json(), []);
  });

  it('joins a named shard, answers SHARD_FULL when it is full, and checks names', async () => {
    const a = new Raw(server.url);
    const b = new Raw(server.url);
    const c = new Raw(server.url);
    assert.equal((await a.join({ shardName: 'lobby', maxConnectionsPerShard: 2 }))['shardName'], 'lobby');
    assert.equal((await b.join({ shardName: 'lobby', maxConnectionsPerShard: 2 }))['shardName'], 'lobby');
    const full = await c.join({ shardName: 'lobby', maxConnectionsPerShard: 2 });
    assert.equal(full.type, 'error');
    assert.equal((full['error'] as { code: string }).code, 'SHARD_FULL');
    const badName = await c.request({ type: 'join', v: 1, projectId: PROJECT, kind: 'browser', shardName: '../etc' });
    assert.equal((badName['error'] as { code: string }).code, 'INVALID_NAME');
    const badMax = await c.request({ type: 'join', v: 1, projectId: PROJECT, kind: 'browser', maxConnectionsPerShard: 5000 });
    assert.equal((badMax['error'] as { code: string }).code, 'INVALID_ARGUMENT');
    // Automatic placement never puts a client into a named shard.
    const auto = await c.join({ maxConnectionsPerShard: 2 });
    assert.notEqual(auto['shardName'], 'lobby');
    for (const client of [a, b, c]) client.close();
  });

  it('limits the shards of a project (TOO_MANY_SHARDS)', async () => {
    const small = await startServer({ limits: { maxShardsPerProject: 2 } });
    try {
      const clients = [new Raw(small.url), new Raw(small.url), new Raw(small.url)];
      await clients[0]!.join({ shardName: 's1' });
      await clients[1]!.join({ shardName: 's2' });
      const third = await clients[2]!.join({ shardName: 's3' });
      assert.equal((third['error'] as { code: string }).code, 'TOO_MANY_SHARDS');
      for (const client of clients) client.close();
    } finally {
      await small.close();
    }
  });

  it('refuses backend clients without the project token, and unknown projects', async () => {
    const raw = new Raw(server.url);
    const answer = await raw.join({ kind: 'backend' });
    assert.equal((answer['error'] as { code: string }).code, 'UNAUTHORIZED');
    await waitFor(() => raw.closed, 'the refused socket to close');
    const wrong = backend(server, { projectToken: 'not-the-token' });
    assert.equal(await codeOf(wrong.connect()), 'UNAUTHORIZED');
    const stranger = new Raw(server.url);
    assert.equal(((await stranger.join({ projectId: 'nobody' }))['error'] as { code: string }).code, 'UNAUTHORIZED');
    // A backend that does present its token in the first frame is let in.
    const good = backend(server);
    assert.ok((await good.connect()).clientId);
    await good.disconnect();
  });

  it('answers info() with the project’s active shards only', async () => {
    const a = backend(server);
    const b = backend(server);
    await a.connect({ shardName: 'info-a' });
    await b.connect({ shardName: 'info-b' });
    const stranger = new Raw(server.url);
    await stranger.join({ projectId: 'other', shardName: 'elsewhere' });
    const names = (await a.info()).map((shard) => shard.shardName).sort();
    assert.ok(names.includes('info-a') && names.includes('info-b'));
    assert.ok(!names.includes('elsewhere'));
    assert.deepEqual(
      (await a.info()).find((shard) => shard.shardName === 'info-a'),
      { shardName: 'info-a', numConnectedClients: 1 },
    );
    await a.disconnect();
    await b.disconnect();
    stranger.close();
  });
});

describe('signaling server: presence, identity and delivery', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  async function pastToken(userId: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer('platform-kit')
      .setAudience(PROJECT)
      .setSubject(userId)
      .setIssuedAt(now - 120)
      .setExpirationTime(now - 60)
      .sign(new TextEncoder().encode(SECRET));
  }

  it('sends presence on connect, setUserInfo and disconnect, with the whole list', async () => {
    const a = new Raw(server.url);
    const joined = await a.join({ shardName: 'presence', userInfo: { name: 'Ann' } });
    assert.equal((joined['members'] as unknown[]).length, 1);
    const b = new Raw(server.url);
    const joinedB = await b.join({ shardName: 'presence' });
    const members = joinedB['members'] as { clientId: string; userInfo: unknown; userId: unknown; connectedAt: number }[];
    assert.deepEqual(
      members.map((m) => m.userInfo),
      [{ name: 'Ann' }, {}],
    );
    assert.ok(members.every((m) => m.userId === null && typeof m.connectedAt === 'number'));
    const added = await a.next((f) => f.type === 'presence' && f['op'] === 'add');
    assert.equal((added['member'] as { clientId: string }).clientId, joinedB['clientId']);
    await b.request({ type: 'userInfo', userInfo: { name: 'Bob' } });
    const updated = await a.next((f) => f.type === 'presence' && f['op'] === 'update');
    assert.deepEqual((updated['member'] as { userInfo: unknown }).userInfo, { name: 'Bob' });
    const tooBig = await b.request({ type: 'userInfo', userInfo: { blob: 'x'.repeat(5_000) } });
    assert.equal((tooBig['error'] as { code: string }).code, 'VALUE_TOO_LARGE');
    await b.request({ type: 'leave' });
    const removed = await a.next((f) => f.type === 'presence' && f['op'] === 'remove');
    assert.equal(removed['clientId'], joinedB['clientId']);
    a.close();
  });

  it('identifies with a token at connect or later; a bad token answers INVALID_TOKEN or TOKEN_EXPIRED and stays connected', async () => {
    const { token } = await server.issueUserToken(PROJECT, 'user-7');
    const a = backend(server);
    const b = backend(server);
    const errors: string[] = [];
    b.onError((error) => errors.push(error.code));
    await a.connect({ shardName: 'ident', authorization: token });
    assert.equal(a.session.userId, 'user-7');
    await b.connect({ shardName: 'ident', authorization: 'not-a-jwt' });
    assert.deepEqual(errors, ['INVALID_TOKEN']);
    assert.equal(b.session.userId, null);
    assert.equal(b.session.state, 'connected');
    assert.equal(await codeOf(b.identify(await pastToken('user-8'))), 'TOKEN_EXPIRED');
    const foreign = await server.issueUserToken('other', 'user-8');
    assert.equal(await codeOf(b.identify(foreign.token)), 'INVALID_TOKEN'); // another project's token
    assert.equal(b.session.state, 'connected');
    await b.identify((await server.issueUserToken(PROJECT, 'user-8')).token);
    assert.equal(b.session.userId, 'user-8');
    await waitFor(() => a.session.connectedClients.some((c) => c.userId === 'user-8'), 'presence to show user-8');

    // Recipients by user id and by client id; metadata names the sender and its verified user id.
    const got: { to: string; meta: unknown }[] = [];
    b.on('note', (payload, meta) => got.push({ to: String(payload['to']), meta: { clientId: meta.clientId, userId: meta.userId } }));
    await a.emitEvent('note', { to: 'by-user' }, ['user-8']);
    await a.emitEvent('note', { to: 'by-client' }, b.connectionInfo!.clientId);
    await a.emitEvent('note', { to: 'nobody' }, ['user-9']);
    await waitFor(() => got.length === 2, 'two targeted events');
    await sleep(50);
    assert.deepEqual(
      got.map((g) => g.to),
      ['by-user', 'by-client'],
    );
    assert.deepEqual(got[0]!.meta, { clientId: a.connectionInfo!.clientId, userId: 'user-7' });
    await a.disconnect();
    await b.disconnect();
  });

  it('broadcasts to every other member, never to the sender, in order and without duplicates', async () => {
    // The sender opts out of hearing its own broadcasts (which its client delivers locally, not the
    // server; dispatch-delivery.test.ts): what it hears here is only what the server sends it.
    const clients = [backend(server, { receiveOwnBroadcasts: false }), backend(server), backend(server)];
    for (const client of clients) await client.connect({ shardName: 'order' });
    const received = clients.map(() => [] as number[]);
    clients.forEach((client, index) => client.on('n', (payload) => received[index]!.push(payload['i'] as number)));
    for (let i = 0; i < 150; i++) await clients[0]!.emitEvent('n', { i });
    await waitFor(() => received[1]!.length === 150 && received[2]!.length === 150, 'all events');
    await sleep(50);
    assert.deepEqual(received[0], []);
    assert.deepEqual(
      received[1],
      Array.from({ length: 150 }, (_, i) => i),
    );
    assert.deepEqual(received[2], received[1]);
    for (const client of clients) await client.disconnect();
  });

  it('enforces payload size, event rate and event names', async () => {
    const limited = await startServer({ limits: { maxEventsPerSecond: 20 } });
    try {
      const sender = new Raw(limited.url);
      await sender.join({ shardName: 'limits' });
      const receiver = new Raw(limited.url);
      await receiver.join({ shardName: 'limits' });
      let seq = 0;
      sender.send({ type: 'emit', seq: ++seq, name: 'big', payload: { blob: 'x'.repeat(64 * 1024) }, ts: 0 });
      const big = await sender.next((f) => f.type === 'error' && f['seq'] === 1);
      assert.equal((big['error'] as { code: string }).code, 'PAYLOAD_TOO_LARGE');
      sender.send('x'.repeat(200 * 1024));
      assert.equal(((await sender.next((f) => f.type === 'error' && f['seq'] === undefined))['error'] as { code: string }).code, 'PAYLOAD_TOO_LARGE');
      // 60 at once: 40 pass (burst 2 × 20), 20 are refused; under the 30 refusals that would close the socket.
      for (let i = 0; i < 60; i++) sender.send({ type: 'emit', seq: ++seq, name: 'fast', payload: { i }, ts: 0 });
      const limitedFrame = await sender.next((f) => f.type === 'error' && (f['error'] as { code: string }).code === 'RATE_LIMITED');
      assert.ok((limitedFrame['seq'] as number) > 40);
      await sleep(100);
      const delivered = receiver.frames.filter((f) => f.type === 'event').length;
      assert.ok(delivered >= 39 && delivered <= 45, `burst of 2 × 20 delivered, got ${delivered}`);
      sender.send({ type: 'emit', seq: ++seq, name: 'platform:reserved', payload: {}, ts: 0 });
      assert.equal(((await sender.next((f) => f.type === 'error' && f['seq'] === undefined))['error'] as { code: string }).code, 'INVALID_MESSAGE');
      // A client that keeps going past the rate is not answered forever: past maxRefusals (30) its socket closes, 4029.
      for (let i = 0; i < 60; i++) sender.send({ type: 'emit', seq: ++seq, name: 'fast', payload: { i }, ts: 0 });
      await waitFor(() => sender.closed, 'the flooding socket to be closed');
      assert.equal(sender.closeCode, 4029);
      // The client checks the same limits before anything leaves.
      const client = backend(limited);
      await client.connect({ shardName: 'limits' });
      assert.equal(await codeOf(client.emitEvent('big', { blob: 'x'.repeat(70_000) })), 'PAYLOAD_TOO_LARGE');
      assert.equal(await codeOf(client.emitEvent('bad name!', {})), 'INVALID_NAME');
      assert.equal(await codeOf(client.emitEvent('ok', [] as never)), 'INVALID_ARGUMENT');
      const codes = await Promise.all(Array.from({ length: 60 }, (_, i) => codeOf(client.emitEvent('fast', { i }))));
      assert.ok(codes.includes('RATE_LIMITED'));
      await client.disconnect();
      sender.close();
      receiver.close();
    } finally {
      await limited.close();
    }
  });
});

describe('signaling server: heartbeats', () => {
  it('notices a dead socket within two heartbeat intervals and presence follows; default interval keeps it under 30 s', async () => {
    const server = await startServer({ heartbeatIntervalMs: 100 });
    try {
      const watcher = new Raw(server.url);
      await watcher.join({ shardName: 'beat' });
      const dead = new Raw(server.url);
      const joined = await dead.join({ shardName: 'beat' });
      await watcher.next((f) => f.type === 'presence' && f['op'] === 'add');
      // Stop reading: no pong ever leaves this socket again, as with a vanished peer.
      (dead.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      const started = Date.now();
      const removed = await watcher.next((f) => f.type === 'presence' && f['op'] === 'remove', 2_000);
      assert.equal(removed['clientId'], joined['clientId']);
      assert.ok(Date.now() - started < 400, `removed after ${Date.now() - started} ms`);
      // The watcher itself answers pings and stays.
      await sleep(300);
      assert.equal(watcher.closed, false);
      watcher.close();
      dead.close();
    } finally {
      await server.close();
    }
    // Defaults: 10 s pings, removal after two silent intervals (≤ 20 s < 30 s).
    const defaults = await startServer();
    const raw = new Raw(defaults.url);
    const joined = await raw.join();
    assert.equal((joined['limits'] as { heartbeatIntervalMs: number }).heartbeatIntervalMs, 10_000);
    assert.equal((joined['limits'] as { reconnectGraceMs: number }).reconnectGraceMs, 30_000);
    raw.close();
    await defaults.close();
  });

  it('closes a socket whose join waits on a store that never answers (the join timeout covers joining too)', async () => {
    // A custom ShardStore (the public interface) whose join never settles: what a store that hangs
    // without a command timeout of its own does. Everything else is the memory store.
    const memory = createMemoryStore();
    const hanging: ShardStore = { ...bindStore(memory), join: () => new Promise<never>(() => undefined) };
    const server = await startServer({ store: hanging, heartbeatIntervalMs: 50, joinTimeoutMs: 200 });
    try {
      const stuck = new Raw(server.url);
      await stuck.opened;
      stuck.send({ type: 'join', v: 1, id: 1, projectId: PROJECT, kind: 'browser' });
      await waitFor(() => stuck.closed, 'the joining socket to close', 5_000);
      assert.equal(stuck.closeCode, 4008);
    } finally {
      await server.close();
      await memory.close();
    }
  });

  it('sweeps in slices: every socket past the first slice is pinged, and a silent one there is terminated', async () => {
    // The sweep lets the event loop run between slices of SWEEP_SLICE sockets (a node of 16,667
    // clients was held 0.5 to 2 s by one pass, past its lease): none may be skipped for it.
    const count = 2 * SWEEP_SLICE + 50;
    const server = await startServer({ heartbeatIntervalMs: 300, joinTimeoutMs: 600_000, limits: { maxUnjoinedSocketsPerAddress: count + 10 } });
    const sockets: WebSocket[] = [];
    try {
      const pings = new Map<WebSocket, number>();
      for (let index = 0; index < count; index++) {
        const ws = new WebSocket(`${server.url.replace('http', 'ws')}/dispatch`);
        pings.set(ws, 0);
        ws.on('ping', () => pings.set(ws, (pings.get(ws) ?? 0) + 1));
        sockets.push(ws);
      }
      await waitFor(() => sockets.every((ws) => ws.readyState === ws.OPEN), `${count} sockets to open`, 30_000);
      // The last socket opened is in the last slice (the snapshot keeps the order sockets came in).
      const silent = sockets.at(-1)!;
      (silent as unknown as { _socket: { pause(): void } })._socket.pause();
      await waitFor(() => sockets.slice(0, -1).every((ws) => (pings.get(ws) ?? 0) >= 2), 'two pings to reach every other socket', 30_000);
      const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
      (silent as unknown as { _socket: { resume(): void } })._socket.resume();
      await silentClosed;
      assert.ok(
        sockets.slice(0, -1).every((ws) => ws.readyState === ws.OPEN),
        'the sockets that answered stay open',
      );
    } finally {
      for (const ws of sockets) ws.terminate();
      await server.close();
    }
  });

  it('closes sockets that never join', async () => {
    const server = await startServer({ heartbeatIntervalMs: 50, joinTimeoutMs: 100 });
    try {
      const idle = new Raw(server.url);
      await idle.opened;
      await waitFor(() => idle.closed, 'the idle socket to close', 2_000);
    } finally {
      await server.close();
    }
  });
});

describe('signaling server: peer signaling (PeerJS protocol)', () => {
  let server: SignalingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  function peerSocket(id: string, token: string): Promise<{ ws: WebSocket; frames: Frame[]; next: () => Promise<Frame> }> {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/peerjs/peerjs?key=peerjs&id=${id}&token=${token}&version=1.5.5`);
    const frames: Frame[] = [];
    const waiters: ((frame: Frame) => void)[] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      const waiter = waiters.shift();
      if (waiter) waiter(frame);
      else frames.push(frame);
    });
    const next = () => (frames.length ? Promise.resolve(frames.shift()!) : new Promise<Frame>((resolve) => waiters.push(resolve)));
    return new Promise((resolve) => ws.once('open', () => resolve({ ws, frames, next })));
  }

  it('opens only ids the server issued, forwards within a shard only, and adds the true src', async () => {
    const a = new Raw(server.url);
    const b = new Raw(server.url);
    const c = new Raw(server.url);
    const peerA = (await a.join({ shardName: 'mesh' }))['peer'] as { id: string; token: string };
    const peerB = (await b.join({ shardName: 'mesh' }))['peer'] as { id: string; token: string };
    const peerC = (await c.join({ shardName: 'elsewhere' }))['peer'] as { id: string; token: string };
    const sa = await peerSocket(peerA.id, peerA.token);
    const sb = await peerSocket(peerB.id, peerB.token);
    const sc = await peerSocket(peerC.id, peerC.token);
    assert.equal((await sa.next()).type, 'OPEN');
    assert.equal((await sb.next()).type, 'OPEN');
    assert.equal((await sc.next()).type, 'OPEN');
    // Someone else's id, or a made-up one: refused.
    const thief = await peerSocket(peerA.id, 'guessed-token');
    assert.equal((await thief.next()).type, 'ID-TAKEN');
    sa.ws.send(JSON.stringify({ type: 'OFFER', dst: peerB.id, src: 'forged', payload: { sdp: 'x', connectionId: 'dc_1' } }));
    const offer = await sb.next();
    assert.deepEqual(offer, { type: 'OFFER', src: peerA.id, dst: peerB.id, payload: { sdp: 'x', connectionId: 'dc_1' } });
    // Across shards: the offer never arrives, the sender hears EXPIRE.
    sa.ws.send(JSON.stringify({ type: 'OFFER', dst: peerC.id, payload: { connectionId: 'dc_2' } }));
    assert.deepEqual(await sa.next(), { type: 'EXPIRE', src: peerC.id });
    await sleep(50);
    assert.equal(sc.frames.length, 0);
    sa.ws.send('not json');
    sa.ws.send(JSON.stringify({ type: 'HEARTBEAT' }));
    // Leaving revokes the id.
    await a.request({ type: 'leave' });
    await new Promise<void>((resolve) => (sa.ws.readyState === sa.ws.CLOSED ? resolve() : sa.ws.once('close', () => resolve())));
    const again = await peerSocket(peerA.id, peerA.token);
    assert.equal((await again.next()).type, 'ID-TAKEN');
    for (const s of [sb, sc, again, thief]) s.ws.terminate();
    b.close();
    c.close();
  });
});
