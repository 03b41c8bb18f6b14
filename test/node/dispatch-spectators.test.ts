// Spectators on one node (issue 27): `spectateWhenFull` at a full named
// shard and `spectator: true` watch instead of play: they hear every
// broadcast in order, the players' presence and how many watch; they do not
// count toward maxConnectionsPerShard, are in no member list, have no peer id
// (the relay serves them, never the mesh), cannot emit (FORBIDDEN), and take
// a seat when one frees (the `seat` frame, then takeSeat). Bounded by
// maxSpectatorsPerShard and the door's rate limits. Real server, the session
// both clients share, and raw sockets for what no client sends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConnectedClient, EventPayload } from '../../protocol/signaling.js';
import type { SignalingServer } from '../../signaling/index.js';
import { clientPool, codeOf, startServer, waitFor, type Frame } from './signaling-support.js';

const errorCode = (frame: Frame): string | undefined => (frame['error'] as { code?: string } | undefined)?.code;

describe('spectators on one node', () => {
  let server: SignalingServer;
  const { open, raw, close } = clientPool(() => server.url);
  before(async () => {
    server = await startServer({ limits: { maxSpectatorsPerShard: 3 } });
  });
  after(async () => {
    await close();
    await server.close();
  });

  it('a full named shard makes a spectateWhenFull client a spectator: it hears every broadcast in order, the players and the count, and is no member', async () => {
    const alice = open();
    const bob = open();
    await alice.connect({ shardName: 'arena', maxConnectionsPerShard: 2 });
    await bob.connect({ shardName: 'arena', maxConnectionsPerShard: 2 });
    // Without the option a full shard still refuses.
    assert.equal(await codeOf(open().connect({ shardName: 'arena', maxConnectionsPerShard: 2 })), 'SHARD_FULL');

    const watcher = open();
    const heard: number[] = [];
    const lists: ConnectedClient[][] = [];
    watcher.on('tick', (payload: EventPayload) => heard.push(payload['n'] as number));
    watcher.onConnectedClientsChanged((list) => lists.push(list));
    const info = await watcher.connect({ shardName: 'arena', maxConnectionsPerShard: 2, spectateWhenFull: true });
    assert.equal(info.spectator, true);
    assert.equal(info.shardName, 'arena');
    // The players, not the spectator.
    assert.deepEqual(new Set(lists.at(-1)?.map((c) => c.clientId)), new Set([alice.connectionInfo!.clientId, bob.connectionInfo!.clientId]));
    // Players learn how many watch.
    const counts: number[] = [];
    alice.audience.onCount((count) => counts.push(count));
    await waitFor(() => alice.audience.count === 1, 'the players told one watches');
    assert.ok(!alice.connectedClients.some((c) => c.clientId === info.clientId), 'a spectator is in no member list');

    for (let n = 1; n <= 50; n++) void alice.emitEvent('tick', { n });
    await waitFor(() => heard.length === 50, 'every broadcast at the spectator');
    assert.deepEqual(
      heard,
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    // An event with recipients is the players' own.
    await bob.emitEvent('tick', { n: 99 }, alice.connectionInfo!.clientId);
    await alice.emitEvent('tick', { n: 100 });
    await waitFor(() => heard.length === 51, 'the next broadcast');
    assert.equal(heard.at(-1), 100);

    assert.equal(await codeOf(watcher.emitEvent('tick', { n: -1 })), 'FORBIDDEN');
    await watcher.disconnect();
    await waitFor(() => alice.audience.count === 0, 'the count back to 0');
    assert.deepEqual(counts.at(-1), 0);
  });

  it('hostile: a spectator that emits anyway is refused FORBIDDEN, nothing reaches the players, and a flood ends with its socket', async () => {
    const player = raw();
    await player.join({ shardName: 'guarded', maxConnectionsPerShard: 1 });
    const spy = raw();
    const joined = await spy.join({ shardName: 'guarded', spectator: true });
    assert.equal(joined.type, 'joined');
    assert.equal(joined['spectator'], true);
    assert.equal(joined['peer'], null, 'no peer id: the mesh never links a spectator');
    spy.send({ type: 'emit', seq: 1, name: 'cheat', payload: {}, ts: Date.now() });
    const refused = await spy.next((f) => f.type === 'error');
    assert.equal(errorCode(refused), 'FORBIDDEN');
    assert.equal(refused['seq'], 1);
    for (let seq = 2; seq < 300; seq++) spy.send({ type: 'emit', seq, name: 'cheat', payload: {}, ts: Date.now() });
    await waitFor(() => spy.closed, 'the flooding spectator disconnected', 30_000);
    assert.equal(spy.closeCode, 4029);
    assert.ok(!player.frames.some((f) => f.type === 'event'), 'no event of a spectator reached a player');
    // A player's takeSeat is refused: it has a seat.
    assert.equal(errorCode(await player.request({ type: 'takeSeat' })), 'INVALID_MESSAGE');
  });

  it('spectator: true without a shard name watches the fullest shard; with none, NOT_FOUND', async () => {
    const lonely = raw();
    const empty = await lonely.join({ projectId: 'other', spectator: true });
    assert.equal(errorCode(empty), 'NOT_FOUND');
    // In the other project, where no earlier test played.
    const players = [raw(), raw(), raw()];
    await players[0]!.join({ projectId: 'other', shardName: 'small' });
    await players[1]!.join({ projectId: 'other', shardName: 'big' });
    await players[2]!.join({ projectId: 'other', shardName: 'big' });
    const watcher = raw();
    const joined = await watcher.join({ projectId: 'other', spectator: true });
    assert.equal(joined['shardName'], 'big');
    assert.equal((joined['members'] as unknown[]).length, 2);
  });

  it('maxSpectatorsPerShard bounds the spectators of a shard (SHARD_FULL past it), and they never fill the players\u2019 seats', async () => {
    const player = raw();
    await player.join({ shardName: 'popular', maxConnectionsPerShard: 2 });
    const watchers = [raw(), raw(), raw()];
    for (const watcher of watchers) assert.equal((await watcher.join({ shardName: 'popular', spectator: true })).type, 'joined');
    const fourth = await raw().join({ shardName: 'popular', spectator: true });
    assert.equal(errorCode(fourth), 'SHARD_FULL');
    // Three spectators, one player: the second seat is still free.
    assert.equal((await raw().join({ shardName: 'popular', maxConnectionsPerShard: 2 })).type, 'joined');
  });

  it('a spectator hears that a seat is free when a player leaves for good, and takes it: same id, now listed, can emit; a taken seat answers SHARD_FULL', async () => {
    const a = open();
    const b = open();
    await a.connect({ shardName: 'table', maxConnectionsPerShard: 2 });
    await b.connect({ shardName: 'table', maxConnectionsPerShard: 2 });
    const first = open();
    const second = open();
    await first.setUserInfo({ name: 'First' });
    const firstInfo = await first.connect({ shardName: 'table', maxConnectionsPerShard: 2, spectateWhenFull: true });
    await second.connect({ shardName: 'table', maxConnectionsPerShard: 2, spectateWhenFull: true });
    assert.equal(firstInfo.spectator, true);
    assert.equal(await codeOf(first.takeSeat()), 'SHARD_FULL', 'no seat while the shard is full');

    let seats = 0;
    first.audience.onSeat(() => seats++);
    let secondSeats = 0;
    second.audience.onSeat(() => secondSeats++);
    await b.disconnect();
    await waitFor(() => seats === 1 && secondSeats === 1, 'both spectators told a seat is free');

    const seated = await first.takeSeat();
    assert.equal(seated.clientId, firstInfo.clientId);
    assert.deepEqual(seated, { clientId: firstInfo.clientId, shardName: 'table' }, 'a player\u2019s connection, as the spec has it');
    // The other spectator lost the race.
    assert.equal(await codeOf(second.takeSeat()), 'SHARD_FULL');
    await waitFor(() => a.connectedClients.some((c) => c.clientId === seated.clientId && c.userInfo['name'] === 'First'), 'the new player listed with its info');
    const got: number[] = [];
    a.on('hello', (payload) => got.push(payload['n'] as number));
    await first.emitEvent('hello', { n: 1 });
    await waitFor(() => got.length === 1, 'the new player\u2019s event');
    await waitFor(() => a.audience.count === 1, 'one spectator left');
  });
});
