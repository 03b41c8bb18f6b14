/**
 * What the signaling wire says about members and shards: an event payload, a
 * member as every member sees it ({@link ConnectedClient}, {@link MemberWire})
 * and a shard as `info` lists it.
 */
import type { PlainData } from './data.js';

/** An event payload: a plain object of JSON values. */
export type EventPayload = { [key: string]: PlainData };

/**
 * One member of a shard as every member sees it. `userId` is set only by the
 * server, from a verified user token; `userInfo` is what the client set.
 */
export interface ConnectedClient {
  /** Id the server gave the client; stable across reconnections within the grace period. */
  readonly clientId: string;
  /** What the client set with `setUserInfo` (JSON, at most 4 KB); `{}` when nothing. */
  readonly userInfo: EventPayload;
  /** Verified user id from an identity token, or null while unidentified. */
  readonly userId: string | null;
  /** When the client joined (server clock, ms since the epoch). */
  readonly connectedAt: number;
  /**
   * `'here'`: the member's template is in front of its viewer (in focus in a feed, a visible
   * page). `'away'`: connected and ready but not looked at (preloaded in a feed, scrolled past,
   * a hidden tab). Set by the member's own client, never by another one. Beyond the spec (its
   * fields are "not shown"): `onConnectedClientsChanged` lists only members `here` unless asked.
   */
  readonly state: PresenceState;
}

/** Whether a member is looked at: see {@link ConnectedClient.state}. */
export type PresenceState = 'here' | 'away';

/** Guard for {@link PresenceState}. */
export const isPresenceState = (value: unknown): value is PresenceState => value === 'here' || value === 'away';

/** A member on the wire: {@link ConnectedClient} plus its peer id (browser members only) for the mesh. */
export interface MemberWire extends ConnectedClient {
  /** Peer id for WebRTC (peerjs), or null for backend clients. */
  readonly peerId: string | null;
}

/** One active shard of a project. */
export interface ShardInfo {
  readonly shardName: string;
  readonly numConnectedClients: number;
}
