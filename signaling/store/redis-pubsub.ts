/**
 * The Redis store's pub/sub: one channel per shard, the envelope a message
 * travels in, and the subscriptions of this node. Every node keeps one
 * subscriber connection, subscribed to the shards it holds members of;
 * listeners on the publishing node are called at once (same-node traffic
 * never waits for Redis), other nodes get the message from the channel.
 */
import type { Redis } from 'ioredis';
import { unreachable } from '../../protocol/exhaustive.js';
import { SentEvents } from './sent-events.js';
import type { ShardBroadcastListener, ShardBroadcast } from './store.js';

/** A node's notice that it could not hear a channel from `fromMs` to `toMs` (wall clock): see sent-events.ts. Never leaves this file. */
interface GapNotice {
  readonly kind: 'gap';
  readonly fromMs: number;
  readonly toMs: number;
}

/** What travels on a shard's channel: a store message, or a node's gap notice. */
type Envelope = ShardBroadcast | GapNotice;

/**
 * The letter of each kind in the envelope's header. A kind added to ShardBroadcast and not here
 * does not compile, nor does it in encodeMessage and decodeMessage below.
 */
const LETTER_OF_KIND: { readonly [Kind in Envelope['kind']]: string } = { event: 'e', presence: 'p', peer: 'r', takeover: 't', watchers: 'w', seat: 's', state: 'y', gap: 'g' };
const KIND_OF_LETTER: ReadonlyMap<string, Envelope['kind']> = new Map((Object.keys(LETTER_OF_KIND) as Envelope['kind'][]).map((kind) => [LETTER_OF_KIND[kind], kind]));

// Pub/sub envelope: "node\nletter\n…": a header of short fields, then the frame (JSON, no raw newline).
// The node is empty in a notice a Lua script publishes (redis-scripts.ts `tell`): no node id is empty.
function encodeMessage(node: string, message: Envelope): string {
  const head = `${node}\n${LETTER_OF_KIND[message.kind]}\n`;
  switch (message.kind) {
    case 'event':
      return `${head}${message.from}\n${message.to ? JSON.stringify(message.to) : ''}\n${message.frame}`;
    case 'presence':
      return `${head}${message.except ?? ''}\n${message.frame}`;
    case 'peer':
      return `${head}${message.dst}\n${message.frame}`;
    case 'takeover':
      return `${head}${message.clientId}\n${message.node}`;
    case 'watchers':
      return `${head}${message.count}\n${message.node}`;
    case 'seat':
      return head;
    case 'state':
      return `${head}${message.from}\n${message.frame}`;
    case 'gap':
      return `${head}${message.fromMs}\n${message.toMs}`;
    default:
      return unreachable(message, 'shard message');
  }
}

function decodeMessage(text: string): { node: string; message: Envelope } | null {
  const cut = (from: number): [string, number] => {
    const at = text.indexOf('\n', from);
    return at < 0 ? [text.slice(from), text.length] : [text.slice(from, at), at + 1];
  };
  const [node, a] = cut(0);
  const [letter, b] = cut(a);
  const [first, c] = cut(b);
  // An unknown letter is a newer node's kind (or junk): not for this node.
  const kind = KIND_OF_LETTER.get(letter);
  if (kind === undefined) return null;
  switch (kind) {
    case 'event': {
      const [to, d] = cut(c);
      return { node, message: { kind: 'event', from: first, to: to ? (JSON.parse(to) as string[]) : null, frame: text.slice(d) } };
    }
    case 'presence':
      return { node, message: { kind: 'presence', except: first || null, frame: text.slice(c) } };
    case 'peer':
      return { node, message: { kind: 'peer', dst: first, frame: text.slice(c) } };
    case 'takeover':
      return { node, message: { kind: 'takeover', clientId: first, node: text.slice(c) } };
    case 'state':
      return { node, message: { kind: 'state', from: first, frame: text.slice(c) } };
    case 'gap':
      return { node, message: { kind: 'gap', fromMs: Number(first), toMs: Number(text.slice(c)) } };
    case 'watchers': {
      const count = Number(first);
      return Number.isSafeInteger(count) && count >= 0 ? { node, message: { kind: 'watchers', count, node: text.slice(c) } } : null;
    }
    case 'seat':
      return { node, message: { kind: 'seat' } };
    default:
      return unreachable(kind, 'shard message kind');
  }
}

/** The shard channels of one node: their listeners, what the subscriber connection is subscribed to, and publishing. */
export class ShardChannels {
  /** Listeners by channel. */
  readonly #listeners = new Map<string, Set<ShardBroadcastListener>>();
  /** Channels this node wants. */
  readonly #subscribed = new Set<string>();
  #command: Redis | undefined;
  #subscriber: Redis | undefined;
  /** Messages other nodes missed: published while Redis was out of reach. */
  dropped = 0;
  /** Events published lately, whose senders a gap notice of another node tells. */
  readonly #sent = new SentEvents();
  /** Since when (wall clock) the subscriber connection is down; null while it hears. */
  #deafSince: number | null = null;
  /** A gap this node has not told the others about yet (the command connection was not back). */
  #gap: { readonly fromMs: number; readonly toMs: number } | null = null;

  constructor(
    readonly node: string,
    readonly log: (line: string) => void,
  ) {}

