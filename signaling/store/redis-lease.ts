/**
 * A node's lease in Redis, and the epoch that fences its writes
 * (redis-scripts.ts, LUA_RENEW and `fenced`).
 *
 * - Renewed each `leaseMs / 3` on a timer of its own and on a Redis
 *   connection of its own (redis-connection.ts), so neither a long rebuild or
 *   sweep nor the joins pipelined on the command connection delay it past the
 *   lease; a renewal that fails while Redis
 *   is reachable (a stall wakes with its command timed out: timers run
 *   before the reply is read) is tried again in 100 ms.
 * - The node fences itself too: past `leaseMs − margin` since its last
 *   renewal was sent, {@link NodeLease.ensure} awaits one renewal and
 *   refuses (UNAVAILABLE) if it still holds none.
 * - What a lapse needs to be explained is logged: a renewal tick that fired
 *   late (the event loop busy or the process given no CPU, told apart by the
 *   CPU the process used meanwhile), a renewal slow to answer, and with a
 *   lapse the time since the renewal before it. A lease shorter than the
 *   longest the process may go without CPU is the operator's setting to fix.
 * - A renewal that returns a new epoch (the lease had lapsed, or Redis lost
 *   its data) sets {@link NodeLease.mustRebuild}: the store puts back what it
 *   holds, through the capacity check.
 */
import type { PlatformError } from '../../protocol/errors.js';
import { unavailable, type RedisConnection } from './redis-connection.js';
import { SCRIPTS } from './redis-scripts.js';

/** What a renewal found (redis-scripts.ts LUA_RENEW). */
type Renewal = 'HELD' | 'LAPSED' | 'LOST' | 'FIRST';

/** How soon a failed renewal is tried again. */
const RENEW_RETRY_MS = 100;

export class NodeLease {
  /** The epoch of this node's lease ('' before the first registration): every write names it. */
  epoch = '';
  /** Set by a renewal that got a new epoch: what this node holds must be put back. */
  mustRebuild = false;
  /** The cluster marker this node registered under: a new one means Redis lost its data. */
  #cluster = '';
  /** performance.now() until which the lease surely holds (sent time + lease − margin). */
  #until = 0;
  #renewing: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** When the last renewal that Redis answered was sent (performance.now()). */
  #lastHeldAt = 0;
  /** The last renewal tick, and the process's CPU time then: a late tick is told apart as busy or starved. */
  #lastTick = { at: 0, cpu: process.cpuUsage() };

  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
    readonly leaseMs: number,
    /** How many members this node holds (for the log line of a new epoch). */
    readonly heldCount: () => number,
    /** Called when a write found the lease gone: renew and rebuild at once (the store's heartbeat). */
    readonly onFenced: () => void,
  ) {}

  /**
   * How long joins wait after Redis lost its data: every live node renews each `leaseMs / 3`, and at
   * once when its connection is back (ioredis retries within 2 s), so by then each has put back
   * what it holds. The restores are capacity-checked anyway: the wait only gives them the first places.
   */
  get recoveryMs(): number {
    return Math.min(this.leaseMs, Math.floor(this.leaseMs / 3) + 2_000);
  }

  get #interval(): number {
    return Math.max(100, Math.floor(this.leaseMs / 3));
  }

  /** Starts renewing every `leaseMs / 3`. */
  start(): void {
    this.#lastTick = { at: performance.now(), cpu: process.cpuUsage() };
    this.#timer = setInterval(() => {
      this.#noteLateTick();
      void this.renew();
    }, this.#interval);
    this.#timer.unref();
  }

  /**
   * Logs a renewal tick that came over half an interval late: the lease's margin shrinks by as much.
   * The CPU the process used meanwhile says why: near a whole core, its own work held the event loop;
   * far less, the machine gave it no CPU (other processes, a stop).
   */
  #noteLateTick(): void {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const wallMs = now - this.#lastTick.at;
    const lateMs = wallMs - this.#interval;
    if (lateMs > this.#interval / 2) {
      const cpuMs = (cpu.user - this.#lastTick.cpu.user + cpu.system - this.#lastTick.cpu.system) / 1000;
      this.redis.log(
        `platform-kit: node ${this.redis.nodeId} lease renewal late: its timer fired ${Math.round(lateMs)} ms after it was due (lease ${this.leaseMs} ms); the process used ${Math.round((100 * cpuMs) / wallMs)} % of a core meanwhile`,
      );
    }
    this.#lastTick = { at: now, cpu };
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
  }

  /** Renews the lease; one renewal at a time (a second call shares the first). */
  renew(): Promise<void> {
    const { redis } = this;
    this.#renewing ??= (async () => {
      const sentAt = performance.now();
      const [status, epoch, cluster] = (await redis.run(SCRIPTS.renew, [this.prefix, redis.nodeId, this.leaseMs, this.epoch, this.#cluster, this.recoveryMs], 'lease')) as [
        Renewal,
        string,
        string,
      ];
      const tookMs = performance.now() - sentAt;
      if (tookMs > this.leaseMs / 10) redis.log(`platform-kit: node ${redis.nodeId} lease renewal took ${Math.round(tookMs)} ms (lease ${this.leaseMs} ms)`);
      const sincePrevious = this.#lastHeldAt === 0 ? 0 : sentAt - this.#lastHeldAt;
      this.#lastHeldAt = sentAt;
      this.epoch = epoch;
      this.#cluster = cluster;
      // Redis counts the lease from when it ran the script, which is after `sentAt`: a margin covers clock rates.
      this.#until = sentAt + this.leaseMs - Math.max(50, Math.floor(this.leaseMs / 10));
      if (status === 'LAPSED' || status === 'LOST') {
        const gap = status === 'LAPSED' && sincePrevious > 0 ? ` (${Math.round(sincePrevious)} ms since the renewal before)` : '';
        redis.log(
          `platform-kit: node ${redis.nodeId} ${status === 'LOST' ? 'found Redis emptied' : 'had lost its lease'}: epoch ${epoch}, putting back ${this.heldCount()} members${gap}`,
        );
        this.mustRebuild = true;
      }
    })()
      .catch((error: unknown) => {
        redis.log(`platform-kit: node ${redis.nodeId} lease renewal: ${String(error)}`);
        // Once more soon, not a whole interval later: the lease is short of its margin already.
        if (!redis.closed && this.#timer && redis.leaseAvailable) setTimeout(() => void this.renew(), RENEW_RETRY_MS).unref();
      })
      .finally(() => {
        this.#renewing = null;
      });
    return this.#renewing;
  }

  /**
   * Refuses a write this node may no longer make: its lease may have run out since it was last
   * renewed (a stall, a Redis that hangs). One renewal is awaited first, so a node that wakes from
   * a stall admits joins again as soon as it holds a lease (and puts its members back) anew.
   */
  async ensure(): Promise<void> {
    if (performance.now() < this.#until) return;
    await this.renew();
    if (performance.now() >= this.#until) throw unavailable(`node ${this.redis.nodeId} has not renewed its lease in time`);
  }

  /** A script answered FENCED: the lease this node wrote with is gone. Renew (a new epoch, then a rebuild); the error to refuse with. */
  fenced(): PlatformError {
    this.#until = 0;
    this.onFenced();
    return unavailable(`node ${this.redis.nodeId} lost its lease`);
  }
}
