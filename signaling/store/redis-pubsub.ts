/**
 * The Redis store's pub/sub: one channel per shard, the envelope a message
 * travels in, and the subscriptions of this node. Every node keeps one
 * subscriber connection, subscribed to the shards it holds members of;
 * listeners on the publishing node are called at once (same-node traffic
 * never waits for Redis), other nodes get the message from the channel.
 */
import type { Redis } from 'ioredis';
import { SentEvents } from './sent-events.js';
import type { ShardListener, ShardMessage } from './store.js';

/** A node's notice that it could not hear a channel from `fromMs` to `toMs` (wall clock): see sent-events.ts. Never leaves this file. */
interface GapNotice {
  readonly kind: 'gap';
  readonly fromMs: number;
  readonly toMs: number;
}

// Pub/sub envelope: "node\nkind\n…": a header of short fields, then the frame (JSON, no raw newline).
function encodeMessage(node: string, message: ShardMessage): string {
  switch (message.kind) {
    case 'event':
      return `${node}\ne\n${message.from}\n${message.to ? JSON.stringify(message.to) : ''}\n${message.frame}`;
    case 'presence':
      return `${node}\np\n${message.except ?? ''}\n${message.frame}`;
    case 'peer':
      return `${node}\nr\n${message.dst}\n${message.frame}`;
    case 'takeover':
      return `${node}\nt\n${message.clientId}\n${message.node}`;
    case 'state':
      return `${node}\ns\n${message.from}\n${message.frame}`;
  }
}

function decodeMessage(text: string): { node: string; message: ShardMessage | GapNotice } | null {
  const cut = (from: number): [string, number] => {
    const at = text.indexOf('\n', from);
    return at < 0 ? [text.slice(from), text.length] : [text.slice(from, at), at + 1];
  };
  const [node, a] = cut(0);
  const [kind, b] = cut(a);
  const [first, c] = cut(b);
  switch (kind) {
    case 'e': {
      const [to, d] = cut(c);
      return { node, message: { kind: 'event', from: first, to: to ? (JSON.parse(to) as string[]) : null, frame: text.slice(d) } };
    }
    case 'p':
      return { node, message: { kind: 'presence', except: first || null, frame: text.slice(c) } };
    case 'r':
      return { node, message: { kind: 'peer', dst: first, frame: text.slice(c) } };
    case 't':
      return { node, message: { kind: 'takeover', clientId: first, node: text.slice(c) } };
    case 's':
      return { node, message: { kind: 'state', from: first, frame: text.slice(c) } };
    case 'g':
      return { node, message: { kind: 'gap', fromMs: Number(first), toMs: Number(text.slice(c)) } };
    default:
      return null;
  }
}

/** The shard channels of one node: their listeners, what the subscriber connection is subscribed to, and publishing. */
export class ShardChannels {
  /** Listeners by channel. */
  readonly #listeners = new Map<string, Set<ShardListener>>();
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
    const text = `${this.node}\ng\n${gap.fromMs}\n${gap.toMs}`;
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
    if (!decoded || decoded.node === this.node) return; // our own: delivered locally already
    const message = decoded.message;
    if (message.kind === 'gap') {
      const told = this.#sent.tellBetween(channel, message.fromMs, message.toMs);
      const oldest = this.#sent.oldestMs;
      if (oldest !== null && oldest > message.fromMs) this.log(`platform-kit: node ${decoded.node} missed ${channel} for longer than this node remembers its events; ${told} senders told`);
      return;
    }
    for (const listener of [...set]) listener(message);
  }

  /** Calls this node's listeners of `channel` with a message for this node alone. */
  deliverLocal(channel: string, message: ShardMessage): void {
    const set = this.#listeners.get(channel);
    if (set) for (const listener of [...set]) listener(message);
  }

  /**
   * Calls this node's listeners of `channel` at once and publishes to the other nodes.
   * `undelivered` is called when the other nodes miss it (Redis out of reach or hanging):
   * nothing is queued to be delivered late.
   */
  publish(channel: string, message: ShardMessage, undelivered?: () => void): void {
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
  listen(channel: string, listener: ShardListener): () => void {
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
