/**
 * The shard's members as this client knows them (from `joined`, then each
 * presence change), told to the presence listeners (listeners.ts). Apart because three pieces
 * read it and none owns it: the sender resolves recipients against it, the
 * receiver only accepts mesh frames of members, and the mesh follows it.
 */
import type { ConnectedClient, MemberWire, PresenceChange } from '../../protocol/signaling.js';
import type { ListenerList } from './listeners.js';
import type { ConnectedClientsChangedHandlerCallback } from './types.js';

/** The members of this client's shard (this client included), by client id, in join order. */
export class Membership {
  /** Read by the sender and the receiver on every event: a plain map, not copied. */
  readonly members = new Map<string, MemberWire>();
  readonly #listeners: ListenerList<ConnectedClientsChangedHandlerCallback>;

  constructor(listeners: ListenerList<ConnectedClientsChangedHandlerCallback>) {
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

  /** The members now, as the spec's ConnectedClient. */
  get connectedClients(): ConnectedClient[] {
    return [...this.members.values()].map(toClient);
  }

  /** Calls every presence listener with the whole list. */
  notify(): void {
    const clients = this.connectedClients;
    // Each listener gets its own array (the spec's type is a plain array): one that sorts it cannot reorder the next one's.
    this.#listeners.notifyEach((callback) => callback([...clients]));
  }
}

function toClient(member: MemberWire): ConnectedClient {
  return { clientId: member.clientId, userInfo: member.userInfo, userId: member.userId, connectedAt: member.connectedAt };
}