  /** Publishes on `command` and listens on `subscriber` (the store's two connections, before they connect). */
  attach(command: Redis, subscriber: Redis): void {
    this.#command = command;
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => this.#dispatch(channel, text));
    subscriber.on('close', () => {
      this.#deafSince ??= Date.now();
    });
    subscriber.on('ready', () => {
      // Back after a drop: every wanted channel again (ioredis resubscribes what it knew; this adds the ones asked for while down).
      const resubscribed = this.#subscribed.size > 0 ? subscriber.subscribe(...this.#subscribed) : Promise.resolve(0);
      void resubscribed.then(
        () => {
          // Hearing again from now: the others learn what this node missed, and tell the senders.
          if (this.#deafSince !== null) this.#gap = { fromMs: Math.min(this.#gap?.fromMs ?? Infinity, this.#deafSince), toMs: Date.now() };
          this.#deafSince = null;
          this.#announceGap();
        },
        () => undefined,
      );
    });
    command.on('ready', () => this.#announceGap());
  }

  /** Publishes this node's gap on every channel it listens to (see sent-events.ts). */
  #announceGap(): void {
    const gap = this.#gap;
    const command = this.#command;
    if (!gap || !command || command.status !== 'ready') return;
    this.#gap = null;
    const text = encodeMessage(this.node, { kind: 'gap', fromMs: gap.fromMs, toMs: gap.toMs });
    for (const channel of this.#subscribed) {
      command.publish(channel, text).catch(() => {
        this.#gap ??= gap; // told again when the command connection is back
      });
    }
  }

  /** Subscribes a channel (idempotent) and waits for Redis to confirm, so no message published after a join is missed. */
  async want(channel: string): Promise<void> {
    if (this.#subscribed.has(channel)) return;
    this.#subscribed.add(channel);
    if (this.#subscriber?.status === 'ready') await this.#subscriber.subscribe(channel).catch((error: unknown) => this.log(`platform-kit: subscribe ${channel}: ${String(error)}`));
  }

  /** Subscribes a channel again even if it was wanted already (Redis lost this node's state). */
  wantAgain(channel: string): Promise<void> {
    this.#subscribed.delete(channel);
    return this.want(channel);
  }

  #dispatch(channel: string, text: string): void {
    const set = this.#listeners.get(channel);
    if (!set || set.size === 0) return;
    let decoded: ReturnType<typeof decodeMessage>;
    try {
      decoded = decodeMessage(text);
    } catch {
      decoded = null;
    }
    // Our own: delivered locally already. A script's notice (redis-scripts.ts `tell`) names no node and is for every node.
    if (!decoded || decoded.node === this.node) return;
    const message = decoded.message;
    if (message.kind === 'gap') {
      const told = this.#sent.tellBetween(channel, message.fromMs, message.toMs);
      const oldest = this.#sent.oldestMs;
      if (oldest !== null && oldest > message.fromMs)
        this.log(`platform-kit: node ${decoded.node} missed ${channel} for longer than this node remembers its events; ${told} senders told`);
      return;
    }
    for (const listener of [...set]) listener(message);
  }

  /** Calls this node's listeners of `channel` with a message for this node alone. */
  deliverLocal(channel: string, message: ShardBroadcast): void {
    const set = this.#listeners.get(channel);
    if (set) for (const listener of [...set]) listener(message);
  }

  /**
   * Calls this node's listeners of `channel` at once and publishes to the other nodes.
   * `undelivered` is called when the other nodes miss it (Redis out of reach or hanging):
   * nothing is queued to be delivered late.
   */
  publish(channel: string, message: ShardBroadcast, undelivered?: () => void): void {
    this.deliverLocal(channel, message);
    const command = this.#command;
    if (!command || command.status !== 'ready') {
      this.dropped++;
      undelivered?.();
      return;
    }
    let tell: (() => void) | undefined;
    if (undelivered) {
      // Once, whichever comes first: the PUBLISH failing, or another node's gap notice.
      let told = false;
      tell = () => {
        if (told) return;
        told = true;
        undelivered();
      };
      this.#sent.record(channel, tell);
    }
    command.publish(channel, encodeMessage(this.node, message)).catch(() => {
      this.dropped++; // Redis went away or hangs (the command timed out): other nodes miss this one
      tell?.();
    });
  }

  /** Adds a listener of `channel` (subscribing it); returns its remover, which unsubscribes the channel after its last listener. */
  listen(channel: string, listener: ShardBroadcastListener): () => void {
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(listener);
    void this.want(channel);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(channel) === set) {
        this.#listeners.delete(channel);
        this.#subscribed.delete(channel);
        this.#unsubscribe(channel);
      }
    };
  }

  /** Unsubscribes channels no listener wants any more (a join whose socket closed before it was attached). */
  pruneUnwanted(): void {
    for (const channel of this.#subscribed) {
      if (!this.#listeners.has(channel)) {
        this.#subscribed.delete(channel);
        this.#unsubscribe(channel);
      }
    }
  }

  #unsubscribe(channel: string): void {
    if (this.#subscriber?.status === 'ready') void this.#subscriber.unsubscribe(channel).catch(() => undefined);
  }

  /** Forgets every listener and subscription (the store closes). */
  clear(): void {
    this.#listeners.clear();
    this.#subscribed.clear();
    this.#sent.clear();
  }
}
