import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { createDispatch, type BrowserDispatch } from '../../guest/dispatch/index.js';
import { shardState } from '../../guest/state/index.js';
import { rejectionOf } from './support/probe.js';

// The shard's state in real Chromium (issue 26), through platform-kit/guest/state on the real
// signaling server: a late joiner with no mesh at all holds the whole state (100 KB) when connect()
// resolves; three members editing at once converge.
describe('platform-kit/guest/state in the browser', function () {
  this.timeout(60_000);
  let url = '';
  const made: BrowserDispatch[] = [];
  const dispatch = (mesh: boolean): BrowserDispatch => {
    const client = createDispatch({ url, projectId: 'demo', mesh });
    made.push(client);
    return client;
  };
  before(async () => {
    url = (await executeServerCommand<{ url: string }, object>('signaling-url', {})).url;
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((client) => client.disconnect()));
  });

  async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (!condition()) {
      if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('a late joiner with no P2P holds the whole state (100 KB) when connect() resolves', async () => {
    const writer = dispatch(true);
    const writerState = shardState(writer);
    await writer.connect({ shardName: 'browser-late' });
    const board = writerState.map<string>('board');
    for (let index = 0; index < 100; index++) board.set(`cell-${index}`, String(index).padEnd(1_000, '.'));
    // A witness on the relay sees the last cell: the server has kept every update before it.
    const witness = dispatch(false);
    const witnessState = shardState(witness);
    await witness.connect({ shardName: 'browser-late' });
    await until(() => witnessState.map('board').entries().length === 100, 'the witness to hold 100 cells');

    const late = dispatch(false);
    const lateState = shardState(late);
    const started = performance.now();
    await late.connect({ shardName: 'browser-late' });
    const elapsed = performance.now() - started;
    expect(lateState.map<string>('board').entries()).to.have.length(100);
    expect(lateState.map<string>('board').get('cell-99')).to.equal('99'.padEnd(1_000, '.'));
    console.log(`late join with 100 KB of state: connect() took ${elapsed.toFixed(0)} ms`);
  });

  it('three members editing at once converge, and onChange reports remote changes', async () => {
    const clients = [dispatch(true), dispatch(true), dispatch(false)];
    const states = clients.map((client) => shardState(client));
    await Promise.all(clients.map((client) => client.connect({ shardName: 'browser-converge' })));
    const remote: string[] = [];
    states[2]!.map<number>().onChange((changed, origin) => {
      if (origin === 'remote') remote.push(...changed.keys());
    });
    states.forEach((state, index) => {
      const map = state.map<number>();
      for (let round = 0; round < 10; round++) map.set(`m${index}-${round}`, round);
      map.set('contested', index);
    });
    await until(() => states.every((state) => state.map().entries().length === 31), 'every copy to hold 31 keys');
    await until(() => new Set(states.map((state) => state.map().get('contested'))).size === 1, 'the contested key to agree');
    expect(remote).to.include('m0-9');
  });
});

describe('platform-kit/guest/state over the mesh', function () {
  this.timeout(60_000);
  this.retries(2); // WebRTC on a loaded 2-core machine (see web-test-runner.config.mjs)
  let url = '';
  const made: BrowserDispatch[] = [];
  before(async () => {
    url = (await executeServerCommand<{ url: string }, object>('signaling-url', {})).url;
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((client) => client.disconnect()));
  });

  it('an update reaches a member over its data channel while the sender’s control socket is down', async () => {
    // A long first reconnection delay: the sender stays off the server while the test looks.
    const [a, b] = [createDispatch({ url, projectId: 'demo', reconnectInitialDelayMs: 20_000 }), createDispatch({ url, projectId: 'demo' })];
    made.push(a, b);
    const [stateA, stateB] = [shardState(a), shardState(b)];
    const infoA = await a.connect({ shardName: 'browser-mesh-state' });
    const infoB = await b.connect({ shardName: 'browser-mesh-state' });
    const end = performance.now() + 20_000;
    while (!(a.session?.paths()[infoB.clientId] === 'peer' && b.session?.paths()[infoA.clientId] === 'peer')) {
      if (performance.now() > end) throw new Error('the pair never opened');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    a.session.dropSocketForTest();
    stateA.map<string>().set('by', 'mesh');
    const deadline = performance.now() + 5_000;
    while (stateB.map<string>().get('by') !== 'mesh') {
      if (performance.now() > deadline) throw new Error('the update did not come over the data channel');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(a.session.state).to.equal('reconnecting', 'it came while the sender was off the server');
  });

  it('whenSynced() rejects when connect() fails before any session (no project id), and a later connect() syncs it', async () => {
    // No project id anywhere (none given, none built, this page is no template of a host): connect()
    // rejects INVALID_CONFIG before a session exists; the state heard it through the dispatch's errors.
    const client = createDispatch({ url, mesh: false });
    made.push(client);
    const state = shardState(client);
    const pending = state.whenSynced();
    expect((await rejectionOf(client.connect({ shardName: 'no-project' }))).code).to.equal('INVALID_CONFIG');
    expect((await rejectionOf(pending)).code).to.equal('INVALID_CONFIG');
    client.setProjectId('demo');
    await client.connect({ shardName: `after-config-${Math.random().toString(36).slice(2, 8)}` });
    await state.whenSynced();
    state.close();
  });
});
