import { expect } from '@esm-bundle/chai';
import { memberSuite, waitUntil, waitUntilAsync, type Member } from './support/dispatch-member.js';

type Paths = Record<string, 'peer' | 'connecting' | 'relay'>;

/** The session's module and the mesh's (with peerjs), as the dev server serves them (one URL per file). */
const SESSION_MODULE = /\/guest\/dispatch\/browser-session\.ts/;
const MESH_MODULE = /\/guest\/dispatch\/(peer-transport|peer-link|held-calls)\.ts|peerjs/;
/** peerjs: /node_modules/peerjs/… or, in this suite, the dev server's bundle of it (/__platform-kit/peerjs.mjs). */
const PEERJS = /peerjs/;

const fetched = async (member: Member, pattern: RegExp): Promise<string[]> => (await member.command<string[]>('resources')).filter((url) => pattern.test(url));

// What a template loads, and when (issue 27): the first load holds the client's API; the session
// is a module of its own, fetched as soon as the template touches Platform.dispatch, and then the
// mesh's and peerjs at the page's next idle moment (so that connect() waits for no download and
// compiles nothing); with Save-Data, peerjs waits for connect(). A relay-only client never fetches
// the mesh. The relay-only path is first class: Discord Activities allow no WebRTC at all.
describe('Platform.dispatch: what loads when, and relay-only clients', function () {
  this.timeout(60_000);
  const { member } = memberSuite();

  it("fetches the session's module, the mesh's and peerjs when the template first touches Platform.dispatch, before any connect()", async () => {
    // The fixture reads Platform.dispatch at load and configures it; it does not connect.
    const a = member();
    const relayOnly = member({ mesh: false });
    for (const m of [a, relayOnly]) await waitUntilAsync(async () => (await fetched(m, SESSION_MODULE)).length > 0, "the session's module to be fetched", 20_000);
    await waitUntilAsync(async () => (await fetched(a, MESH_MODULE)).length > 0, "the mesh's module to be fetched", 20_000);
    // peerjs, at the page's first idle moment (at most 2 s after the mesh's module is in): not beside
    // the join, where its compiling held the control socket and the first offer back (players-meet).
    await waitUntilAsync(async () => (await fetched(a, PEERJS)).length > 0, 'peerjs to be fetched', 20_000);
    expect(await a.command('state')).to.equal('idle');
    // configure({ mesh: false }) came right after the first touch: the mesh is never fetched, not
    // even once connected (connect() runs after the client decided whether to fetch it).
    await relayOnly.command('connect', { shardName: 'fetch-room' });
    expect(await fetched(relayOnly, MESH_MODULE)).to.deep.equal([]);
  });

  it('a viewer who asked to save data fetches peerjs only when the template connects', async () => {
    const m = member({ saveData: true });
    await waitUntilAsync(async () => (await fetched(m, MESH_MODULE)).length > 0, "the mesh's module to be fetched", 20_000);
    // Well past the idle moment at which peerjs is fetched otherwise (at most 2 s after the mesh's module, above).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await fetched(m, PEERJS)).to.deep.equal([]);
    await m.command('connect', { shardName: 'save-data-room' });
    await waitUntilAsync(async () => (await fetched(m, PEERJS)).length > 0, 'peerjs to be fetched once connected', 20_000);
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
    expect(await fetched(b, SESSION_MODULE)).to.have.length(1);
    expect(await fetched(b, MESH_MODULE)).to.deep.equal([]);
    // A, a mesh member, did fetch the mesh and peerjs (so the check above can fail).
    await waitUntilAsync(async () => (await fetched(a, PEERJS)).length > 0, 'A to fetch peerjs', 20_000);
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
      expect(await fetched(m, MESH_MODULE)).to.deep.equal([]);
    }
  });

  it('mesh: false in a page with WebRTC: a mesh member relays to it from the start, with no connecting phase and no peer connection for the pair', async () => {
    // A and C mesh; B is relay only. The server gives B no peer id, so A's mesh never tries it
    // (before, every such try was a peer connection waiting 10 s for a channel that never opens).
    const [a, c] = [member(), member()];
    const b = member({ mesh: false });
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'relay-only-pair' });
    const infoB = await b.command<{ clientId: string }>('connect', { shardName: 'relay-only-pair' });
    const seenForB = new Set<string>();
    // Every path A gives B, from the moment B is listed on: never 'connecting', only 'relay'.
    await waitUntilAsync(
      async () => {
        const path = (await a.command<Paths>('paths'))[infoB.clientId];
        if (path !== undefined) seenForB.add(path);
        return path !== undefined;
      },
      'A to list B',
      20_000,
    );
    const infoC = await c.command<{ clientId: string }>('connect', { shardName: 'relay-only-pair' });
    for (const m of [a, b]) await m.command('on', 'hi');
    await a.command('emit', 'hi', { from: 'a' }, [infoB.clientId]);
    await b.command('emit', 'hi', { from: 'b' }, [infoA.clientId]);
    await waitUntil(() => a.events('hi').length === 1 && b.events('hi').length === 1, 'A and B to hear each other', 20_000);
    expect(a.events('hi')[0]!.payload).to.deep.equal({ from: 'b' });
    expect(b.events('hi')[0]!.payload).to.deep.equal({ from: 'a' });
    // A's mesh works (its channel to C opens), so its silence towards B is not a mesh that never started.
    await waitUntilAsync(
      async () => {
        const paths = await a.command<Paths>('paths');
        seenForB.add(paths[infoB.clientId] ?? 'missing');
        return paths[infoC.clientId] === 'peer';
      },
      'A’s channel to C to open',
      30_000,
    );
    expect([...seenForB]).to.deep.equal(['relay']);
    // One peer connection in A's mesh, the one to C; none in B's page.
    expect((await a.command<{ mesh: number }>('peerConnections')).mesh).to.equal(1);
    expect(await b.command('peerConnections')).to.deep.equal({ page: 0, mesh: 0 });
    expect(a.errors()).to.deep.equal([]);
  });
});
