/**
 * The in-memory {@link ShardStateStore}: a shard's state as the list of its
 * update bytes (merged by the server's compaction), and its ring of recent
 * events. The memory store drops a shard's entry when the shard ends
 * (memory-store.ts `leave`), so nothing outlives its shard.
 */
import type { ShardStateStore, StoredState } from './store.js';

interface Entry {
  updates: Uint8Array[];
  bytes: number;
  generation: number;
  /** The one update's state vector (StoredState.vector), or null. */
  vector: Uint8Array | null;
  /** Recent event frames, oldest first (at most `size` and {@link HISTORY_MAX_CHARS}). */
  readonly events: string[];
  eventChars: number;
}

/** Most characters of event frames one shard's history keeps: 100 events of 64 KiB would be 6.4 MB a shard. */
export const HISTORY_MAX_CHARS = 256 * 1024;

/** The memory store's state part; `drop` is called when a shard ends. */
export interface MemoryStateStore extends ShardStateStore {
  drop(projectId: string, shardName: string): void;
  /** Bytes of state held (metrics, tests). */
  heldBytes(): number;
}

const EMPTY: StoredState = { updates: [], bytes: 0, generation: 0 };

/** Creates the state part of the memory store. */
export function createMemoryStateStore(): MemoryStateStore {
  const entries = new Map<string, Entry>();
  const keyOf = (projectId: string, shardName: string): string => `${projectId}\u0000${shardName}`;
  const entryOf = (projectId: string, shardName: string): Entry => {
    const key = keyOf(projectId, shardName);
    let entry = entries.get(key);
    if (!entry) entries.set(key, (entry = { updates: [], bytes: 0, generation: 0, vector: null, events: [], eventChars: 0 }));
    return entry;
  };
  return {
    read(projectId, shardName) {
      const entry = entries.get(keyOf(projectId, shardName));
      // A copy of the list: a compaction that replaces it must not change what a reader holds.
      if (!entry) return Promise.resolve(EMPTY);
      const held = { updates: [...entry.updates], bytes: entry.bytes, generation: entry.generation };
      return Promise.resolve(entry.vector && entry.updates.length === 1 ? { ...held, vector: entry.vector } : held);
    },
    append(projectId, shardName, update, maxBytes) {
      const entry = entryOf(projectId, shardName);
      if (entry.bytes + update.length > maxBytes) return Promise.resolve(null);
      entry.updates.push(update);
      entry.bytes += update.length;
      entry.vector = null;
      return Promise.resolve(entry.updates.length);
    },
    compact(projectId, shardName, merged, count, generation, vector) {
      const entry = entries.get(keyOf(projectId, shardName));
      if (!entry || entry.generation !== generation || entry.updates.length < count) return Promise.resolve(false);
      const rest = entry.updates.slice(count);
      entry.updates = [merged, ...rest];
      entry.bytes = rest.reduce((sum, update) => sum + update.length, merged.length);
      entry.vector = rest.length === 0 ? vector : null;
      entry.generation++;
      return Promise.resolve(true);
    },
    remember(projectId, shardName, frame, size) {
      if (frame.length > HISTORY_MAX_CHARS) return;
      const entry = entryOf(projectId, shardName);
      entry.events.push(frame);
      entry.eventChars += frame.length;
      // At most 100 entries: shifting them is cheaper than a ring's bookkeeping.
      while (entry.events.length > size || entry.eventChars > HISTORY_MAX_CHARS) entry.eventChars -= entry.events.shift()!.length;
    },
    recent(projectId, shardName, count) {
      const entry = entries.get(keyOf(projectId, shardName));
      if (!entry || count <= 0) return Promise.resolve([]);
      return Promise.resolve(entry.events.slice(Math.max(0, entry.events.length - count)));
    },
    drop(projectId, shardName) {
      entries.delete(keyOf(projectId, shardName));
    },
    heldBytes() {
      let total = 0;
      for (const entry of entries.values()) total += entry.bytes;
      return total;
    },
  };
}
