/**
 * The PeerJS server protocol, spoken by the signaling server itself on its
 * own HTTP server (`/peerjs/peerjs` WebSocket), instead of mounting the
 * `peer` package.
 *
 * Why ourselves: (1) peer ids must be bound to authenticated clients: the
 * server issues a peer id and token with `joined`, and a peer may signal
 * only to members of its own shard; `peer` hands out ids to anyone and lets
 * anyone signal anyone. (2) Scale-out (Redis): a signaling message for a
 * peer whose socket is on another node must travel through the store's
 * pub/sub like a relayed event; `peer` keeps its realm in one process with
 * no hook for that. (3) `peer` brings express and its own ws copy (the
 * ws@7 hoisting trap in TESTING.md). The protocol is small: the client
 * opens `?key&id&token&version`, gets `OPEN`, sends `HEARTBEAT` and
 * `OFFER`/`ANSWER`/`CANDIDATE`/`LEAVE`/`EXPIRE` with a `dst`; the server adds
 * `src` and forwards, or answers `EXPIRE` when the destination never comes.
 * A destination on another node (Redis) is reached through a
 * {@link RemotePeerRoute}: the shard's pub/sub channel.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { PEERJS_KEY } from '../protocol/signaling.js';
import { sameSecret } from './services/http.js';

/** A peer id the server issued to one client. */
interface PeerEntry {
  readonly peerId: string;
  readonly token: string;
  /** `projectId\0shardName`: peers may only signal within it. */
  readonly scope: string;
  socket: WebSocket | null;
  /** Messages that arrived before the destination's socket opened; {@link NO_MESSAGES} (shared) while none. */
  queue: QueuedMessage[];
}

interface QueuedMessage {
  readonly message: string;
  readonly src: string;
  readonly at: number;
}

/**
 * The queue of every peer without waiting messages: one shared empty array
 * instead of one per registered peer id (10,000 idle clients, 10,000 arrays).
 * Never pushed to: {@link enqueue} replaces it first.
 */
const NO_MESSAGES: QueuedMessage[] = [];
Object.freeze(NO_MESSAGES);

function enqueue(entry: PeerEntry, item: QueuedMessage): void {
  if (entry.queue.length >= MAX_QUEUED) return;
  if (entry.queue === NO_MESSAGES) entry.queue = [];
  entry.queue.push(item);
}

const FORWARDED = new Set(['OFFER', 'ANSWER', 'CANDIDATE', 'LEAVE', 'EXPIRE']);
/** How long a message waits for its destination's socket (the `peer` package's expire_timeout). */
const EXPIRE_MS = 5_000;
const MAX_QUEUED = 64;
const MAX_FRAME_CHARS = 64 * 1024;

/**
 * Where a frame goes when its destination is not a peer of this node (the
 * server runs on many nodes): the server publishes it on the shard's channel
 * and the node holding `dst` calls {@link PeerSignaling.deliverRemote}.
 */
export type RemotePeerRoute = (scope: string, dst: string, frame: string) => void;

/** Registry and socket handling of peer ids. */
export class PeerSignaling {
  readonly #peers = new Map<string, PeerEntry>();
  readonly #remote: RemotePeerRoute | null;

  /** `remote`: the route to other nodes; without it (one process) an unknown destination is answered EXPIRE at once. */
  constructor(remote: RemotePeerRoute | null = null) {
    this.#remote = remote;
  }
  readonly #alive = new WeakSet<WebSocket>();
  #forwarded = 0;

  /** Binds a new peer id to a client of `scope`. */
  register(peerId: string, token: string, scope: string): void {
    this.#peers.set(peerId, { peerId, token, scope, socket: null, queue: NO_MESSAGES });
  }

  /** Revokes a peer id (the client left for good) and closes its socket. */
  revoke(peerId: string): void {
    const entry = this.#peers.get(peerId);
    if (!entry) return;
    this.#peers.delete(peerId);
    entry.socket?.close(1000, 'left');
  }

