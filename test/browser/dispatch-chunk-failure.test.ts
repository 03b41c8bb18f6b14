import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { createDispatch } from '../../guest/dispatch/index.js';
import { PlatformError } from '../../protocol/errors.js';
import { memberSuite, waitUntil } from './support/dispatch-member.js';

// A template whose first touch is connect() opens the control socket itself, with its join, while
// the session's module loads (early-socket.ts). Here that module fails to load (test/wtr/failing-module.mjs
// answers 503 for this page once the early socket has joined): connect() must reject with a code,
// the socket must close so that the shard does not keep a member nobody drives, and the next
// connect() must ask for the module again. Its own file: a browser may keep the failed load for the page's life.
describe('Platform.dispatch: a session module that fails to load', function () {
  this.timeout(60_000);
  const { member, server } = memberSuite();
  const NativeWebSocket = window.WebSocket;
  const sockets: WebSocket[] = [];
  before(() => {
    window.WebSocket = class extends NativeWebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (String(url).endsWith('/dispatch')) sockets.push(this);
      }
    };
  });
  after(() => {
    window.WebSocket = NativeWebSocket;
    document.cookie = 'platform-kit-fail-module=; path=/; max-age=0';
  });

  it('connect() rejects NOT_CONNECTED, the early socket leaves the shard, and the next connect() asks again', async () => {
    const observer = member();
    await observer.command('connect', { shardName: 'chunk-fail' });
    document.cookie = 'platform-kit-fail-module=session; path=/';
    // Made and connected in the same task: the session's module is not in this page yet.
    const client = createDispatch({ url: server(), projectId: 'demo', mesh: false });
    const connecting = client.connect({ shardName: 'chunk-fail' });
    expect(sockets).to.have.length(1);
    // The early socket's join placed it in the shard before the module's load failed.
    await waitUntil(() => observer.lastPresence().length === 2, 'the observer to list the early join', 15_000);
    await executeServerCommand('fail-session-module-now');
    const failure = await connecting.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(PlatformError);
    expect((failure as PlatformError).code).to.equal('NOT_CONNECTED');
    await waitUntil(() => sockets[0]!.readyState === WebSocket.CLOSED, 'the early socket to close', 10_000);
    await waitUntil(() => observer.lastPresence().length === 1, 'the shard to drop the member nobody drives', 15_000);
    expect(client.connectionInfo).to.equal(null);

    // The next connect() asks for the module again. A browser that follows whatwg/html#10327 fetches
    // it and connects; one that keeps a failed module load for the page's life (Chromium 156 does)
    // rejects the same way: then its early socket must leave the shard too, and nothing hangs.
    document.cookie = 'platform-kit-fail-module=; path=/; max-age=0';
    const again = await client.connect({ shardName: 'chunk-fail' }).then(
      (info) => ({ info }),
      (error: unknown) => ({ error }),
    );
    if ('info' in again) {
      await waitUntil(() => observer.lastPresence().some((c) => c.clientId === again.info.clientId), 'the observer to list the client', 15_000);
      await client.disconnect();
      return;
    }
    expect((again.error as PlatformError).code).to.equal('NOT_CONNECTED');
    expect((again.error as PlatformError).message).to.contain('reload the page');
    expect(sockets).to.have.length(2);
    await waitUntil(() => sockets[1]!.readyState === WebSocket.CLOSED, 'the second early socket to close', 10_000);
    await waitUntil(() => observer.lastPresence().length === 1, 'the shard to hold only the observer', 15_000);
  });
});
