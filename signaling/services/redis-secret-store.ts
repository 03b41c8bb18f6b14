/**
 * The keystore's {@link SecretStore} in Redis, for servers that run on many
 * nodes: one hash per project (`<prefix>{<projectId>}:secrets`, name →
 * sealed record), `HSET`/`HGET`/`HDEL`. Records arrive sealed (AES-256-GCM by
 * the vault, secret-store.ts): Redis never sees a plaintext secret, and every
 * node opens them because every node has the same server key.
 *
 * Durability is Redis's own: a write is acknowledged once Redis has it in
 * memory and, with `appendonly yes` and `appendfsync always`, on disk. Run the
 * keystore's Redis with AOF; the shard state needs none (it is rebuilt from
 * the live nodes). While Redis is out of reach every call rejects at once with
 * `UNAVAILABLE` (no offline queue).
 *
 * ioredis is imported lazily, on the first call.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { PlatformError } from '../../protocol/errors.js';
import type { SecretStore } from './secret-store.js';
import { timedOut } from '../store/redis-connection.js';

/** Options of {@link createRedisSecretStore}. */
export interface RedisSecretStoreOptions {
  /** `redis://…`, or ioredis options. */
  readonly redis: string | RedisOptions;
  /** Prefix of every key. Default `pk:`. */
  readonly keyPrefix?: string;
  /** Where diagnostic lines go. Default: nowhere. */
  readonly log?: (line: string) => void;
}

/** Longest wait for one keystore command. */
const COMMAND_TIMEOUT_MS = 2_000;

/** Creates a Redis {@link SecretStore}. */
export function createRedisSecretStore(options: RedisSecretStoreOptions): SecretStore {
  const prefix = options.keyPrefix ?? 'pk:';
  const log = options.log ?? (() => {});
  let closed = false;
  let connection: Promise<Redis> | null = null;

  function connect(): Promise<Redis> {
    connection ??= (async () => {
      const { Redis } = await import('ioredis');
      // Bounded like the shard store's commands (redis-store.ts): a Redis that hangs answers UNAVAILABLE, never waits.
      const settings = { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, commandTimeout: COMMAND_TIMEOUT_MS } as const;
      const redis = typeof options.redis === 'string' ? new Redis(options.redis, settings) : new Redis({ ...options.redis, ...settings });
      redis.on('error', (error: Error) => log(`platform-kit: Redis (keystore): ${error.message}`));
      await redis.connect();
      return redis;
    })();
    return connection;
  }

  async function call<T>(run: (redis: Redis) => Promise<T>): Promise<T> {
    if (closed) throw new PlatformError('INTERNAL', 'the secret store is closed');
    let redis: Redis;
    try {
      redis = await connect();
    } catch (error) {
      connection = null; // the next call tries again
      throw new PlatformError('UNAVAILABLE', 'the keystore (Redis) is out of reach; retry shortly', { cause: error });
    }
    if (redis.status !== 'ready') throw new PlatformError('UNAVAILABLE', 'the keystore (Redis) is out of reach; retry shortly');
    try {
      return await run(redis);
    } catch (error) {
      if (redis.status !== 'ready' || timedOut(error)) throw new PlatformError('UNAVAILABLE', 'the keystore (Redis) is out of reach; retry shortly', { cause: error });
      throw error;
    }
  }

  const key = (projectId: string): string => `${prefix}{${projectId}}:secrets`;
  return {
    async get(projectId, name) {
      return (await call((redis) => redis.hget(key(projectId), name))) ?? undefined;
    },
    async put(projectId, name, sealed) {
      await call((redis) => redis.hset(key(projectId), name, sealed));
    },
    async delete(projectId, name) {
      return (await call((redis) => redis.hdel(key(projectId), name))) === 1;
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = connection;
      connection = null;
      const redis = await pending?.catch(() => null);
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
