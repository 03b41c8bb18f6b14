/**
 * PeerJS sockets that came before their join (issue 27). A client that
 * proposed its peer id (protocol/peer-id.ts) opens its PeerJS socket at the
 * same time as its control socket, so the socket often arrives before the
 * join is admitted. Such a socket waits here, without `OPEN`, until the join
 * registers the id (peer-signaling.ts binds it then), and is dropped when:
 *
 * - no join registers its id within the join timeout (a socket whose join
 *   never comes, or whose join was refused, or placed as a spectator);
 * - it sends more than {@link MAX_PARKED_FRAMES} frames while it waits (a
 *   PeerJS client sends nothing before `OPEN` but a heartbeat every 5 s);
 * - it closes.
 *
 * What keeps it bounded: one socket per id (only the token's holder can make
 * the id, so a second is that client's own and is refused), at most
 * `maxPerAddress` waiting per client address (the control socket's
 * maxUnjoinedSocketsPerAddress) and `maxSockets` per node, and the timeout.
 * A refused socket hears PeerJS's `ERROR` and the client opens its socket the
 * old way, after `joined`.
 */
import { createHash } from 'node:crypto';
import type { WebSocket } from 'ws';
import { CLOSE_CODES, PEER_ID_DIGEST_PREFIX, peerIdOfDigest } from '../protocol/signaling.js';
import { closeSoon } from './close-soon.js';
import { sameSecret } from './services/http.js';

/** Frames a parked socket may send before it is closed (heartbeats, at 5 s, stay far below it within a join timeout). */
export const MAX_PARKED_FRAMES = 16;

/** Sockets that may wait for their join on one node, over every address (each is a TCP connection too). */
export const MAX_PARKED_PEER_SOCKETS = 10_000;

/** How long and how many sockets may wait for their join. */
export interface ParkingLimits {
  /** A socket whose join has not come within this is closed (4008): the server's joinTimeoutMs. */
  readonly timeoutMs: number;
  /** Sockets waiting per client address (Infinity: not limited by address). */
  readonly maxPerAddress: number;
  /** Sockets waiting on this node, over every address. */
  readonly maxSockets: number;
}

/** The peer id of a proposed token, as the client derives it with WebCrypto (protocol/peer-id.ts). */
export function derivedPeerId(token: string): string {
  return peerIdOfDigest(createHash('sha256').update(PEER_ID_DIGEST_PREFIX + token).digest());
}

interface ParkedSocket {
  readonly socket: WebSocket;
  readonly token: string;
  readonly address: string;
  /** Date.now() when it was parked. */
  readonly since: number;
  frames: number;
  readonly onClose: () => void;
  readonly onMessage: () => void;
}

/** The sockets waiting for their join, by peer id. */
export class PeerParking {
  readonly #limits: ParkingLimits;
  readonly #byId = new Map<string, ParkedSocket>();
  /** Waiting sockets per address; only addresses with one are here. */
  readonly #byAddress = new Map<string, number>();

  constructor(limits: ParkingLimits) {
    this.#limits = limits;
  }

  /** Sockets waiting now. */
  get size(): number {
    return this.#byId.size;
  }

  /** Parks `socket` for `peerId` (already checked to be the digest of `token`); the refusal's message when it may not wait. */
  park(peerId: string, token: string, socket: WebSocket, address: string): string | null {
    if (this.#byId.has(peerId)) return 'INVALID_MESSAGE: a socket for this peer id is waiting for its join already';
    if (this.#byId.size >= this.#limits.maxSockets) return 'RATE_LIMITED: too many peer sockets are waiting for their join on this server';
    const fromAddress = this.#byAddress.get(address) ?? 0;
    if (fromAddress >= this.#limits.maxPerAddress) return 'RATE_LIMITED: too many peer sockets from this address are waiting for their join';
    const parked: ParkedSocket = {
      socket,
      token,
      address,
      since: Date.now(),
      frames: 0,
      onClose: () => this.#remove(peerId, parked),
      onMessage: () => {
        parked.frames++;
        if (parked.frames > MAX_PARKED_FRAMES) {
          this.#remove(peerId, parked);
          closeSoon(socket, CLOSE_CODES.TOO_MANY_REFUSALS, 'RATE_LIMITED: frames before the join');
        }
      },
    };
    this.#byId.set(peerId, parked);
    this.#byAddress.set(address, fromAddress + 1);
    socket.on('close', parked.onClose);
    socket.on('message', parked.onMessage);
    return null;
  }

  /** The socket waiting for `peerId` with this token, taken out of the parking (null: none, or closed meanwhile). */
  take(peerId: string, token: string): WebSocket | null {
    const parked = this.#byId.get(peerId);
    if (!parked || !sameSecret(token, parked.token)) return null;
    this.#remove(peerId, parked);
    return parked.socket.readyState === parked.socket.OPEN ? parked.socket : null;
  }

  /** Closes the sockets that waited longer than the join timeout (the heartbeat's sweep). */
  sweep(now: number): void {
    for (const [peerId, parked] of this.#byId) {
      if (now - parked.since <= this.#limits.timeoutMs) continue;
      this.#remove(peerId, parked);
      closeSoon(parked.socket, CLOSE_CODES.JOIN_TIMEOUT, 'JOIN_TIMEOUT: no join for this peer id');
    }
  }

  /** Terminates every waiting socket (the server closes). */
  close(): void {
    for (const [peerId, parked] of this.#byId) {
      this.#remove(peerId, parked);
      parked.socket.terminate();
    }
  }

  #remove(peerId: string, parked: ParkedSocket): void {
    if (this.#byId.get(peerId) !== parked) return;
    this.#byId.delete(peerId);
    parked.socket.off('close', parked.onClose);
    parked.socket.off('message', parked.onMessage);
    const left = (this.#byAddress.get(parked.address) ?? 1) - 1;
    if (left > 0) this.#byAddress.set(parked.address, left);
    else this.#byAddress.delete(parked.address);
  }
}
