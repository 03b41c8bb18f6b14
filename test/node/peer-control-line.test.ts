// The mesh's signalling on the control socket, client side (guest/dispatch/control-signal.ts):
// what peerjs gets from the line and what the line lets through, with a stand-in for peerjs's Peer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Peer, PeerOptions } from 'peerjs';
import { ControlSignalLine, peerOnControl } from '../../guest/dispatch/control-signal.js';
import type { MeshSignalFrame } from '../../protocol/signaling.js';

type Message = { type: string; src?: string; payload?: unknown };
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const offer = (payload: Record<string, unknown>): MeshSignalFrame['m'] => ({ type: 'OFFER', src: 'p1', payload });
const NO_OPTIONS: PeerOptions = {};
const RAW_DATA = { type: 'data', serialization: 'raw', sdp: 's', connectionId: 'dc_1' };

/** A stand-in for peerjs's Peer: makes its server connection and starts it in its constructor, as peerjs 1.5 does. */
class FakePeer {
  readonly handled: Message[] = [];
  readonly socket: { start(id: string, token: string): void; send(data: unknown): void; close(): void };
  throwOn: string | null = null;
  constructor(id: string) {
    this.socket = this._createServerConnection() as FakePeer['socket'];
    this.socket.start(id, 'token');
  }
  _createServerConnection(): unknown {
    throw new Error('the subclass makes the connection');
  }
  _handleMessage(message: Message): void {
    if (message.type === this.throwOn) throw new TypeError('peerjs choked');
    this.handled.push(message);
  }
}

function controlPeer(): { peer: FakePeer; line: ControlSignalLine; sent: unknown[] } {
  const sent: unknown[] = [];
  const line = new ControlSignalLine((message) => sent.push(message));
  const peer = peerOnControl(FakePeer as unknown as typeof Peer, 'me', NO_OPTIONS, line) as unknown as FakePeer;
  assert.ok(peer, 'a Peer with both internals is made');
  return { peer, line, sent };
}

describe('ControlSignalLine and peerOnControl (signal frames in place of a PeerJS socket)', () => {
  it('gives peerjs OPEN at once, then what came before it, in order', async () => {
    const sent: unknown[] = [];
    const line = new ControlSignalLine((message) => sent.push(message));
    // Signals can come before peerjs is loaded: they wait.
    line.receive(offer(RAW_DATA));
    line.receive({ type: 'CANDIDATE', src: 'p1', payload: { candidate: 'c', connectionId: 'dc_1' } });
    const peer = peerOnControl(FakePeer as unknown as typeof Peer, 'me', NO_OPTIONS, line) as unknown as FakePeer;
    await tick();
    assert.deepEqual(
      peer.handled.map((m) => m.type),
      ['OPEN', 'OFFER', 'CANDIDATE'],
    );
  });

  it('sends what peerjs sends, except its heartbeat', async () => {
    const { peer, sent } = controlPeer();
    await tick();
    peer.socket.send({ type: 'HEARTBEAT' });
    peer.socket.send({ type: 'OFFER', dst: 'p2', payload: { sdp: 's' } });
    assert.deepEqual(sent, [{ type: 'OFFER', dst: 'p2', payload: { sdp: 's' } }]);
  });

  it("drops an OFFER this kit's members never send (media, another serialization): peerjs would pick a class by it", async () => {
    const { peer, line } = controlPeer();
    await tick();
    for (const serialization of ['__proto__', 'constructor', 'toString', 'binary', undefined]) line.receive(offer({ ...RAW_DATA, serialization }));
    line.receive(offer({ ...RAW_DATA, type: 'media' }));
    line.receive(offer(RAW_DATA));
    assert.deepEqual(
      peer.handled.map((m) => m.type),
      ['OPEN', 'OFFER'],
    );
  });

  it('a message peerjs throws on does not escape the line; the next one is handled', async () => {
    const { peer, line } = controlPeer();
    await tick();
    peer.throwOn = 'ANSWER';
    const warn = console.warn;
    console.warn = () => {};
    try {
      line.receive({ type: 'ANSWER', src: 'p1', payload: {} });
    } finally {
      console.warn = warn;
    }
    line.receive({ type: 'CANDIDATE', src: 'p1', payload: {} });
    assert.deepEqual(
      peer.handled.map((m) => m.type),
      ['OPEN', 'CANDIDATE'],
    );
  });

  it('after close (the page left the mesh) nothing goes either way', async () => {
    const { peer, line, sent } = controlPeer();
    await tick();
    peer.socket.close();
    peer.socket.send({ type: 'OFFER', dst: 'p2', payload: {} });
    line.receive(offer(RAW_DATA));
    assert.deepEqual(sent, []);
    assert.deepEqual(
      peer.handled.map((m) => m.type),
      ['OPEN'],
    );
  });

  it('keeps at most 256 signals while peerjs is not there', async () => {
    const line = new ControlSignalLine(() => {});
    for (let i = 0; i < 1_000; i++) line.receive({ type: 'CANDIDATE', src: 'p1', payload: { i } });
    const peer = peerOnControl(FakePeer as unknown as typeof Peer, 'me', NO_OPTIONS, line) as unknown as FakePeer;
    await tick();
    assert.equal(peer.handled.length, 1 + 256);
  });

  it('a peerjs without the two internals gets no control line (null: the caller relays)', () => {
    class Bare {
      readonly id = 'me';
    }
    assert.equal(peerOnControl(Bare as unknown as typeof Peer, 'me', NO_OPTIONS, new ControlSignalLine(() => {})), null);
  });
});
