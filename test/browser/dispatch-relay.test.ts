import { expect } from '@esm-bundle/chai';
import { backendConnect, backendDisconnect, backendEmit, backendReceived, memberSuite, sleep, userToken, waitUntil, waitUntilAsync } from './support/dispatch-member.js';

// Members on the relay path (mesh off), a Node backend client, the real server.
describe('Platform.dispatch: relay path, presence, identity, shards', function () {
  const { member } = memberSuite({ mesh: false });

  it('exchanges broadcast and targeted events between cross-origin members and a Node backend, with presence', async () => {
    const [a, b] = [member(), member()];
    await a.command('setUserInfo', { name: 'Ann' });
    const infoA = await a.command<{ clientId: string; shardName: string }>('connect', { shardName: 'relay-room' });
    const infoB = await b.command<{ clientId: string; shardName: string }>('connect', { shardName: 'relay-room' });
    expect(infoA.shardName).to.equal('relay-room');
    const backend = await backendConnect('relay-backend', { shardName: 'relay-room' }, ['hello', 'direct']);
    await waitUntil(() => a.lastPresence().length === 3, 'three members in A’s presence');
    expect(a.lastPresence().map((c) => c.clientId)).to.deep.equal([infoA.clientId, infoB.clientId, backend.clientId]);
    expect(a.lastPresence()[0]!.userInfo).to.deep.equal({ name: 'Ann' });

    await a.command('on', 'hello');
    await b.command('on', 'hello');
    await b.command('on', 'direct');
    await a.command('emit', 'hello', { from: 'a', n: 1 });
    await waitUntil(() => b.events('hello').length === 1, 'B to get the broadcast');
    await waitUntilAsync(async () => (await backendReceived('relay-backend')).length === 1, 'the backend to get it');
    const atBackend = await backendReceived('relay-backend');
    expect(atBackend.map((e) => e.payload)).to.deep.equal([{ from: 'a', n: 1 }]);
    expect(atBackend[0]!.meta.clientId).to.equal(infoA.clientId);
    const atB = b.events('hello')[0]!;
    expect(atB.meta.clientId).to.equal(infoA.clientId);
    expect(atB.meta.latencyMs).to.be.within(0, 50);
    await sleep(100);
    // A sender hears its own broadcast too (issue 16: "to all clients on the current shard"), once,
    // from its own client: latencyMs 0, its own client id.
    expect(a.events('hello')).to.have.length(1);
    expect(a.events('hello')[0]!.payload).to.deep.equal({ from: 'a', n: 1 });
    expect(a.events('hello')[0]!.meta).to.deep.equal({ latencyMs: 0, clientId: infoA.clientId, userId: null });

    // The backend targets B by client id: A hears nothing.
    await a.command('on', 'direct');
    await backendEmit('relay-backend', 'direct', { to: 'b' }, [infoB.clientId]);
    await waitUntil(() => b.events('direct').length === 1, 'B to get the targeted event');
    expect(b.events('direct')[0]!.meta.clientId).to.equal(backend.clientId);
    await sleep(100);
    expect(a.events('direct')).to.have.length(0);

    // Leaving updates everyone's presence.
    await backendDisconnect('relay-backend');
    await waitUntil(() => a.lastPresence().length === 2, 'presence without the backend');
    await b.command('setUserInfo', { name: 'Bea' });
    await waitUntil(() => a.lastPresence()[1]?.userInfo['name'] === 'Bea', 'A to see B’s user info');
  });

  it('identifies members by verified user tokens, and delivers to user ids', async () => {
    const [a, b] = [member(), member()];
    const tokenA = await userToken('user-a');
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'ident-room', authorization: tokenA });
    await b.command('connect', { shardName: 'ident-room', authorization: 'forged.token.value' });
    await waitUntil(() => b.reports.some((r) => r.kind === 'error' && (r.data as { code: string }).code === 'INVALID_TOKEN'), 'B to hear INVALID_TOKEN');
    expect(await b.command('state')).to.equal('connected'); // still connected, unidentified
    await b.command('identify', await userToken('user-b'));
    await waitUntil(() => a.lastPresence().some((c) => c.userId === 'user-b'), 'A to see user-b');
    const expired = await userToken('user-b', 1);
    await sleep(2_100);
    const failure = await b.command('identify', expired).catch((error: unknown) => error as { code: string });
    expect((failure as { code: string }).code).to.equal('TOKEN_EXPIRED');
    await b.command('on', 'secret');
    await a.command('emit', 'secret', { for: 'user-b' }, ['user-b']);
    await waitUntil(() => b.events('secret').length === 1, 'B to get the event sent to its user id');
    expect(b.events('secret')[0]!.meta).to.include({ clientId: infoA.clientId, userId: 'user-a' });
  });

  it('answers info(), SHARD_FULL for a full named shard, and places unnamed members automatically', async () => {
    const [a, b, c] = [member(), member(), member()];
    await a.command('connect', { shardName: 'tiny', maxConnectionsPerShard: 2 });
    await b.command('connect', { shardName: 'tiny', maxConnectionsPerShard: 2 });
    const full = await c.command('connect', { shardName: 'tiny', maxConnectionsPerShard: 2 }).catch((error: unknown) => error as { code: string });
    expect((full as { code: string }).code).to.equal('SHARD_FULL');
    const auto = await c.command<{ shardName: string }>('connect', { maxConnectionsPerShard: 2 });
    expect(auto.shardName).to.match(/^[a-z]+-[a-z]+-\d{4}$/);
    const shards = await a.command<{ shardName: string; numConnectedClients: number }[]>('info');
    expect(shards).to.deep.include({ shardName: 'tiny', numConnectedClients: 2 });
    expect(shards).to.deep.include({ shardName: auto.shardName, numConnectedClients: 1 });
  });
});
