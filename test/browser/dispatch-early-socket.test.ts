import { expect } from '@esm-bundle/chai';
import { encodeHandshakeJoin } from '../../protocol/signaling.js';
import { createDispatch } from '../../guest/dispatch/index.js';
import { controlUrl } from '../../guest/dispatch/browser-endpoint.js';
import { EarlySocket } from '../../guest/dispatch/early-socket.js';
import { joinFrame } from '../../guest/dispatch/join-frame.js';
import { signalingUrl, waitUntil } from './support/dispatch-member.js';

// Platform.dispatch opens the first control socket itself while the session's module loads
// (early-socket.ts), and the session takes it over when its own join is the same (join-frame.ts).
describe('Platform.dispatch: the early control socket of the first connect()', function () {
  this.timeout(30_000);
  let server = '';
  /** Every control socket the page opened. */
  const sockets: WebSocket[] = [];
  /** Messages each socket received, counted by a listener added before anyone else's (the early socket's holds them back). */
  const received = new WeakMap<WebSocket, string[]>();
  const NativeWebSocket = window.WebSocket;
  before(async () => {
    server = await signalingUrl();
    window.WebSocket = class extends NativeWebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (!String(url).endsWith('/dispatch')) return;
        sockets.push(this);
        const types: string[] = [];
        received.set(this, types);
        this.addEventListener('message', (event) => types.push((JSON.parse(String(event.data)) as { type: string }).type));
      }
    };
  });
  after(() => {
    window.WebSocket = NativeWebSocket;
  });

  const join = (shardName: string, userInfo = {}) =>
    joinFrame({ id: 1, options: { projectId: 'demo', kind: 'browser' }, config: { shardName }, authorization: undefined, userInfo, presence: 'here', meshSignaling: false });
  const protocolsOf = (shardName: string, userInfo = {}) => encodeHandshakeJoin(join(shardName, userInfo))!;

  it('connect() as the first touch opens one control socket, which the session uses: presence and events flow on it', async () => {
    const before = sockets.length;
    // Made and connected in the same task: the session's module is not loaded for this client yet.
    const a = createDispatch({ url: server, projectId: 'demo', mesh: false });
    await a.setUserInfo({ name: 'Ann' });
    const connectingA = a.connect({ shardName: 'early-room' });
    const b = createDispatch({ url: server, projectId: 'demo', mesh: false });
    const connectingB = b.connect({ shardName: 'early-room' });
    try {
      // Opened by connect() itself, before any module loaded.
      expect(sockets.length - before).to.equal(2);
      const heard: unknown[] = [];
      b.on('hi', (payload) => heard.push(payload));
      const infoA = await connectingA;
      await connectingB;
      // Still one each: had the session not taken the early socket over, it would have opened its own.
      expect(sockets.length - before).to.equal(2);
      await waitUntil(() => a.session!.connectedClients.length === 2 && b.session!.connectedClients.length === 2, 'A and B to list each other');
      // The join of the early socket carried the user info set before connect().
      expect(b.session!.connectedClients.find((c) => c.clientId === infoA.clientId)!.userInfo).to.deep.equal({ name: 'Ann' });
      await a.emitEvent('hi', { n: 1 });
      await waitUntil(() => heard.length === 1, 'B to hear A');
      expect(heard).to.deep.equal([{ n: 1 }]);
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
    await waitUntil(() => sockets.slice(before).every((socket) => socket.readyState === WebSocket.CLOSED), 'both sockets closed by disconnect()');
  });

  it('disconnect() while the session loads, and connect() twice, leave nothing open', async () => {
    const before = sockets.length;
    const a = createDispatch({ url: server, projectId: 'demo', mesh: false });
    const first = a.connect({ shardName: 'early-leave' });
    const second = a.connect({ shardName: 'early-leave' });
    expect(sockets.length - before).to.equal(1);
    await a.disconnect();
    await Promise.allSettled([first, second]);
    await waitUntil(() => sockets.slice(before).every((socket) => socket.readyState === WebSocket.CLOSED), 'every socket closed');
    expect(sockets.length - before).to.equal(1);
  });

  it('a connect() the session refuses (an invalid shard name) closes the early socket', async () => {
    const before = sockets.length;
    const a = createDispatch({ url: server, projectId: 'demo', mesh: false });
    let code = '';
    await a.connect({ shardName: 'not a name!' }).catch((error: unknown) => (code = (error as { code: string }).code));
    expect(code).to.equal('INVALID_NAME');
    await waitUntil(() => sockets.slice(before).every((socket) => socket.readyState === WebSocket.CLOSED), 'the early socket closed');
  });

  it('hands what it heard before the take-over to the handlers in order, one per task: what follows joined comes after its microtask', async () => {
    const url = controlUrl(server);
    const early = new EarlySocket(url, protocolsOf('early-order'));
    const socket = sockets.at(-1)!;
    // Open and joined held; then another member arrives and its presence is held behind them.
    const heard = received.get(socket)!;
    await waitUntil(() => heard.includes('joined'), 'joined to arrive');
    const other = createDispatch({ url: server, projectId: 'demo', mesh: false });
    try {
      await other.connect({ shardName: 'early-order' });
      await waitUntil(() => heard.includes('presence'), 'the presence to arrive');
      const taken = early.take(url, protocolsOf('early-order'))!;
      expect(taken === socket).to.equal(true);
      const seen: string[] = [];
      let joinedSettled = false;
      let settledBeforePresence: boolean | null = null;
      taken.onopen = () => seen.push('open');
      taken.onclose = () => seen.push('close');
      taken.onerror = () => seen.push('error');
      taken.onmessage = (event) => {
        const type = (JSON.parse(String(event.data)) as { type: string }).type;
        seen.push(type);
        // As the session does: what answers joined runs in a microtask after it (session.ts #onJoined).
        if (type === 'joined') queueMicrotask(() => (joinedSettled = true));
        if (type === 'presence') settledBeforePresence ??= joinedSettled;
      };
      await waitUntil(() => settledBeforePresence !== null, 'the presence handed over');
      expect(seen.slice(0, 3)).to.deep.equal(['open', 'joined', 'presence']);
      expect(settledBeforePresence).to.equal(true);
      taken.close();
      await waitUntil(() => seen.includes('close'), 'the close to reach the handler');
    } finally {
      await other.disconnect();
    }
  });

  it('is closed, not used, when the session asks for another join or URL, or for none; taken once at most', async () => {
    const url = controlUrl(server);
    const differs = new EarlySocket(url, protocolsOf('early-a'));
    const differsSocket = sockets.at(-1)!;
    // Booleans, not sockets, in the assertions: chai would walk a WebSocket to print it.
    expect(differs.take(url, protocolsOf('early-a', { changed: true })) === null).to.equal(true);
    const otherUrl = new EarlySocket(url, protocolsOf('early-b'));
    const otherUrlSocket = sockets.at(-1)!;
    expect(otherUrl.take(`${url}?elsewhere`, protocolsOf('early-b')) === null).to.equal(true);
    const once = new EarlySocket(url, protocolsOf('early-c'));
    expect(once.take(url, protocolsOf('early-c')) === null).to.equal(false);
    expect(once.take(url, protocolsOf('early-c')) === null).to.equal(true);
    const onceSocket = sockets.at(-1)!;
    once.discard(); // taken: a discard leaves it open
    const unused = new EarlySocket(url, protocolsOf('early-d'));
    const unusedSocket = sockets.at(-1)!;
    unused.discard();
    await waitUntil(() => [differsSocket, otherUrlSocket, unusedSocket].every((socket) => socket.readyState === WebSocket.CLOSED), 'the unused sockets to close');
    expect(onceSocket.readyState).to.not.equal(WebSocket.CLOSED);
    onceSocket.close();
  });
});
