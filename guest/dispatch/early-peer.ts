/**
 * The mesh's PeerJS socket, opened at `connect()` beside the control socket
 * instead of after `joined` (issue 27). Measured before it (players-meet, 8
 * members): the PeerJS socket was made only once `joined` named the peer id,
 * then took its own WebSocket handshake and `OPEN`; the first offer left
 * ~300 ms after plain WebRTC's.
 *
 * How: `connect()` makes a secret token and puts it in the join
 * (`join.peerToken`); the peer id is the token's digest (protocol/peer-id.ts).
 * Once peerjs is loaded and the digest made, a `Peer` opens with them; the
 * server parks its socket until the join is admitted, then answers `OPEN`
 * (signaling/peer-parking.ts). When `joined` comes, the mesh claims this
 * `Peer` if `joined` gave the proposed id; otherwise (a server that does not
 * know `peerToken`, an id taken, a parked socket refused) it is destroyed and
 * the mesh opens one with the id of `joined`, as before.
 *
 * Calls that come before the mesh claims the `Peer` (a member who saw us in
 * presence before our `joined` was handled) are kept, at most
 * {@link MAX_EARLY_CALLS}, and handed to the mesh with it.
 */
import type { DataConnection, Peer } from 'peerjs';
import { derivePeerId, newPeerToken } from '../../protocol/signaling.js';
import { loadPeerJs, peerOptions, type PeerTransportOptions } from './peerjs-loader.js';

/** Calls kept for the mesh before it claims the `Peer`: more than a mesh's members is not a real shard's traffic. */
const MAX_EARLY_CALLS = 64;

/** What the mesh takes over: the `Peer`, whether its `OPEN` came, and the calls it got meanwhile. */
export interface ClaimedPeer {
  readonly peer: Peer;
  readonly open: boolean;
  readonly calls: readonly DataConnection[];
}

/** Transport-wide peerjs errors: the early `Peer` is given up and the mesh opens its own after `joined`. */
const FATAL_ERRORS: ReadonlySet<string> = new Set(['unavailable-id', 'invalid-id', 'browser-incompatible', 'ssl-unavailable', 'server-error', 'network', 'socket-error', 'socket-closed']);

/** A `Peer` opened before `joined`, with a proposed peer id. */
export class EarlyPeer {
  /** The secret the join carries; the peer id is its digest. */
  readonly token = newPeerToken();
  readonly #started: Promise<void>;
  #peer: Peer | null = null;
  #peerId = '';
  #open = false;
  #done = false;
  readonly #calls: DataConnection[] = [];

  /** Starts loading peerjs and deriving the id; the `Peer` opens once both are there. `subtle`: WebCrypto (a secure context's). */
  constructor(controlUrl: string, options: PeerTransportOptions, subtle: SubtleCrypto) {
    this.#started = this.#start(controlUrl, options, subtle).catch((error: unknown) => {
      // No early socket then; the mesh loads peerjs again and opens its own after `joined`.
      console.warn('platform-kit: the early peer socket could not be opened', error);
      this.discard();
    });
  }

  async #start(controlUrl: string, options: PeerTransportOptions, subtle: SubtleCrypto): Promise<void> {
    const [PeerClass, peerId] = await Promise.all([loadPeerJs(options), derivePeerId(this.token, subtle)]);
    if (this.#done) return;
    const peer = new PeerClass(peerId, peerOptions(controlUrl, this.token, options));
    this.#peer = peer;
    this.#peerId = peerId;
    peer.on('open', () => (this.#open = true));
    peer.on('connection', (connection) => {
      if (this.#calls.length < MAX_EARLY_CALLS) this.#calls.push(connection);
      else connection.close();
    });
    peer.on('disconnected', () => this.discard());
    peer.on('error', (error) => {
      if (FATAL_ERRORS.has(error.type)) this.discard();
    });
  }

  /**
   * The `Peer`, for the mesh whose `joined` gave `peerId`: null when that is not the proposed id
   * or the early socket failed (then it is closed). Either way this object is done after it.
   */
  async claim(peerId: string): Promise<ClaimedPeer | null> {
    await this.#started;
    const peer = this.#peer;
    if (this.#done || !peer || peerId !== this.#peerId) {
      this.discard();
      return null;
    }
    this.#done = true;
    this.#peer = null;
    // The mesh listens from here on (synchronously after this resolves: no event of the Peer falls between).
    peer.removeAllListeners();
    return { peer, open: this.#open, calls: this.#calls.splice(0) };
  }

  /** Closes the early socket and its calls when nobody claimed them (a refused join, disconnect()). Idempotent. */
  discard(): void {
    this.#done = true;
    for (const call of this.#calls.splice(0)) call.close();
    // Out of the field first: destroy() emits 'disconnected', which calls this again.
    const peer = this.#peer;
    this.#peer = null;
    peer?.destroy();
  }
}
