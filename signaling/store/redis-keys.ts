/**
 * The Redis store's key layout and the encodings of what the keys hold (member
 * records, saved rate-limit buckets).
 *
 * Keys (one Redis, or a primary with replicas/Sentinel; not Redis Cluster:
 * the scripts name keys they compute), all under `keyPrefix` (default `pk:`),
 * per project `P` under `{P}:`:
 *   {P}:shards  HASH shard → "capacity:automatic:seq"
 *   {P}:size    HASH shard → members (online or within grace)
 *   {P}:online  HASH shard → online members
 *   {P}:open:<capacity>  ZSET automatic shards with room, by creation (oldest first)
 *   {P}:m:<shard>        HASH clientId → member record (see `encodeTail`)
 *   {P}:rl:<shard>       HASH clientId → saved rate-limit buckets "event:message:savedAtMs"
 *                        (written on disconnect and while a client is limited, never per
 *                        event; removed with the member)
 *   {P}:ch:<shard>       pub/sub channel of the shard
 *   {P}:seq     counter (join order, shard creation order)
 *   lease:<node> (PX) the node's epoch while its lease holds; epoch (counter); nodes (SET);
 *   nm:<node> (SET of the node's members)
 *   cluster     this Redis's marker ("n:time"): gone or new when Redis lost its data; clusters (counter)
 *   recovering (PX) set while the nodes put back their members after Redis lost its data: no joins
 *   join:<address> (PX) the address's join allowance: its GCRA arrival time in µs of Redis's
 *                        clock (TIME, one clock for every node); expires when the allowance is full
 */
import type { EventPayload, PresenceState } from '../../protocol/signaling.js';
import type { MemberRecord, RateBuckets } from './store.js';

/** The keys the store reads from Node (the scripts compute theirs from the same prefix). */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** `<prefix>{P}:`, the start of every key of project `P`. */
  project(projectId: string): string {
    return `${this.prefix}{${projectId}}:`;
  }
  /** The shard's member records. */
  members(projectId: string, shardName: string): string {
    return `${this.project(projectId)}m:${shardName}`;
  }
  /** The shard's saved rate-limit buckets. */
  buckets(projectId: string, shardName: string): string {
    return `${this.project(projectId)}rl:${shardName}`;
  }
  /** Online members per shard of the project. */
  online(projectId: string): string {
    return `${this.project(projectId)}online`;
  }
  /** The shard's pub/sub channel. */
  channel(projectId: string, shardName: string): string {
    return `${this.project(projectId)}ch:${shardName}`;
  }
  /** The members a node holds (`memberRef`s). */
  nodeMembers(node: string): string {
    return `${this.prefix}nm:${node}`;
  }
  /** The set of live node ids. */
  get nodes(): string {
    return `${this.prefix}nodes`;
  }
  /** The join allowance of a client address. */
  join(address: string): string {
    return `${this.prefix}join:${address}`;
  }
}

/** A member as a node's scripts name it in `nm:<node>`, and as a node keeps what it holds: "P\nshard\nclientId". */
export const memberRef = (projectId: string, shardName: string, clientId: string): string => `${projectId}\n${shardName}\n${clientId}`;

/** The project, shard and client id of a {@link memberRef}. */
export function splitMemberRef(ref: string): [projectId: string, shardName: string, clientId: string] {
  const [projectId = '', shardName = '', clientId = ''] = ref.split('\n');
  return [projectId, shardName, clientId];
}

// ─── records ────────────────────────────────────────────────────────────────

// A member record: "order\nnode\nonline\nkind\nconnectedAt\npeerId\nuserIdJSON\nuserInfoJSON"
// (JSON never holds a raw newline, so the last field may be split off safely). `kind` carries the
// presence state too: "browser" or "backend", with ":away" for a member not looked at. There and not
// in a field of its own because no script reads `kind` (the scripts split records by position), and a
// node of the previous version reads "browser:away" as a browser member.

/** The record from `node` on (the script puts the join order in front). */
export function encodeTail(node: string, member: MemberRecord): string {
  return [
    node,
    member.online ? '1' : '0',
    kindField(member.kind, member.state),
    String(member.connectedAt),
    member.peerId ?? '',
    JSON.stringify(member.userId),
    JSON.stringify(member.userInfo),
  ].join('\n');
}

/** The `kind` field of a record: the kind, and ':away' for a member away. */
export const kindField = (kind: 'browser' | 'backend', state: PresenceState): string => (state === 'away' ? `${kind}:away` : kind);

/** A member record with the join order and node in front of it. */
export interface Decoded {
  readonly order: number;
  readonly node: string;
  readonly record: MemberRecord;
}

/** Decodes a member record (join order first). */
export function decodeRecord(clientId: string, value: string): Decoded {
  const f = value.split('\n');
  const rest = f.slice(7).join('\n');
  return {
    order: Number(f[0]),
    node: f[1] ?? '',
    record: {
      clientId,
      online: f[2] === '1',
      kind: f[3]?.startsWith('backend') ? 'backend' : 'browser',
      state: f[3]?.endsWith(':away') ? 'away' : 'here',
      connectedAt: Number(f[4]),
      peerId: f[5] ? f[5] : null,
      userId: JSON.parse(f[6] ?? 'null') as string | null,
      userInfo: JSON.parse(rest || '{}') as EventPayload,
    },
  };
}

/** Decodes HGETALL of a shard (client id, record, …) into members in join order. */
export function decodeRecords(pairs: readonly string[]): MemberRecord[] {
  const list: Decoded[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) list.push(decodeRecord(pairs[i]!, pairs[i + 1]!));
  return list.sort((a, b) => a.order - b.order).map((item) => item.record);
}

/** Saved rate-limit buckets as stored: "event:message:savedAtMs". */
export function encodeBuckets(buckets: RateBuckets): string {
  return `${Math.floor(buckets.eventMilliTokens)}:${Math.floor(buckets.messageMilliTokens)}:${Math.floor(buckets.savedAtMs)}`;
}

/** Saved buckets as stored, or undefined when none (or unreadable). */
export function decodeBuckets(value: string | null): RateBuckets | undefined {
  if (value === null) return undefined;
  const [eventMilliTokens, messageMilliTokens, savedAtMs] = value.split(':').map(Number);
  if (!Number.isFinite(eventMilliTokens) || !Number.isFinite(messageMilliTokens) || !Number.isFinite(savedAtMs)) return undefined;
  return { eventMilliTokens: eventMilliTokens!, messageMilliTokens: messageMilliTokens!, savedAtMs: savedAtMs! };
}
