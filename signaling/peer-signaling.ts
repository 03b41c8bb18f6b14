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
 *
 * A member may signal on its control socket instead (issue 27,
 * protocol/mesh-signal-frames.ts): its peer id is registered with a
 * {@link PeerLine} (the control connection) and never has a PeerJS socket.
 * Its frames come through {@link PeerSignaling.fromLine} and go through the
 * same bucket, scope and routing; frames for it go down its line. Members of
 * both kinds signal to each other.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { jsonDepthWithin } from '../protocol/data.js';
import { CLOSE_CODES, PEERJS_KEY } from '../protocol/signaling.js';
import { sameSecret } from './services/http.js';
import { closeSoon } from './close-soon.js';

/**
 * A member's control socket as its signalling path (the server's control side
 * makes it: handlers/signal.ts): frames for the member, and a refusal of one of
 * its frames, counted like the control socket's own.
 */
export interface PeerLine {
  /** Sends a PeerJS server message text (`{"type":…,"src":…}`) to the member, in a `signal` frame. */
  send(message: string): void;
  /** One of the member's signal frames was dropped (over the rate): a refusal of its control socket. */
  refused(what: string): void;
}

/** A peer id the server issued to one client. */
interface PeerEntry {
  readonly peerId: string;
  readonly token: string;
  /** `projectId\0shardName`: peers may only signal within it. */
  readonly scope: string;
  /** The member signals on its control socket: never a PeerJS socket, nothing queued. */
  readonly line: PeerLine | null;
  socket: WebSocket | null;
  /** Messages that arrived before the destination's socket opened; {@link NO_MESSAGES} (shared) while none. */
  queue: QueuedMessage[];
  // The socket's frame bucket and refusal allowance, in thousandths (as the control socket's).
  frameMilliTokens: number;
  refusalMilliTokens: number;
  /** Whole ms of `performance.now()` at the last take from either. */
  stamp: number;
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

/**
 * Characters waiting for `target`: summed when a message is queued or the
 * queue goes (at most TARGET_QUEUE_MESSAGES items), rather than kept in a
 * field of every registered peer, nearly all of which never queue anything.
 */
function queuedChars(target: PeerEntry): number {
  let chars = 0;
  for (const item of target.queue) chars += item.message.length;
  return chars;
}

const FORWARDED = new Set(['OFFER', 'ANSWER', 'CANDIDATE', 'LEAVE', 'EXPIRE']);
/** How long a message waits for its destination's socket (the `peer` package's expire_timeout). */
const EXPIRE_MS = 5_000;
/** Largest frame a peer may send, in characters (an SDP offer is 1–10 K). Larger: dropped, a refusal. */
const MAX_FRAME_CHARS = 64 * 1024;
/*
 * Messages wait for a destination whose socket is not open yet (a member that
 * just joined and is still opening its PeerJS socket). Every queue is bounded
 * three ways, in characters of the forwarded frames: per destination, per
 * sender across all destinations, and per shard, so neither one sender nor
 * many senders together can grow the server's memory with peers that never
 * come. A message over any of them is dropped and its sender told EXPIRE for
 * that destination (peerjs reports peer-unavailable; the pair uses the relay).
 */
/** Messages waiting for one destination. */
const TARGET_QUEUE_MESSAGES = 64;
/** Characters waiting for one destination. */
const TARGET_QUEUE_CHARS = 128 * 1024;
/** Characters one sender has waiting, over every destination. */
const SENDER_QUEUE_CHARS = 256 * 1024;
/** Characters waiting in one shard, over every destination. */
const SHARD_QUEUE_CHARS = 1024 * 1024;
/** Characters waiting on this node, over every shard: many shards' queues together stay bounded too. */
const NODE_QUEUE_CHARS = 32 * 1024 * 1024;
/**
 * A frame costs one token of the socket's bucket plus one per this many
 * characters: the rate bounds bytes as well as frames (a 64 K frame costs 65
 * tokens, so a peer sends at most a few hundred KB a second), while offers
 * and candidates (1–10 K) cost a few tokens each.
 */
const CHARS_PER_TOKEN = 1024;

/** The limits a {@link PeerSignaling} holds every peer socket to (the server's SignalingLimits). */
export interface PeerSocketLimits {
  /** Deepest JSON nesting of a frame; deeper frames are dropped unread. */
  readonly maxJsonDepth: number;
  /** Frames per socket per second, bursts twice; more are dropped. */
  readonly maxMessagesPerSecond: number;
  /** Dropped frames allowed in a burst (refilled at a tenth per second); one more closes the socket (4029). */
  readonly maxRefusals: number;
  /** A socket whose outgoing buffer is over this is terminated instead of sent to. */
  readonly maxBufferedBytes: number;
}

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
  readonly #limits: PeerSocketLimits;
  readonly #log: (line: string) => void;
  /** Characters queued per scope (shard), for SHARD_QUEUE_CHARS; only shards with a queue are here. */
  readonly #shardQueued = new Map<string, number>();
  /**
   * Characters queued per sender peer id, for SENDER_QUEUE_CHARS: local and
   * remote senders alike (a frame from another node names its sender too).
   * Only senders with something queued are here.
   */
  readonly #senderQueued = new Map<string, number>();
  /** Characters queued on this node, for NODE_QUEUE_CHARS. */
  #nodeQueued = 0;

