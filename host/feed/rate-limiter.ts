/**
 * A token bucket: how the feed keeps one template's flood of calls from
 * costing the feed anything but a refusal.
 */

/** A rate: `burst` calls at once, `perSecond` after that. */
export interface RateLimit {
  readonly burst: number;
  readonly perSecond: number;
}

/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Calls allowed in one burst (the bucket's size). */
  readonly burst: number;
  /** Tokens added back per second. */
  readonly perSecond: number;
  /** The clock, in milliseconds; default `performance.now()`. */
  readonly now?: () => number;
}

/** Allows `burst` calls at once and `perSecond` calls per second after that. */
export class TokenBucket {
  readonly #burst: number;
  readonly #perMs: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.burst >= 1) || !(options.perSecond > 0)) throw new RangeError('platform-kit: a token bucket needs burst ≥ 1 and perSecond > 0');
    this.#burst = options.burst;
    this.#perMs = options.perSecond / 1_000;
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = options.burst;
    this.#at = this.#now();
  }

  /** Takes one token: true when the call may go ahead. */
  take(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
