// A browser client without a mesh (`mesh: false` in its join: relay only, or a page without
// WebRTC such as a Discord Activity) gets no peer id: no member tries a data channel to it (each
// such try waited 10 s for a channel that never opens), and events to it go by the relay at once.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { DispatchSession } from '../../guest/dispatch/session.js';
import type { PeerTransport, PeerTransportFactory } from '../../guest/dispatch/transport.js';
import type { SocketLike } from '../../guest/dispatch/types.js';
import { encodeHandshakeJoin, parseClientMessage, SIGNALING_VERSION, type JoinMessage, type MemberWire } from '../../protocol/signaling.js';
import { controlUrl } from '../../signaling/backend-dispatch.js';
import type { SignalingServer } from '../../signaling/index.js';
import { Cleanup, errorCode, joinMember } from './hostile-support.js';
import { PROJECT, Raw, startServer, waitFor, type Frame } from './signaling-support.js';

/** A browser join; `extra` may hold what no valid join does (the hostile cases). */
const join = (extra: Readonly<Record<string, unknown>> = {}): JoinMessage => ({
  type: 'join',
  v: SIGNALING_VERSION,
  id: 1,
  projectId: PROJECT,
  kind: 'browser',
  userInfo: {},
  ...extra,
});
const signal = (m: Record<string, unknown>): string => JSON.stringify({ type: 'signal', m });
const isSignal = (frame: Frame): boolean => frame.type === 'signal';

/** A peer transport that makes no connection and records every member list the session hands it. */
function recordingMesh(): { factory: PeerTransportFactory; lists: MemberWire[][] } {
  const lists: MemberWire[][] = [];
  const factory: PeerTransportFactory = (): PeerTransport => ({
    reaches: () => false,
    close: () => undefined,
    sendTo: () => false,
    sendState: () => [],
    setMembers: (members) => void lists.push([...members]),
    paths: () => ({}),
    onSignal: () => undefined,
  });
  return { factory, lists };
}

/** A browser-kind session over Node's ws: with `mesh`, a mesh member (a recording transport); without, relay only. */
function session(url: string, mesh?: PeerTransportFactory): DispatchSession {
  return new DispatchSession({
    url: controlUrl(url),
    projectId: PROJECT,
    kind: 'browser',
    createSocket: (target, protocols = []) => new WebSocket(target, [...protocols], { perMessageDeflate: false }) as unknown as SocketLike,
    ...(mesh ? { peerTransport: mesh } : {}),
  });
}

