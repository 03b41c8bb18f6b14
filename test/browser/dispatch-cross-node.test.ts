import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { Member, waitUntil, waitUntilAsync } from './support/dispatch-member.js';

type Paths = Record<string, 'peer' | 'connecting' | 'relay'>;
interface ShardInfo {
  shardName: string;
  numConnectedClients: number;
}
/** What each node answers itself (test/wtr/redis-cluster.mjs). */
interface NodeView {
  node: string;
  info: ShardInfo[];
  eventsIn: number;
}

const nodesView = (): Promise<NodeView[]> => executeServerCommand<NodeView[], object>('redis-cluster-nodes', {});
const eventsInAll = async (): Promise<number> => (await nodesView()).reduce((sum, view) => sum + view.eventsIn, 0);

// Two cross-origin member pages of one shard, each connected to a different
// signaling node; the nodes share a real redis-server (started for this suite
// only). Their PeerJS signaling crosses nodes through Redis to open the
// mesh, relayed events cross nodes through Redis, and presence and info()
// agree whichever node is asked.
describe('Platform.dispatch across signaling nodes sharing a real Redis', function () {
  this.timeout(90_000);
  let nodes: string[] = [];
  const members: Member[] = [];
  before(async function () {
    this.timeout(120_000); // a redis-server and three node processes, on a busy machine
    const cluster = await executeServerCommand<{ urls?: string[]; skip?: string }, object>('redis-cluster-start', {});
    if (cluster.skip) {
      console.warn(`platform-kit: cross-node browser suite skipped: ${cluster.skip}`);
      this.skip();
    }
    nodes = cluster.urls ?? [];
    expect(nodes).to.have.length(3);
  });
  after(async () => {
    await executeServerCommand('redis-cluster-stop', {});
  });
  afterEach(async () => {
    await Promise.all(members.splice(0).map((member) => member.dispose()));
  });
  /**
   * Members here count only what crossed nodes: they leave themselves out of their own broadcasts
   * (receiveOwnBroadcasts: false; by default a sender hears its own, locally, since issue 16).
   */
  function member(node: string, options: Record<string, unknown> = {}): Member {
    const created = new Member(node, { receiveOwnBroadcasts: false, ...options });
    members.push(created);
    return created;
  }

  /** Both members list exactly both, the same way; resolves the sorted client ids. */
  async function presenceAgrees(a: Member, b: Member, ids: string[]): Promise<void> {
    const sorted = [...ids].sort();
    const listed = (m: Member): string[] =>
      m
        .lastPresence()
        .map((c) => c.clientId)
        .sort();
    await waitUntil(() => listed(a).join() === sorted.join() && listed(b).join() === sorted.join(), 'both presence lists to hold both members');
    expect(a.lastPresence()).to.deep.equal(b.lastPresence());
  }

  /** info() from each member (each asks its own node) and GET /info from all three nodes: one answer. */
  async function infoAgrees(a: Member, b: Member, shardName: string, count: number): Promise<void> {
    const expected = { shardName, numConnectedClients: count };
    const [fromA, fromB] = await Promise.all([a.command<ShardInfo[]>('info'), b.command<ShardInfo[]>('info')]);
    expect(fromA.find((shard) => shard.shardName === shardName)).to.deep.equal(expected);
    expect(fromB).to.deep.equal(fromA);
    for (const view of await nodesView()) expect(view.info, view.node).to.deep.equal(fromA);
  }

  it('two members on different nodes open a peer-to-peer channel (signaling routed across nodes) and exchange events over it, never through a server', async () => {
    const [a, b] = [member(nodes[0]!), member(nodes[1]!)];
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'cross-mesh' });
    const infoB = await b.command<{ clientId: string }>('connect', { shardName: 'cross-mesh' });
    await presenceAgrees(a, b, [infoA.clientId, infoB.clientId]);
    // The OFFER, ANSWER and candidates went node 1 ↔ Redis ↔ node 2.
    await waitUntilAsync(
      async () => (await a.command<Paths>('paths'))[infoB.clientId] === 'peer' && (await b.command<Paths>('paths'))[infoA.clientId] === 'peer',
      'the A↔B channel to open',
      20_000,
    );

    await a.command('on', 'ping');
    await b.command('on', 'ping');
    const before = await eventsInAll();
    for (let i = 0; i < 5; i++) await a.command('emit', 'ping', { from: 'a', i });
    for (let i = 0; i < 5; i++) await b.command('emit', 'ping', { from: 'b', i });
    await waitUntil(() => a.events('ping').length === 5 && b.events('ping').length === 5, 'five events each way');
    expect(b.events('ping').map((e) => e.payload)).to.deep.equal([0, 1, 2, 3, 4].map((i) => ({ from: 'a', i })));
    expect(a.events('ping').map((e) => e.payload)).to.deep.equal([0, 1, 2, 3, 4].map((i) => ({ from: 'b', i })));
    expect(b.events('ping').every((e) => e.meta.clientId === infoA.clientId)).to.equal(true);
    expect(a.events('ping').every((e) => e.meta.clientId === infoB.clientId)).to.equal(true);
    // Peer to peer: no node saw any of the ten, and both paths are still the channel.
    expect(await eventsInAll()).to.equal(before);
    expect((await a.command<Paths>('paths'))[infoB.clientId]).to.equal('peer');
    expect((await b.command<Paths>('paths'))[infoA.clientId]).to.equal('peer');
    await infoAgrees(a, b, 'cross-mesh', 2);
  });

  it('two members on different nodes exchange events over the relay (mesh off), through both nodes and Redis', async () => {
    const [a, b] = [member(nodes[1]!, { mesh: false }), member(nodes[2]!, { mesh: false })];
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'cross-relay' });
    const infoB = await b.command<{ clientId: string }>('connect', { shardName: 'cross-relay' });
    await presenceAgrees(a, b, [infoA.clientId, infoB.clientId]);
    await a.command('on', 'hello');
    await b.command('on', 'hello');
    await b.command('on', 'direct');
    const before = await nodesView();
    for (let i = 0; i < 3; i++) await a.command('emit', 'hello', { from: 'a', i });
    await b.command('emit', 'hello', { from: 'b' });
    await a.command('emit', 'direct', { to: 'b' }, [infoB.clientId]);
    await waitUntil(() => b.events('hello').length === 3 && a.events('hello').length === 1 && b.events('direct').length === 1, 'the relayed events');
    expect(b.events('hello').map((e) => e.payload)).to.deep.equal([0, 1, 2].map((i) => ({ from: 'a', i })));
    expect(a.events('hello').map((e) => e.payload)).to.deep.equal([{ from: 'b' }]);
    expect(b.events('direct')[0]!.meta.clientId).to.equal(infoA.clientId);
    // Relayed: each event entered the server at its sender's node, once.
    const after = await nodesView();
    expect(after.map((view, i) => view.eventsIn - before[i]!.eventsIn)).to.deep.equal([0, 4, 1]);
    expect((await a.command<Paths>('paths'))[infoB.clientId]).to.equal('relay');
    expect((await b.command<Paths>('paths'))[infoA.clientId]).to.equal('relay');

    // A change on node 3 reaches the member on node 2; both lists and every node's info agree.
    await b.command('setUserInfo', { name: 'on node 3' });
    await waitUntil(() => a.lastPresence().some((c) => c.clientId === infoB.clientId && c.userInfo['name'] === 'on node 3'), 'A to see B’s user info');
    await presenceAgrees(a, b, [infoA.clientId, infoB.clientId]);
    await infoAgrees(a, b, 'cross-relay', 2);
    await b.command('disconnect');
    await waitUntil(() => a.lastPresence().length === 1, 'A to see B leave');
    await waitUntilAsync(
      async () => (await nodesView()).every((view) => view.info.find((shard) => shard.shardName === 'cross-relay')?.numConnectedClients === 1),
      'every node to count one member',
    );
  });
});
