// Feed-aware presence (issue 27): a member is `here` or `away`, others see
// it (ConnectedClient.state), onConnectedClientsChanged lists who is here
// unless asked for away members too, away members count toward capacity,
// and the state is the member's own: nobody sets another's, a malformed
// frame is refused, and a flood of flips is rate limited and reaches the
// others as a bounded number of frames. On a real server with the session
// both clients share (guest/dispatch/session.ts) and raw sockets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConnectedClient } from '../../protocol/signaling.js';
import type { SignalingServer } from '../../signaling/index.js';
import { clientPool, PROJECT, startServer, waitFor, type Frame } from './signaling-support.js';

const stateOf = (list: readonly ConnectedClient[], clientId: string): string | undefined => list.find((client) => client.clientId === clientId)?.state;
const members = (frame: Frame): { clientId: string; state: string }[] => frame['members'] as { clientId: string; state: string }[];

describe('presence: here and away', () => {
  let server: SignalingServer;
  const { open, raw, close } = clientPool(() => server.url);
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await close();
    await server.close();
  });

  it('a member that joins away is listed to others only on request, and at once once it is here', async () => {
    const viewer = open();
    const hereOnly: ConnectedClient[][] = [];
    const everyone: ConnectedClient[][] = [];
    viewer.onConnectedClientsChanged((list) => hereOnly.push(list));
    viewer.onConnectedClientsChanged((list) => everyone.push(list), { includeAway: true });
    const { clientId: viewerId } = await viewer.connect({ shardName: 'feed-item' });

    const preloaded = open();
    preloaded.setPresenceState('away'); // before connect(): the join itself says away
    const ownLists: ConnectedClient[][] = [];
    preloaded.onConnectedClientsChanged((list) => ownLists.push(list));
    const { clientId: preloadedId } = await preloaded.connect({ shardName: 'feed-item' });

    await waitFor(() => stateOf(everyone.at(-1) ?? [], preloadedId) === 'away', 'the away member in the includeAway list');
    assert.equal(stateOf(hereOnly.at(-1) ?? [], preloadedId), undefined, 'the default list leaves an away member out');
    assert.deepEqual(
      hereOnly.at(-1)?.map((c) => c.clientId),
      [viewerId],
    );
    // The preloaded member itself: the others here, not itself while away.
    assert.deepEqual(
      ownLists.at(-1)?.map((c) => c.clientId),
      [viewerId],
    );

    const before = ownLists.length;
    preloaded.setPresenceState('here');
    // Its own list changes at once (no round trip): the members were known already.
    assert.equal(ownLists.length, before + 1);
    assert.deepEqual(new Set(ownLists.at(-1)?.map((c) => c.clientId)), new Set([viewerId, preloadedId]));
    await waitFor(() => stateOf(hereOnly.at(-1) ?? [], preloadedId) === 'here', 'the member listed once here');
    assert.equal(viewer.connectedClients.find((c) => c.clientId === preloadedId)?.state, 'here');

    preloaded.setPresenceState('away');
    await waitFor(() => stateOf(hereOnly.at(-1) ?? [], preloadedId) === undefined, 'the member gone from the default list once away');
    assert.equal(stateOf(everyone.at(-1) ?? [], preloadedId), 'away');
  });

  it('a member that comes back after a drop keeps its state: the resume carries it', async () => {
    const watcher = open();
    const everyone: ConnectedClient[][] = [];
    watcher.onConnectedClientsChanged((list) => everyone.push(list), { includeAway: true });
    await watcher.connect({ shardName: 'resume-state' });
    const member = open();
    member.setPresenceState('away');
    const { clientId } = await member.connect({ shardName: 'resume-state' });
    await waitFor(() => stateOf(everyone.at(-1) ?? [], clientId) === 'away', 'listed away');
    member.dropSocketForTest();
    await waitFor(() => stateOf(everyone.at(-1) ?? [], clientId) === undefined, 'gone while dropped');
    await waitFor(() => stateOf(everyone.at(-1) ?? [], clientId) === 'away', 'back, still away');
  });

  it('a state set while the join is on its way reaches the server once joined', async () => {
    const watcher = open();
    const everyone: ConnectedClient[][] = [];
    watcher.onConnectedClientsChanged((list) => everyone.push(list), { includeAway: true });
    await watcher.connect({ shardName: 'late-state' });
    const member = open();
    const joining = member.connect({ shardName: 'late-state' });
    member.setPresenceState('away'); // the join left saying here
    const { clientId } = await joining;
    await waitFor(() => stateOf(everyone.at(-1) ?? [], clientId) === 'away', 'the member away at the watcher');
    assert.equal(member.connectedClients.find((c) => c.clientId === clientId)?.state, 'away');
  });

  it('away members count toward maxConnectionsPerShard: a seat held for the viewer who swipes to it', async () => {
    const a = raw();
    const b = raw();
    const c = raw();
    assert.equal((await a.join({ shardName: 'two-seats', maxConnectionsPerShard: 2, state: 'away' })).type, 'joined');
    assert.equal((await b.join({ shardName: 'two-seats', maxConnectionsPerShard: 2 })).type, 'joined');
    const third = await c.join({ shardName: 'two-seats', maxConnectionsPerShard: 2 });
    assert.equal(third.type, 'error');
    assert.equal((third['error'] as { code: string }).code, 'SHARD_FULL');
  });

  it('hostile: a focus frame sets only its sender, a malformed one is refused, and a flood is rate limited and bounded for the others', async () => {
    const victim = raw();
    const attacker = raw();
    const observer = raw();
    const victimJoin = await victim.join({ v: 2, shardName: 'hostile-focus' });
    const victimId = victimJoin['clientId'] as string;
    const attackerJoin = await attacker.join({ v: 2, shardName: 'hostile-focus' });
    const attackerId = attackerJoin['clientId'] as string;
    await observer.join({ v: 2, shardName: 'hostile-focus' });

    // Forged: a clientId (or a member) in the frame names nobody; the server changes the sender only.
    const forged = await attacker.request({ type: 'focus', state: 'away', clientId: victimId, member: { clientId: victimId } });
    assert.equal(forged.type, 'ok');
    const updates = (): [string, string][] =>
      observer.frames
        .flatMap((f) => (f.type !== 'presence' ? [] : f['op'] === 'batch' ? (f['changes'] as Frame[]) : [f]))
        .filter((change) => change['op'] === 'update')
        .map((change) => change['member'] as { clientId: string; state: string })
        .map((m) => [m.clientId, m.state]);
    await waitFor(() => updates().length > 0, 'the update');
    assert.deepEqual(updates(), [[attackerId, 'away']]);

    // Malformed: refused at the door (no id is read from a frame that does not parse), nothing changes.
    for (const bad of [
      { type: 'focus', id: 7, state: 'gone' },
      { type: 'focus', id: 8 },
      { type: 'focus', id: 9, state: ['here'] },
      { type: 'join', id: 10, v: 2, projectId: PROJECT, kind: 'browser', state: 'sleeping' },
    ]) {
      attacker.send(bad);
      const answer = await attacker.next((f) => f.type === 'error');
      assert.equal((answer['error'] as { code: string }).code, 'INVALID_MESSAGE', JSON.stringify(bad));
    }
    assert.deepEqual(updates(), [[attackerId, 'away']]);

    // A flood of flips: the door's message rate refuses most, the socket goes once its refusals run out.
    const observed = updates().length;
    const flips = 400;
    const started = performance.now();
    for (let i = 0; i < flips; i++) attacker.send({ type: 'focus', id: 1000 + i, state: i % 2 === 0 ? 'here' : 'away' });
    await waitFor(() => attacker.closed, 'the flooder disconnected', 30_000);
    const elapsedS = (performance.now() - started) / 1000;
    await waitFor(() => observer.frames.length > 0 && updates().length > observed, 'the flips that were admitted');
    const admitted = updates().length - observed;
    // The invariant, whatever the machine's speed: a bucket of 2 × 50 refilled at 50/s admits at most that many.
    const bound = 100 + Math.ceil(elapsedS * 50) + 1;
    assert.ok(admitted <= bound, `${admitted} state changes reached the observer for ${flips} flips in ${elapsedS.toFixed(2)} s (bound ${bound})`);
    assert.ok(admitted < flips, `${admitted} of ${flips}`);
    assert.equal(attacker.closeCode, 4029);
    // The server is fine, and the victim is still here for a newcomer.
    const late = raw();
    const lateJoin = await late.join({ shardName: 'hostile-focus' });
    assert.equal(members(lateJoin).find((m) => m.clientId === victimId)?.state, 'here');
  });

  it('a socket outside any shard has no state to set: focus before join is NOT_CONNECTED', async () => {
    const socket = raw();
    await socket.opened;
    const answer = await socket.request({ type: 'focus', state: 'here' });
    assert.equal((answer['error'] as { code: string }).code, 'NOT_CONNECTED');
  });
});