describe('signaling: relay-only browser clients (join with mesh: false)', () => {
  let server: SignalingServer;
  const cleanup = new Cleanup();
  before(async () => (server = await startServer()));
  afterEach(() => cleanup.run());
  after(() => server.close());

  it('issues no peer id to a client that joins with mesh: false, and lists it with peerId null', async () => {
    const relayOnly = new Raw(server.url, encodeHandshakeJoin(join({ shardName: 'relay-only', mesh: false }))!);
    cleanup.defer(() => relayOnly.close());
    const joinedA = await relayOnly.next((frame) => frame['id'] === 1);
    assert.equal(joinedA.type, 'joined');
    assert.equal(joinedA['peer'], null);
    assert.deepEqual(
      (joinedA['members'] as MemberWire[]).map((member) => member.peerId),
      [null],
    );

    // A mesh member of the same shard has a peer id, and sees none for the relay-only one.
    const meshed = await joinMember(server.url, 'relay-only', {}, { meshSignaling: 'control' });
    cleanup.member(meshed);
    assert.equal(typeof meshed.peer.id, 'string');
    const members = meshed.joined['members'] as MemberWire[];
    assert.equal(members.find((member) => member.clientId === joinedA['clientId'])!.peerId, null);
    assert.equal(members.find((member) => member.clientId === meshed.clientId)!.peerId, meshed.peer.id);
  });

  it('a mesh member is told no peer id for it (so it makes no link) and its events reach it by the relay at once', async () => {
    const { factory, lists } = recordingMesh();
    const meshMember = session(server.url, factory);
    const relayOnly = session(server.url);
    cleanup.defer(() => Promise.all([meshMember.disconnect(), relayOnly.disconnect()]));
    const heard: unknown[] = [];
    relayOnly.on('hi', (payload) => heard.push(payload));
    const infoA = await meshMember.connect({ shardName: 'relay-only-session' });
    const infoB = await relayOnly.connect({ shardName: 'relay-only-session' });
    await waitFor(() => meshMember.connectedClients.length === 2, 'the mesh member to list the relay-only one');
    // Sent the moment it is listed: nothing to wait for, no channel to give up on.
    await meshMember.emitEvent('hi', { n: 1 }, infoB.clientId);
    await waitFor(() => heard.length === 1, 'the relay-only member to hear the event');
    assert.deepEqual(heard, [{ n: 1 }]);
    // The mesh was started and told of the relay-only member, always without a peer id.
    await waitFor(() => lists.some((list) => list.some((member) => member.clientId === infoB.clientId)), 'the mesh to hear of the relay-only member');
    for (const list of lists) {
      const entry = list.find((member) => member.clientId === infoB.clientId);
      if (entry) assert.equal(entry.peerId, null);
      assert.equal(typeof list.find((member) => member.clientId === infoA.clientId)?.peerId, 'string');
    }
    assert.deepEqual(meshMember.paths(), { [infoB.clientId]: 'relay' });
  });

  it('refuses signal frames from a relay-only member (FORBIDDEN) and routes none to it', async () => {
    const relayOnly = cleanup.member(await joinMember(server.url, 'relay-only-signal', {}, { mesh: false }));
    const meshed = cleanup.member(await joinMember(server.url, 'relay-only-signal', {}, { meshSignaling: 'control' }));
    relayOnly.control.send(signal({ type: 'OFFER', dst: meshed.peer.id, payload: { sdp: 'x' } }));
    assert.equal(errorCode(await relayOnly.control.next((frame) => frame.type === 'error', 5_000)), 'FORBIDDEN');
    // Towards it: it has no peer id to name. Naming its client id, or anything else, reaches nobody: EXPIRE.
    meshed.control.send(signal({ type: 'OFFER', dst: relayOnly.clientId, payload: { sdp: 'y' } }));
    const expire = await meshed.control.next(isSignal, 5_000);
    assert.equal((expire['m'] as Record<string, unknown>)['type'], 'EXPIRE');
    assert.equal(await meshed.control.maybeNext((frame) => frame.type === 'signal' && (frame['m'] as { type?: string }).type === 'OFFER', 300), null);
    assert.equal(relayOnly.control.frames.filter(isSignal).length, 0, 'nothing was signalled to the relay-only member');
  });

  it('a relay-only spectator that takes a seat plays without a peer id', async () => {
    const player = cleanup.member(await joinMember(server.url, 'relay-only-seat', {}, { maxConnectionsPerShard: 1 }));
    const watcher = cleanup.member(await joinMember(server.url, 'relay-only-seat', {}, { mesh: false, spectateWhenFull: true, maxConnectionsPerShard: 1 }));
    assert.equal(watcher.joined['spectator'], true);
    await player.control.request({ type: 'leave' });
    player.control.terminate();
    await watcher.control.next((frame) => frame.type === 'seat', 10_000);
    const seated = await watcher.control.request({ type: 'takeSeat' }, 10_000);
    assert.equal(seated.type, 'joined', JSON.stringify(seated));
    assert.equal(seated['peer'], null);
  });

  it('refuses any other value of mesh, and mesh: false beside meshSignaling, with INVALID_MESSAGE', async () => {
    const bad = [{ mesh: true }, { mesh: 'false' }, { mesh: 0 }, { mesh: null }, { mesh: false, meshSignaling: 'control' }];
    for (const extra of bad) {
      assert.equal(parseClientMessage(join(extra)), null, JSON.stringify(extra));
      const raw = new Raw(server.url);
      cleanup.defer(() => raw.close());
      await raw.opened;
      raw.send({ ...join(), ...extra });
      // A malformed frame is answered without its id (the server does not read one from it).
      const answer = await raw.next((frame) => frame.type === 'error' || frame.type === 'joined');
      assert.equal(errorCode(answer), 'INVALID_MESSAGE', JSON.stringify(extra));
    }
    assert.ok(parseClientMessage(join({ mesh: false })));
  });
});
