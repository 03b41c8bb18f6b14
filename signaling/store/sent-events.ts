/**
 * The cross-node events this node published lately, kept so that their
 * senders can be told when another node could not hear them.
 *
 * Redis pub/sub keeps nothing: a node whose subscriber connection is down
 * (Redis restarted, the node slow to reconnect) misses what the others
 * publish meanwhile, and PUBLISH still succeeds for them. The deaf node knows
 * exactly when it could not hear (from the connection's close to its
 * resubscription), so once back it publishes a gap notice on each of its
 * shards' channels (redis-pubsub.ts); every node then tells the senders of
 * the events it published on that channel within the gap, as it tells them
 * when its own PUBLISH fails. No event is delivered late: a real-time event
 * seconds old is worth less than the sender knowing (see docs/server.md, "In production").
 *
 * A ring of parallel arrays (no object per event), bounded in count and in
 * age: a gap older than {@link SENT_MEMORY_MS} tells no one, and is logged.
 */

/** How long a published event can still be told about. */
export const SENT_MEMORY_MS = 30_000;
/** Most events remembered at once (the oldest go first). */
const SENT_CAPACITY = 20_000;
/**
 * Clocks of the nodes may differ: a gap is widened by this much on each side. Telling a sender
 * an event "may not have reached" a node that did get it costs nothing; missing one does.
 */
const CLOCK_MARGIN_MS = 1_000;

export class SentEvents {
  readonly #channel: (string | null)[] = [];
  readonly #at: number[] = [];
  readonly #tell: ((() => void) | null)[] = [];
  /** Index of the oldest entry. */
  #head = 0;
  #size = 0;

  /** Remembers an event published on `channel` now (wall clock); `tell` tells its sender. */
  record(channel: string, tell: () => void, now = Date.now()): void {
    const index = (this.#head + this.#size) % SENT_CAPACITY;
    if (this.#size === SENT_CAPACITY) this.#head = (this.#head + 1) % SENT_CAPACITY;
    else this.#size++;
    this.#channel[index] = channel;
    this.#at[index] = now;
    this.#tell[index] = tell;
    // Drop what is too old to matter, so the closures it holds go too.
    while (this.#size > 0 && now - this.#at[this.#head]! > SENT_MEMORY_MS) this.#drop();
  }

  #drop(): void {
    this.#channel[this.#head] = null;
    this.#tell[this.#head] = null;
    this.#head = (this.#head + 1) % SENT_CAPACITY;
    this.#size--;
  }

  /**
   * Tells the senders of the events published on `channel` between `fromMs` and `toMs` (wall
   * clock, widened by the clock margin), each once. Returns how many were told.
   */
  tellBetween(channel: string, fromMs: number, toMs: number): number {
    const from = fromMs - CLOCK_MARGIN_MS;
    const to = toMs + CLOCK_MARGIN_MS;
    let told = 0;
    for (let i = 0; i < this.#size; i++) {
      const index = (this.#head + i) % SENT_CAPACITY;
      const at = this.#at[index]!;
      if (at < from) continue;
      if (at > to) break; // entries are in time order
      const tell = this.#tell[index];
      if (tell && this.#channel[index] === channel) {
        this.#tell[index] = null;
        told++;
        tell();
      }
    }
    return told;
  }

  /** The oldest time still remembered (wall clock), or null when none. */
  get oldestMs(): number | null {
    return this.#size > 0 ? this.#at[this.#head]! : null;
  }

  clear(): void {
    this.#channel.length = this.#at.length = this.#tell.length = 0;
    this.#head = this.#size = 0;
  }
}