  /** Messages forwarded since start. */
  get forwarded(): number {
    return this.#forwarded;
  }
  /** Open peer sockets. */
  get sockets(): number {
    let count = 0;
    for (const entry of this.#peers.values()) if (entry.socket) count++;
    return count;
  }

  /** Handles a new `/peerjs/peerjs` socket. */
  accept(socket: WebSocket, request: IncomingMessage): void {
    socket.on('error', () => socket.terminate());
    const params = new URL(request.url ?? '', 'http://peerjs').searchParams;
    const id = params.get('id') ?? '';
    const token = params.get('token') ?? '';
    const entry = this.#peers.get(id);
    if (params.get('key') !== PEERJS_KEY) return this.#refuse(socket, 'INVALID-KEY', 'Invalid key provided');
    if (!entry || !sameSecret(token, entry.token)) {
      // Never issued, revoked, or someone else's id: this is what binds ids to clients.
      return this.#refuse(socket, 'ID-TAKEN', 'ID is taken');
    }
    if (entry.socket && entry.socket !== socket) entry.socket.terminate();
    entry.socket = socket;
    this.#alive.add(socket);
    socket.on('pong', () => this.#alive.add(socket));
    socket.on('close', () => {
      if (entry.socket === socket) entry.socket = null;
    });
    socket.on('message', (data, isBinary) => {
      this.#alive.add(socket);
      if (isBinary) return;
      const text = String(data);
      if (text.length > MAX_FRAME_CHARS) return;
      this.#onMessage(entry, text);
    });
    socket.send('{"type":"OPEN"}');
    const waiting = entry.queue;
    entry.queue = NO_MESSAGES;
    for (const { message } of waiting) socket.send(message);
  }

  /** One heartbeat round: terminates peer sockets silent since the last round, pings the rest. */
  sweep(now: number): void {
    for (const entry of this.#peers.values()) {
      const socket = entry.socket;
      if (socket) {
        if (!this.#alive.has(socket)) {
          socket.terminate();
          entry.socket = null;
        } else {
          this.#alive.delete(socket);
          socket.ping();
        }
      }
      if (entry.queue.length > 0 && now - entry.queue[0]!.at > EXPIRE_MS) {
        // Tell each waiting sender once that its peer never came (peerjs then reports peer-unavailable).
        const senders = new Set(entry.queue.map((item) => item.src));
        entry.queue = NO_MESSAGES;
        for (const src of senders) this.#peers.get(src)?.socket?.send(JSON.stringify({ type: 'EXPIRE', src: entry.peerId }));
      }
    }
  }

  /**
   * A frame from another node for `dst`: delivered (or queued until its
   * socket opens) when `dst` is a peer of this node in the same `scope`.
   */
  deliverRemote(scope: string, dst: string, frame: string): void {
    const target = this.#peers.get(dst);
    if (!target || target.scope !== scope) return;
    let type: unknown;
    let src: unknown;
    try {
      ({ type, src } = JSON.parse(frame) as { type?: unknown; src?: unknown });
    } catch {
      return;
    }
    if (typeof type !== 'string' || !FORWARDED.has(type) || typeof src !== 'string') return;
    if (target.socket) target.socket.send(frame);
    else if (type !== 'LEAVE' && type !== 'EXPIRE') enqueue(target, { message: frame, src, at: Date.now() });
  }

  /** Closes every peer socket. */
  close(): void {
    for (const entry of this.#peers.values()) entry.socket?.terminate();
    this.#peers.clear();
  }

  #refuse(socket: WebSocket, type: 'INVALID-KEY' | 'ID-TAKEN', msg: string): void {
    socket.send(JSON.stringify({ type, payload: { msg } }));
    socket.close();
  }

  #onMessage(source: PeerEntry, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // peerjs ignores junk from the server too; a peer's junk is dropped the same way
    }
    if (typeof message !== 'object' || message === null) return;
    const { type, dst, payload } = message as { type?: unknown; dst?: unknown; payload?: unknown };
    if (type === 'HEARTBEAT' || typeof type !== 'string' || !FORWARDED.has(type) || typeof dst !== 'string') return;
    const target = this.#peers.get(dst);
    if (!target && this.#remote) {
      // Maybe a member of the same shard on another node: that node checks the scope again on arrival.
      this.#forwarded++;
      this.#remote(source.scope, dst, JSON.stringify({ type, src: source.peerId, dst, payload }));
      return;
    }
    if (!target || target.scope !== source.scope) {
      // Not a member of the same shard: the sender hears that the peer is unavailable, nothing more.
      if (type !== 'LEAVE' && type !== 'EXPIRE') source.socket?.send(JSON.stringify({ type: 'EXPIRE', src: dst }));
      return;
    }
    const out = JSON.stringify({ type, src: source.peerId, dst, payload });
    this.#forwarded++;
    if (target.socket) target.socket.send(out);
    else if (type !== 'LEAVE' && type !== 'EXPIRE') enqueue(target, { message: out, src: source.peerId, at: Date.now() });
  }
}
