/**
 * The shard state store: the one interface between the signaling server and
 * where shard membership lives. In memory by default (memory-store.ts); a
 * Redis implementation (redis-store.ts) follows the same contract:
 *
 * - `join` is the capacity check and the insert in ONE atomic operation (a
 *   Lua script in Redis), so concurrent joins on any number of nodes never
 *   overfill a shard. The server never reads a count and then writes.
 * - Members carry the node that holds their socket; Redis would keep them
 *   under a lease that the node renews with its heartbeat sweep, so a dead
 *   node's members expire.
 * - `publish`/`subscribe` carry everything that must reach the members of a
 *   shard (relayed events, presence changes, peer signaling) to every node
 *   that holds one of them: Redis pub/sub on a channel per shard.
 * - Rate limits: a member's buckets are saved with its record (`rateBuckets`,
 *   never read per event), and `takeJoin` keeps the per-address join
 *   allowance, in the same place as the shards, so every node sees one count.
 */
import type { EventPayload, MemberWire, PresenceState, ShardInfo } from '../../protocol/signaling.js';

/**
 * A client's rate-limit buckets as last saved (see SignalingLimits in
 * server-options.ts): they travel with its session, so a client that resumes on any
 * node continues from them instead of a full bucket. Levels are in thousandths
 * of a token; the receiving node adds what its refill rate gives for the time
 * since `savedAtMs` and caps at its own bucket size.
 */
export interface RateBuckets {
  readonly eventMilliTokens: number;
  readonly messageMilliTokens: number;
  /** Wall clock (`Date.now()`) of the save: nodes share no monotonic clock. */
  readonly savedAtMs: number;
}

/** A member as the store keeps it. `online` is false while it is within its reconnection grace period. */
export interface MemberRecord extends MemberWire {
  readonly kind: 'browser' | 'backend';
  readonly online: boolean;
  /**
   * The rate-limit buckets saved with the session, when any were (never on the
   * wire). `member()` returns them; other reads may leave them out.
   */
  readonly rateBuckets?: RateBuckets;
}

/** The mutable fields of a member. */
export interface MemberPatch {
  readonly userId?: string | null;
  readonly userInfo?: EventPayload;
  readonly online?: boolean;
  readonly peerId?: string | null;
  readonly rateBuckets?: RateBuckets;
  /** Here or away (control/handlers/focus.ts). */
  readonly state?: PresenceState;
}

/** What a join asks for. */
export interface JoinRequest {
  readonly projectId: string;
  /** A named shard, or undefined for automatic placement. */
  readonly shardName: string | undefined;
  /** Capacity the client asked for. */
  readonly maxConnectionsPerShard: number;
  /** Most shards the project may have. */
  readonly maxShards: number;
  readonly member: MemberRecord;
  /** Names a new shard when automatic placement opens one; called again on a collision. */
  readonly newShardName: () => string;
}

/**
 * The outcome of a join: placed (in `shardName`; `opened` when this join made the shard) or refused.
 * It carries no member list: the server reads `members()` once it listens to the shard, so that no
 * change published between the placement and the listening falls between the two (join.ts).
 */
export type JoinOutcome =
  { readonly ok: true; readonly shardName: string; readonly opened: boolean } | { readonly ok: false; readonly reason: 'SHARD_FULL' | 'TOO_MANY_SHARDS' | 'CLIENT_ID_TAKEN' };

/** What travels to every node holding members of a shard. */
export type ShardBroadcast =
  | {
      readonly kind: 'event';
      readonly from: string;
      /** Raw recipients (client ids or user ids), or null for every member but the sender. */
      readonly to: readonly string[] | null;
      /** The `event` frame, serialized once for every recipient. */
      readonly frame: string;
    }
  | { readonly kind: 'presence'; readonly frame: string; readonly except: string | null }
  /**
   * A PeerJS frame (OFFER, ANSWER, CANDIDATE…) for the peer id `dst`, whose
   * socket is on another node (stores shared by many nodes only).
   */
  | { readonly kind: 'peer'; readonly dst: string; readonly frame: string }
  /**
   * `clientId` resumed on node `node`: any other node still holding a socket
   * for it (half open, not noticed yet) drops that socket without a trace.
   */
  | { readonly kind: 'takeover'; readonly clientId: string; readonly node: string }
  /**
   * How many spectators node `node` holds for this shard (spectators.ts): each node adds up the
   * counts it heard. `node` is '' on a one-process store.
   */
  | { readonly kind: 'watchers'; readonly node: string; readonly count: number }
  /** A player left the shard for good: its spectators may take the seat. */
  | { readonly kind: 'seat' }
  /** An update of the shard's state (`frame`: the relayed `state` frame), for every member but `from`. */
  | { readonly kind: 'state'; readonly from: string; readonly frame: string };

/** Listener of one shard's messages. */
export type ShardBroadcastListener = (message: ShardBroadcast) => void;

