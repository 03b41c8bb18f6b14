/**
 * The Redis store's three connections (commands; the lease's renewals, on a
 * connection of their own so that a renewal never waits behind the joins,
 * sweeps and restores pipelined on the command connection; and the subscriber
 * its shard channels listen on) and how a command's failure reaches the store's
 * callers: a Redis that is down, hangs or drops the connection is
 * `UNAVAILABLE` (retry shortly); a script error is a bug (`INTERNAL`).
 *
 * No offline queue and a bound on every command (`commandTimeoutMs`):
 * nothing ever waits for a Redis that is down or hangs.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { PlatformError } from '../../protocol/errors.js';
import type { Script } from './redis-scripts.js';

/** An UNAVAILABLE error: the caller may retry shortly. */
export const unavailable = (why: string, cause?: unknown): PlatformError => new PlatformError('UNAVAILABLE', `${why}; retry shortly`, cause === undefined ? undefined : { cause });

/** ioredis's rejection of a command that outlived `commandTimeout` (its message; it has no code). */
export function timedOut(error: unknown): boolean {
  return String((error as Error | undefined)?.message).includes('timed out');
}

export class RedisConnection {
  command: Redis | undefined;
  /** The lease's own connection: Redis reads it in turn with the others, never behind this node's own backlog. */
  lease: Redis | undefined;
  subscriber: Redis | undefined;
  closed = false;

  constructor(
    readonly nodeId: string,
    readonly commandTimeoutMs: number,
    readonly log: (line: string) => void,
  ) {}

  /** True while Redis answers the command connection. */
  get available(): boolean {
    return this.command?.status === 'ready';
  }

  /** True while the lease's connection is up. */
  get leaseAvailable(): boolean {
    return this.lease?.status === 'ready';
  }

  /** Makes the three connections (not connected yet: `lazyConnect`, so listeners can be added first). ioredis is imported here, lazily. */
  async make(options: string | RedisOptions): Promise<{ command: Redis; lease: Redis; subscriber: Redis }> {
    const { Redis } = await import('ioredis');
    const base: RedisOptions = typeof options === 'string' ? {} : options;
    const settings = { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, commandTimeout: this.commandTimeoutMs } as const;
    const make = (): Redis => {
      const redis = typeof options === 'string' ? new Redis(options, settings) : new Redis({ ...base, ...settings });
      redis.on('error', (error: Error) => this.log(`platform-kit: Redis (${this.nodeId}): ${error.message}`));
      return redis;
    };
    this.command = make();
    this.lease = make();
    this.subscriber = make();
    return { command: this.command, lease: this.lease, subscriber: this.subscriber };
  }

  #client(which: 'command' | 'lease'): Redis {
    if (this.closed) throw new PlatformError('NOT_CONNECTED', 'the Redis store is closed');
    const redis = which === 'lease' ? this.lease : this.command;
    if (!redis || redis.status !== 'ready') throw unavailable('Redis is out of reach');
    return redis;
  }

  /** A failed command as the store's callers see it: out of reach (down, hanging, dropped) is UNAVAILABLE; null: anything else. */
  #failure(redis: Redis, error: unknown): PlatformError | null {
    if (error instanceof PlatformError) return error;
    if (redis.status !== 'ready') return unavailable('Redis is out of reach', error);
    if (timedOut(error)) return unavailable(`Redis did not answer within ${this.commandTimeoutMs} ms`, error);
    return null;
  }

  /**
   * Runs a script (EVALSHA, EVAL when Redis does not know it: first use, or after a restart), on the
   * command connection or (`on: 'lease'`) on the lease's own.
   */
  async run(which: Script, args: readonly (string | number | Buffer)[], on: 'command' | 'lease' = 'command'): Promise<unknown> {
    const redis = this.#client(on);
    try {
      try {
        return await redis.evalsha(which.sha, 0, ...args);
      } catch (error) {
        if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
        return await redis.eval(which.lua, 0, ...args);
      }
    } catch (error) {
      // A script error is a bug here; anything about reaching Redis the caller may retry.
      throw this.#failure(redis, error) ?? new PlatformError('INTERNAL', `Redis: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Runs plain commands on the command connection. */
  async read<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = this.#client('command');
    try {
      return await call(redis);
    } catch (error) {
      throw this.#failure(redis, error) ?? error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [this.command, this.lease, this.subscriber].map(async (redis) => {
        await redis?.quit().catch(() => redis.disconnect());
      }),
    );
  }
}