  /** `remote`: the route to other nodes; without it (one process) an unknown destination is answered EXPIRE at once. */
  constructor(remote: RemotePeerRoute | null, limits: PeerSocketLimits, log: (line: string) => void = () => {}) {
    this.#remote = remote;
    this.#limits = limits;
    this.#log = log;
  }
  readonly #alive = new WeakSet<WebSocket>();
  #forwarded = 0;

  /** Binds a new peer id to a client of `scope`; `line`: it signals on its control socket. */
  register(peerId: string, token: string, scope: string, line: PeerLine | null = null): void {
    this.#peers.set(peerId, {
      peerId,
      token,
      scope,
      line,
      socket: null,
      queue: NO_MESSAGES,
      frameMilliTokens: this.#limits.maxMessagesPerSecond * 2000,
      refusalMilliTokens: this.#limits.maxRefusals * 1000,
      stamp: Math.floor(performance.now()),
    });
  }

  /** Revokes a peer id (the client left for good) and closes its socket. */
  revoke(peerId: string): void {
    const entry = this.#peers.get(peerId);
    if (!entry) return;
    this.#dropQueue(entry);
    this.#peers.delete(peerId);
    // closeSoon, not close: out of #peers the heartbeat no longer sees this socket, and a client
    // that never answers would hold it for ws's 30 s closing handshake (one per join and leave).
    if (entry.socket) closeSoon(entry.socket, 1000, 'left');
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
    if (params.get('key') !== PEERJS_KEY) return this.#refuseSocket(socket, 'INVALID-KEY', 'Invalid key provided');
    if (!entry || !sameSecret(token, entry.token) || entry.line) {
      // Never issued, revoked, or someone else's id: this is what binds ids to clients. A member
      // that signals on its control socket has one path only.
      return this.#refuseSocket(socket, 'ID-TAKEN', 'ID is taken');
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
      if (entry.socket !== socket || socket.readyState !== socket.OPEN) return;
      // The door's one catch: no frame of a peer can end the process.
      try {
        this.#onFrame(entry, data, isBinary);
      } catch (error) {
        this.#log(`platform-kit: a peer frame handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    });
    socket.send('{"type":"OPEN"}');
    const waiting = entry.queue;
    this.#dropQueue(entry);
    for (const { message } of waiting) this.#send(socket, message);
  }

  /**
   * The door of a peer socket: rate, binary, size and depth, before the frame
   * is parsed. PeerJS has no error frame for a peer, so a refused frame is
   * dropped; too many refusals close the socket (4029).
   */
  #onFrame(entry: PeerEntry, data: unknown, isBinary: boolean): void {
    if (isBinary) return this.#refuse(entry, 'a binary frame');
    const text = String(data);
    if (!this.#takeFrame(entry, 1 + Math.floor(text.length / CHARS_PER_TOKEN))) return this.#refuse(entry, 'over the frame rate');
    if (text.length > MAX_FRAME_CHARS) return this.#refuse(entry, 'a frame over the size limit');
    if (!jsonDepthWithin(text, this.#limits.maxJsonDepth)) return this.#refuse(entry, 'a frame nested too deep');
    this.#onMessage(entry, text);
  }

  /**
   * A PeerJS message of a member that signals on its control socket (a checked `signal` frame of
   * `chars` characters): the same bucket and routing as a PeerJS socket's frame.
   */
  fromLine(peerId: string, type: string, dst: string, payload: unknown, chars: number): void {
    const entry = this.#peers.get(peerId);
    if (!entry?.line) return;
    if (!this.#takeFrame(entry, 1 + Math.floor(chars / CHARS_PER_TOKEN))) return entry.line.refused('over the peer signalling rate');
    this.#route(entry, type, dst, payload);
  }

  /** Takes `cost` frame tokens (rate maxMessagesPerSecond, burst twice); false when the bucket has fewer. */
  #takeFrame(entry: PeerEntry, cost: number): boolean {
    const rate = this.#limits.maxMessagesPerSecond;
    if (rate === Infinity) return true;
    // Whole ms and whole thousandths: small integers, which V8 keeps in the entry itself (no boxed number per peer).
    const now = Math.floor(performance.now());
    const elapsed = now - entry.stamp;
    entry.stamp = now;
    // Rate r per second is r thousandths per ms; the refusal allowance refills at a tenth of its size per second.
    entry.refusalMilliTokens = Math.min(this.#limits.maxRefusals * 1000, entry.refusalMilliTokens + Math.floor(elapsed * (this.#limits.maxRefusals / 10)));
    const level = Math.min(rate * 2000, entry.frameMilliTokens + elapsed * rate);
    if (level < cost * 1000) {
      entry.frameMilliTokens = level;
      return false;
    }
    entry.frameMilliTokens = level - cost * 1000;
    return true;
  }

  /** Counts a refused frame; past the allowance the socket closes with 4029. */
  #refuse(entry: PeerEntry, what: string): void {
    if (entry.line) return entry.line.refused(what);
    if (this.#limits.maxRefusals === Infinity) return;
    if (entry.refusalMilliTokens >= 1000) {
      entry.refusalMilliTokens -= 1000;
      return;
    }
    this.#log(`platform-kit: closing the peer socket of ${entry.peerId}: too many refused frames (last: ${what})`);
    if (entry.socket) closeSoon(entry.socket, CLOSE_CODES.TOO_MANY_REFUSALS, 'RATE_LIMITED: too many refused frames');
  }

  /** Sends unless the socket's buffer is over the limit; such a socket (a peer that does not read) is terminated. */
  #send(socket: WebSocket, frame: string): void {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.#limits.maxBufferedBytes) {
      socket.terminate();
      return;
    }
    socket.send(frame);
  }

  /**
   * Queues a message for a destination whose socket is not open, within every
   * bound (see TARGET_QUEUE_MESSAGES…); false when it does not fit.
   */
  #enqueue(target: PeerEntry, message: string, src: string): boolean {
    const chars = message.length;
    const senderChars = this.#senderQueued.get(src) ?? 0;
    const shardChars = this.#shardQueued.get(target.scope) ?? 0;
    if (
      target.queue.length >= TARGET_QUEUE_MESSAGES ||
      queuedChars(target) + chars > TARGET_QUEUE_CHARS ||
      senderChars + chars > SENDER_QUEUE_CHARS ||
      shardChars + chars > SHARD_QUEUE_CHARS ||
      this.#nodeQueued + chars > NODE_QUEUE_CHARS
    ) {
      return false;
    }
    if (target.queue === NO_MESSAGES) target.queue = [];
    target.queue.push({ message, src, at: Date.now() });
    this.#senderQueued.set(src, senderChars + chars);
    this.#shardQueued.set(target.scope, shardChars + chars);
    this.#nodeQueued += chars;
    return true;
  }

  /** Empties a destination's queue and gives its characters back to their senders and shard. */
  #dropQueue(target: PeerEntry): void {
    if (target.queue.length === 0) return;
    for (const item of target.queue) {
      const senderLeft = (this.#senderQueued.get(item.src) ?? 0) - item.message.length;
      if (senderLeft > 0) this.#senderQueued.set(item.src, senderLeft);
      else this.#senderQueued.delete(item.src);
    }
    const chars = queuedChars(target);
    this.#nodeQueued -= chars;
    const left = (this.#shardQueued.get(target.scope) ?? 0) - chars;
    if (left > 0) this.#shardQueued.set(target.scope, left);
    else this.#shardQueued.delete(target.scope);
    target.queue = NO_MESSAGES;
  }

  /** Tells `source` that `dst` is unavailable (peerjs reports peer-unavailable; the pair relays). */
  #expire(source: PeerEntry, dst: string): void {
    this.#deliver(source, JSON.stringify({ type: 'EXPIRE', src: dst }));
  }

  /** Sends a message to a peer by its line or its socket; false when it has neither open (the caller queues it). */
  #deliver(target: PeerEntry, message: string): boolean {
    if (target.line) {
      target.line.send(message);
      return true;
    }
    if (!target.socket) return false;
    this.#send(target.socket, message);
    return true;
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
        this.#dropQueue(entry);
        for (const src of senders) {
          const sender = this.#peers.get(src);
          if (sender) this.#expire(sender, entry.peerId);
        }
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
    // The sender is on another node: that node hears of a full queue only as a peer that never answers.
    if (!this.#deliver(target, frame) && type !== 'LEAVE' && type !== 'EXPIRE') this.#enqueue(target, frame, src);
  }

  /** Closes every peer socket. */
  close(): void {
    for (const entry of this.#peers.values()) entry.socket?.terminate();
    this.#peers.clear();
    this.#shardQueued.clear();
    this.#senderQueued.clear();
    this.#nodeQueued = 0;
  }

  #refuseSocket(socket: WebSocket, type: 'INVALID-KEY' | 'ID-TAKEN', msg: string): void {
    socket.send(JSON.stringify({ type, payload: { msg } }));
    closeSoon(socket, 1000, type);
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
    if (type === 'HEARTBEAT' || typeof type !== 'string' || typeof dst !== 'string') return;
    this.#route(source, type, dst, payload);
  }

  /** Forwards one message of `source` to `dst` within its shard (this node, another node, or a queue), or answers EXPIRE. */
  #route(source: PeerEntry, type: string, dst: string, payload: unknown): void {
    if (!FORWARDED.has(type)) return;
    const target = this.#peers.get(dst);
    if (!target && this.#remote) {
      // Maybe a member of the same shard on another node: that node checks the scope again on arrival.
      this.#forwarded++;
      this.#remote(source.scope, dst, JSON.stringify({ type, src: source.peerId, dst, payload }));
      return;
    }
    if (!target || target.scope !== source.scope) {
      // Not a member of the same shard: the sender hears that the peer is unavailable, nothing more.
      if (type !== 'LEAVE' && type !== 'EXPIRE') this.#expire(source, dst);
      return;
    }
    const out = JSON.stringify({ type, src: source.peerId, dst, payload });
    this.#forwarded++;
    if (!this.#deliver(target, out) && type !== 'LEAVE' && type !== 'EXPIRE' && !this.#enqueue(target, out, source.peerId)) this.#expire(source, dst);
  }
}