/**
 * Where shard state lives. Every method is atomic on its own.
 *
 * A store shared by many nodes (Redis) sets {@link ShardStore.nodeId} and
 * guards members by node: `leave` removes only a member this node holds, and
 * `update` changes only such a member, except that `online: true` takes a
 * member over from another node (a client resuming on this node).
 */
export interface ShardStore {
  /** The node this store instance speaks for, when the store is shared by many nodes; undefined for a one-process store. */
  readonly nodeId?: string;
  /** Resolves once the store can serve (connected); the server awaits it before listening. */
  readonly ready?: Promise<void>;
  /** Places a member (see {@link JoinRequest}); atomic capacity check and insert. */
  join(request: JoinRequest): Promise<JoinOutcome>;
  /** Removes a member; the shard disappears with its last member. Resolves false when it was not there. */
  leave(projectId: string, shardName: string, clientId: string): Promise<boolean>;
  /** Changes a member's mutable fields; resolves the new record, or null when it is gone. */
  update(projectId: string, shardName: string, clientId: string, patch: MemberPatch): Promise<MemberRecord | null>;
  /** One member, or null. */
  member(projectId: string, shardName: string, clientId: string): Promise<MemberRecord | null>;
  /** Every member of a shard (online or within its grace period), in join order. */
  members(projectId: string, shardName: string): Promise<readonly MemberRecord[]>;
  /** The project's active shards and their online member counts. */
  shards(projectId: string): Promise<readonly ShardInfo[]>;
  /**
   * Takes one join from the allowance of a client address: at most
   * `perMinute` joins at once, then one every `60,000 / perMinute` ms (GCRA,
   * a token bucket kept as one timestamp). Shared by every node of the store
   * and atomic (a Lua script in Redis), so joins spread over many nodes count
   * as on one. Resolves false when over; rejects when the store is out of
   * reach (the server then admits: see SignalingLimits.maxJoinsPerAddressPerMinute).
   * Optional: without it the server keeps the allowance in its own process.
   */
  takeJoin?(address: string, perMinute: number): Promise<boolean>;
  /**
   * Sends a message to every subscriber of the shard (every node holding a member): this node's
   * listeners at once, the other nodes' through the store. `undelivered` is called when the
   * message could not reach the other nodes (a shared store out of reach): nothing is queued,
   * the caller tells whoever sent it (control/handlers/emit.ts).
   */
  publish(projectId: string, shardName: string, message: ShardBroadcast, undelivered?: () => void): void;
  /** Listens to a shard's messages. Returns the unsubscribe function. */
  subscribe(projectId: string, shardName: string, listener: ShardBroadcastListener): () => void;
  /**
   * The shards' shared state and recent events (issue 26), kept where the shards are and dropped
   * with the shard. Optional for a custom store: without it, state frames are answered
   * `UNSUPPORTED` and `history` is empty.
   */
  readonly state?: ShardStateStore;
  /** Totals for metrics (a shared store: this node's members and the shards they are in). */
  stats(): { readonly shards: number; readonly members: number };
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** A shard's state as stored: Yjs updates (v1) in the order they came, to merge on read. */
export interface StoredState {
  readonly updates: readonly Uint8Array[];
  /** Sum of the updates' lengths: what the shard's state limit is checked against. */
  readonly bytes: number;
  /** Changes at each compaction: a compaction computed from an older read is not applied. */
  readonly generation: number;
  /**
   * The state vector of the one stored update, when a compaction left exactly one and gave its
   * vector; absent otherwise (an append drops it). A join answers with it instead of decoding
   * the whole state for it (2.5 ms for 100 KB, measured: bench/RESULTS.md).
   */
  readonly vector?: Uint8Array;
}

/**
 * Where a shard's state and its recent events live (state-store.ts says how the server uses it).
 * The store never decodes an update: it keeps bytes, and the server merges them (Y.mergeUpdates)
 * without a Y.Doc, so a shard's state costs its bytes and nothing more.
 */
export interface ShardStateStore {
  /** The shard's state; no updates when it has none. */
  read(projectId: string, shardName: string): Promise<StoredState>;
  /** Appends an update unless the stored bytes would pass `maxBytes`; resolves how many updates are stored then, or null when refused. */
  append(projectId: string, shardName: string, update: Uint8Array, maxBytes: number): Promise<number | null>;
  /**
   * Replaces the first `count` updates by `merged`, when the state is still of `generation` (no
   * other compaction came between the read and this). Resolves whether it replaced them.
   * `vector` is `merged`'s state vector: kept (as {@link StoredState.vector}) when `merged` is then the only update.
   */
  compact(projectId: string, shardName: string, merged: Uint8Array, count: number, generation: number, vector: Uint8Array): Promise<boolean>;
  /** Keeps a relayed event frame in the shard's ring of the last `size` events. */
  remember(projectId: string, shardName: string, frame: string, size: number): void;
  /** The shard's last `count` remembered event frames, oldest first. */
  recent(projectId: string, shardName: string, count: number): Promise<readonly string[]>;
}
