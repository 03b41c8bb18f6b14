import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { backendConnect, backendDisconnect, backendReceived, memberSuite, sleep, waitUntil, waitUntilAsync } from './support/dispatch-member.js';

// Reconnection of browser members: a killed socket, and a server that crashes and restarts.
describe('Platform.dispatch: reconnection', function () {
  this.timeout(60_000);
  const { member } = memberSuite({ reconnectInitialDelayMs: 100 });

  it('comes back after its socket is killed with the same id and shard, and sends events queued offline once, in order', async () => {
    const [a, b] = [member({ mesh: false }), member({ mesh: false })];
    const infoA = await a.command<{ clientId: string; shardName: string }>('connect', { shardName: 'drop-room' });
    await b.command('connect', { shardName: 'drop-room' });
    await b.command('on', 'n');
    await a.command('drop');
    await waitUntilAsync(async () => (await a.command('state')) === 'reconnecting', 'A to notice');
    for (let i = 0; i < 10; i++) await a.command('emit', 'n', { i });
    await waitUntilAsync(async () => (await a.command('state')) === 'connected', 'A to be back');
    expect(await a.command('connection')).to.deep.equal(infoA);
    await waitUntil(() => b.events('n').length === 10, 'the queued events');
    await sleep(200);
    expect(b.events('n').map((e) => e.payload['i'])).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(b.events('n').every((e) => e.meta.clientId === infoA.clientId)).to.equal(true);
  });

  it('comes back after the server crashes and restarts: same ids, the mesh and the backend work again', async () => {
    const [a, b] = [member(), member()];
    const infoA = await a.command<{ clientId: string }>('connect', { shardName: 'restart-room' });
    const infoB = await b.command<{ clientId: string }>('connect', { shardName: 'restart-room' });
    await executeServerCommand('signaling-restart', { downMs: 500 });
    await waitUntilAsync(async () => (await a.command('state')) === 'connected' && (await b.command('state')) === 'connected', 'both back', 15_000);
    expect(await a.command('connection')).to.deep.include({ clientId: infoA.clientId, shardName: 'restart-room' });
    expect(await b.command('connection')).to.deep.include({ clientId: infoB.clientId, shardName: 'restart-room' });
    await backendConnect('restart-backend', { shardName: 'restart-room' }, ['after']);
    await waitUntil(() => a.lastPresence().length === 3, 'presence rebuilt');
    await b.command('on', 'after');
    await a.command('emit', 'after', { k: 1 });
    await waitUntil(() => b.events('after').length === 1, 'B to hear A after the restart');
    await waitUntilAsync(async () => (await backendReceived('restart-backend')).length === 1, 'the backend to hear A');
    await waitUntilAsync(async () => (await a.command<Record<string, string>>('paths'))[infoB.clientId] === 'peer', 'the mesh to reopen', 10_000);
    await backendDisconnect('restart-backend');
  });
});
