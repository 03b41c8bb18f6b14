/**
 * The per-address join allowance (SignalingLimits.maxJoinsPerAddressPerMinute)
 * as GCRA, the generic cell rate algorithm: a token bucket kept as ONE number
 * per address, its "theoretical arrival time" (TAT). Each join moves the TAT
 * one emission interval (`60 s / perMinute`) later; a join is admitted while
 * the TAT stays within one minute of now. So an idle address may join
 * `perMinute` times at once, then once per interval. One number per address
 * is what makes the Redis version a single GET/SET in a Lua script.
 *
 * Times are whole microseconds, so `perMinute` intervals add up to at most one
 * minute exactly: the N-th of N joins at once is never refused by rounding.
 */

const MINUTE_US = 60_000_000;

/** The interval between joins and the burst tolerance, in µs, for `perMinute`; null: no limit. */
export function joinSteps(perMinute: number): { readonly emissionUs: number; readonly toleranceUs: number } | null {
  if (!(perMinute > 0) || perMinute === Infinity) return null;
  const emissionUs = Math.floor(MINUTE_US / perMinute);
  if (emissionUs < 1) return null; // more than 60 million per minute: nothing to limit
  return { emissionUs, toleranceUs: emissionUs * Math.floor(perMinute) };
}

/** The in-process allowance: the memory store's, and the server's when a custom store has none. */
export class JoinLimiter {
  /** TAT by address, µs on this process's monotonic clock. */
  readonly #arrivals = new Map<string, number>();
  #prunedAtUs = 0;

  /** Takes one join of `address`; false when it is over `perMinute`. */
  take(address: string, perMinute: number, nowUs = Math.floor(performance.now() * 1000)): boolean {
    const steps = joinSteps(perMinute);
    if (!steps) return true;
    this.#prune(nowUs);
    const arrival = Math.max(this.#arrivals.get(address) ?? 0, nowUs) + steps.emissionUs;
    if (arrival - nowUs > steps.toleranceUs) return false;
    this.#arrivals.set(address, arrival);
    return true;
  }

  /** Forgets addresses whose bucket is full again (TAT passed): the map holds only recent joiners. */
  #prune(nowUs: number): void {
    if (nowUs - this.#prunedAtUs < MINUTE_US) return;
    this.#prunedAtUs = nowUs;
    for (const [address, arrival] of this.#arrivals) if (arrival <= nowUs) this.#arrivals.delete(address);
  }
}
