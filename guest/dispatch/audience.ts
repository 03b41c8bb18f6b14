/**
 * Who watches: whether this client is a spectator, how many spectators the
 * shard has, told to the listeners of both (`onSpectatorsChanged`,
 * `onSeatAvailable`, in the client's listener registry). Apart from the session, which only feeds it what the
 * server says (`joined`, `watchers`, `seat`).
 */
import type { DispatchListeners, ListenerList } from './listeners.js';
import type { SeatAvailableCallback, SpectatorsChangedCallback } from './types.js';

/** The spectator side of one session; its listeners are the client's registry's (listeners.ts). */
export class Audience {
  /** Whether this client watches (set by each `joined`). */
  spectator = false;
  #count = 0;
  readonly #countListeners: ListenerList<SpectatorsChangedCallback>;
  readonly #seatListeners: ListenerList<SeatAvailableCallback>;

  constructor(listeners: DispatchListeners) {
    this.#countListeners = listeners.spectators;
    this.#seatListeners = listeners.seats;
  }

  /** How many spectators watch the shard, as last told. */
  get count(): number {
    return this.#count;
  }

  /** A new count from the server; listeners hear it when it changed. */
  setCount(count: number): void {
    if (count === this.#count) return;
    this.#count = count;
    this.#countListeners.notify(count);
  }

  /** The server says a seat may be free: told to the listeners while this client watches. */
  seatAvailable(): void {
    if (!this.spectator) return;
    this.#seatListeners.notify();
  }

  /** Adds a listener of the count (the registry's `spectators` list). */
  onCount(callback: SpectatorsChangedCallback): () => void {
    return this.#countListeners.add(callback);
  }

  /** Adds a listener of a free seat (the registry's `seats` list). */
  onSeat(callback: SeatAvailableCallback): () => void {
    return this.#seatListeners.add(callback);
  }
}
