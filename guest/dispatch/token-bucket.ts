/**
 * A token bucket on a millisecond clock, the one rate limit of the browser
 * client: the session's own events (emitEvent) and each mesh peer's frames at
 * the door of its data channel. Rate and capacity are given per call, so a
 * bucket follows limits that arrive later (the server's, with `joined`).
 */
export class TokenBucket {
  #tokens: number;
  #stamp: number;

  /** `tokens` to start with, counted at `stamp` (ms). */
  constructor(tokens: number, stamp = 0) {
    this.#tokens = tokens;
    this.#stamp = stamp;
  }

  /** Refills by the time since the last call (at most `capacity`), then takes one token; false when there is none. */
  take(now: number, perSecond: number, capacity: number): boolean {
    this.#tokens = Math.min(capacity, this.#tokens + ((now - this.#stamp) / 1000) * perSecond);
    this.#stamp = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
