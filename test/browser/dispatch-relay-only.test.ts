import { expect } from '@esm-bundle/chai';
import { memberSuite, waitUntil, waitUntilAsync } from './support/dispatch-member.js';

type Paths = Record<string, 'peer' | 'connecting' | 'relay'>;

/** The session's module and the mesh's, as the dev server serves them (one URL per file). */
const SESSION_MODULE = /\/guest\/dispatch\/browser-session\.ts/;
const MESH_MODULE = /\/guest\/dispatch\/(peer-transport|peer-link|held-calls)\.ts|\/peerjs\//;

// What a template loads, and when (issue 27): the first load holds the client's API; the session
// is a module of its own, fetched as soon as the template touches Platform.dispatch (so connect()
// does not wait for it); the mesh is a further one that a relay-only client never fetches. The
// relay-only path is first class: Discord Activities allow no WebRTC at all.
describe('Platform.dispatch: what loads when, and relay-only clients', function () {
  this.timeout(60_000);
  const { member } = memberSuite();

  it("fetches the session's module when the template first touches Platform.dispatch, before any connect()", async () => {
    // The fixture reads Platform.dispatch at load and configures it; it has not connected.
    const a = member();
    await waitUntilAsync(async () => (await a.command<string[]>('resources')).some((url) => SESSION_MODULE.test(url)), "the session's module to be fetched", 20_000);
    expect(await a.command('state')).to.equal('idle');
    expect((await a.command<string[]>('resources')).filter((url) => MESH_MODULE.test(url))).to.deep.equal([]);
  });

  it('a page without RTCPeerConnection exchanges events with mesh members by the relay and loads no mesh code', async () => {
    // Channels between the two mesh members open over real ICE on a loaded 2-core machine (TESTING.md).
    const [a, c] = [member(), member()];
    const b = member({ withoutWebRtc: true });
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'relay-only-room' });
    const infoB = await b.command<{ clientId: string }>('connect', { shardName: 'relay-only-room' });
    const infoC = await c.command<{ clientId: string }>('connect', { shardName: 'relay-only-room' });
    for (const m of [a, b, c]) await m.command('on', 'hi');
    await waitUntil(() => a.lastPresence().length === 3 && b.lastPresence().length === 3 && c.lastPresence().length === 3, 'three members everywhere');

    // Events both ways, broadcast and targeted.
    await b.command('emit', 'hi', { from: 'b' });
    await a.command('emit', 'hi', { from: 'a' }, [infoB.clientId]);
    await c.command('emit', 'hi', { from: 'c' });
    await waitUntil(() => a.events('hi').length === 2 && c.events('hi').length === 2, 'A and C to get B’s broadcast and C’s or A’s', 20_000);
    await waitUntil(() => b.events('hi').length === 3, 'B to get its own broadcast, A’s targeted event and C’s broadcast', 20_000);
    expect(
      b
        .events('hi')
        .map((e) => e.payload['from'])
        .sort(),
    ).to.deep.equal(['a', 'b', 'c']);
    expect(b.events('hi').find((e) => e.payload['from'] === 'a')!.meta.clientId).to.equal(infoA.clientId);

    // B goes everywhere by the relay and made no peer connection; it fetched the session's module and none of the mesh's.
    expect(await b.command<Paths>('paths')).to.deep.equal({ [infoA.clientId]: 'relay', [infoC.clientId]: 'relay' });
    expect(await b.command('peerConnections')).to.deep.equal({ page: 0, mesh: 0 });
    const loadedByB = await b.command<string[]>('resources');
    expect(loadedByB.some((url) => SESSION_MODULE.test(url))).to.equal(true);
    expect(loadedByB.filter((url) => MESH_MODULE.test(url))).to.deep.equal([]);
    // A, a mesh member, did fetch the mesh (so the check above can fail).
    await waitUntilAsync(async () => (await a.command<string[]>('resources')).some((url) => MESH_MODULE.test(url)), 'A to fetch the mesh', 20_000);
    expect(b.errors()).to.deep.equal([]);
  });

  it('mesh: false, in a page with WebRTC: events by the relay, no mesh code, no peer connection', async () => {
    const a = member({ mesh: false });
    const b = member({ mesh: false });
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'mesh-off-room' });
    await b.command('connect', { shardName: 'mesh-off-room' });
    await b.command('on', 'hi');
    await waitUntil(() => a.lastPresence().length === 2 && b.lastPresence().length === 2, 'both members listed');
    await a.command('emit', 'hi', { n: 1 });
    await waitUntil(() => b.events('hi').length === 1, 'B to get A’s event', 20_000);
    expect(b.events('hi')[0]!.meta.clientId).to.equal(infoA.clientId);
    for (const m of [a, b]) {
      expect((await m.command<{ mesh: number }>('peerConnections')).mesh).to.equal(0);
      expect((await m.command<string[]>('resources')).filter((url) => MESH_MODULE.test(url))).to.deep.equal([]);
    }
  });
});
