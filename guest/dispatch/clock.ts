/**
 * The server-synced clock of one client: its local clock (with the test
 * skew) and the offset to the server's, estimated NTP-style from ping/pong
 * round trips. Apart from the connection because it only needs a way to
 * ping, and from the sender and receiver, which only read it (`ts` on send,
 * `latencyMs` on receive).
 */
import { preciseNow, type ServerMessage } from '../../protocol/signaling.js';

/**
 * Round trips measured when a client first joins (three when it resumes), all after `connect()`
 * resolved, in the background (see {@link ServerClock.refine}); until the first is back, the
 * clock reads the server's time in `joined` ({@link ServerClock.restart}).
 */
export const CLOCK_SAMPLES_AT_CONNECT = 5;
export const CLOCK_SAMPLES_AT_RESUME = 3;
/** The most recent samples kept; the one with the smallest round trip wins. */
const CLOCK_WINDOW = 8;

/** Sends `{type:'ping', c}` and waits for its answer (`pong` with `c` and the server's `s`). */
export type Ping = (c: number, timeoutMs: number) => Promise<ServerMessage>;

/** One client's clock. */
export class ServerClock {
  /** The test skew of this client's clock (SessionOptions.clockSkewMs), read on every clock read. */
  readonly skew: number;
  /** Server time minus local time (with the skew), in ms. */
  offset = 0;
  #samples: { rtt: number; offset: number }[] = [];
  /** Bumped by restart() and refine(): a background refinement runs while it is its own. */
  #generation = 0;

  constructor(skewMs: number) {
    this.skew = skewMs;
  }

  /** This client's local clock (with the test skew). */
  now(): number {
    return preciseNow() + this.skew;
  }

  /** The server-synced clock, in ms since the epoch. */
  serverNow(): number {
    return preciseNow() + this.skew + this.offset;
  }

  /** A first guess from the server's time in `joined` (`s`); the samples taken so far are forgotten. */
  restart(serverTime: number): void {
    this.offset = serverTime - this.now();
    this.#samples = [];
    // A refinement of the connection before stops: its samples are of another socket.
    this.#generation++;
  }

  /**
   * More samples after the connection is up, without holding anything back: events sent
   * meanwhile carry the offset of the samples so far (within half a round trip of the truth,
   * usually far less), and the best of all of them wins when they are in. A sample that fails
   * (the socket closed, a reconnection restarted the clock) ends it quietly: the next join or
   * heartbeat measures again. At least one sample; settles (never rejects) once the first is in,
   * or failed.
   */
  refine(ping: Ping, samples: number): Promise<void> {
    const generation = ++this.#generation;
    const first = this.sync(ping, 1);
    void (async () => {
      await first;
      for (let i = 1; i < samples && generation === this.#generation; i++) await this.sync(ping, 1);
    })().catch(() => undefined);
    return first.catch(() => undefined);
  }

  /** NTP-style: offset = server time − midpoint of the round trip; the sample with the smallest round trip wins. */
  async sync(ping: Ping, samples: number, timeoutMs = 5_000): Promise<void> {
    for (let i = 0; i < samples; i++) {
      const c = this.now();
      const reply = await ping(c, timeoutMs);
      const end = this.now();
      if (reply.type !== 'pong') continue;
      const rtt = end - reply.c;
      this.#samples.push({ rtt, offset: reply.s - (reply.c + end) / 2 });
      if (this.#samples.length > CLOCK_WINDOW) this.#samples.shift();
    }
    let best = this.#samples[0];
    for (const sample of this.#samples) if (best === undefined || sample.rtt < best.rtt) best = sample;
    if (best) this.offset = best.offset;
  }
}
