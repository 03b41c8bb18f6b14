/**
 * The shard's members as this client knows them (from `joined`, then each
 * presence change), told to the presence listeners (listeners.ts). Apart because three pieces
 * read it and none owns it: the sender resolves recipients against it, the
 * receiver only accepts mesh frames of members, and the mesh follows it.
 */
import type { ConnectedClient, MemberWire, PresenceChange, PresenceState } from '../../protocol/signaling.js';
import type { DispatchListeners } from './listeners.js';

/** The members of this client's shard (this client included), by client id, in join order. */
export class Membership {
  /** Read by the sender and the receiver on every event: a plain map, not copied. */
  readonly members = new Map<string, MemberWire>();
  readonly #listeners: DispatchListeners;
  /** The members here last told to the listeners of `here`, and their generation then (a listener added since must hear). */
  #lastHere: readonly MemberWire[] | null = null;
  #lastHereGeneration = -1;

  constructor(listeners: DispatchListeners) {
    this.#listeners = listeners;
  }

  /** Replaces the list (a `joined` answer carries the whole of it). */
  reset(members: readonly MemberWire[]): void {
    this.members.clear();
    for (const member of members) this.members.set(member.clientId, member);
  }

  /** Applies one change; returns the member it added or updated, or null for a removal. */
  apply(change: PresenceChange): MemberWire | null {
    if (change.op === 'remove') {
      this.members.delete(change.clientId);
      return null;
    }
    this.members.set(change.member.clientId, change.member);
    return change.op === 'update' ? change.member : null;
  }

  clear(): void {
    this.members.clear();
  }

  /** The members now, as the spec's ConnectedClient: every one, away members too. */
  get connectedClients(): ConnectedClient[] {
    return [...this.members.values()].map(toClient);
  }

  /** Sets this client's own state at once (the server's `update` confirms it a round trip later). */
  setOwnState(clientId: string, state: PresenceState): boolean {
    const own = this.members.get(clientId);
    if (!own || own.state === state) return false;
    this.members.set(clientId, { ...own, state });
    return true;
  }

  /**
   * Calls the presence listeners with the whole list (or the members here). A listener of the
   * members here is not called when its list is the same members, in the same state and with
   * the same info, as last time: a neighbour preloaded away, or an away member's user info,
   * changes nothing it shows.
   */
  notify(): void {
    const all = [...this.members.values()];
    // Each listener gets its own array (the spec's type is a plain array): one that sorts it cannot reorder the next one's.
    this.#listeners.presenceWithAway.notifyEach((callback) => callback(all.map(toClient)));
    const here = all.filter((member) => member.state !== 'away');
    const listeners = this.#listeners.presence;
    if (this.#lastHere !== null && this.#lastHereGeneration === listeners.generation && sameMembers(this.#lastHere, here)) return;
    this.#lastHere = here;
    this.#lastHereGeneration = listeners.generation;
    listeners.notifyEach((callback) => callback(here.map(toClient)));
  }
}

function sameMembers(a: readonly MemberWire[], b: readonly MemberWire[]): boolean {
  return a.length === b.length && a.every((member, i) => member === b[i]);
}

function toClient(member: MemberWire): ConnectedClient {
  // A server of an earlier version sends no state: its members are all here.
  return { clientId: member.clientId, userInfo: member.userInfo, userId: member.userId, connectedAt: member.connectedAt, state: member.state ?? 'here' };
}
