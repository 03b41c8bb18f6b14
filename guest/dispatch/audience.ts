/**
 * Who watches: whether this client is a spectator, how many spectators the
 * shard has, and the listeners of both (`onSpectatorsChanged`,
 * `onSeatAvailable`). Apart from the session, which only feeds it what the
 * server says (`joined`, `watchers`, `seat`).
 */

/** Callback of `onSpectatorsChanged`: how many spectators watch the shard now. */
export type SpectatorsChangedCallback = (count: number) => void;
/** Callback of `onSeatAvailable`: a player left for good; `takeSeat()` may now succeed. */
export type SeatAvailableCallback = () => void;

/** The spectator side of one session. */
export class Audience {
  /** Whether this client watches (set by each `joined`). */
  spectator = false;
  #count = 0;
  readonly #countListeners = new Set<SpectatorsChangedCallback>();
  readonly #seatListeners = new Set<SeatAvailableCallback>();

  /** How many spectators watch the shard, as last told. */
  get count(): number {
    return this.#count;
  }

  /** A new count from the server; listeners hear it when it changed. */
  setCount(count: number): void {
    if (count === this.#count) return;
    this.#count = count;
    for (const callback of [...this.#countListeners]) safely(() => callback(count));
  }

  /** The server says a seat may be free: told to the listeners while this client watches. */
  seatAvailable(): void {
    if (!this.spectator) return;
    for (const callback of [...this.#seatListeners]) safely(callback);
  }

  onCount(callback: SpectatorsChangedCallback): () => void {
    return add(this.#countListeners, callback);
  }

  onSeat(callback: SeatAvailableCallback): () => void {
    return add(this.#seatListeners, callback);
  }
}

function add<T>(set: Set<T>, callback: T): () => void {
  // Wrapped in an entry of its own: the same callback added twice is two subscriptions.
  const entry = { callback };
  const wrapped = ((...args: unknown[]) => (entry.callback as (...args: unknown[]) => void)(...args)) as T;
  set.add(wrapped);
  return () => {
    set.delete(wrapped);
  };
}

function safely(run: () => void): void {
  try {
    run();
  } catch (error) {
    console.error('platform-kit: a spectator listener threw', error);
  }
}
