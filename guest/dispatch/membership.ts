/**
 * The shard's members as this client knows them (from `joined`, then each
 * presence change) and the presence listeners. Apart because three pieces
 * read it and none owns it: the sender resolves recipients against it, the
 * receiver only accepts mesh frames of members, and the mesh follows it.
 */
import type { ConnectedClient, MemberWire, PresenceChange } from '../../protocol/signaling.js';
import type { ConnectedClientsChangedHandlerCallback } from './types.js';

/** The members of this client's shard (this client included), by client id, in join order. */
export class Membership {
  /** Read by the sender and the receiver on every event: a plain map, not copied. */
  readonly members = new Map<string, MemberWire>();
  readonly #listeners = new Set<ConnectedClientsChangedHandlerCallback>();

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

  /** Adds a presence listener. Returns the unsubscribe function. */
  listen(callback: ConnectedClientsChangedHandlerCallback): () => void {
    // Wrapped: the same callback added twice is two subscriptions.
    const entry: ConnectedClientsChangedHandlerCallback = (clients) => callback(clients);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Calls every presence listener with the whole list. */
  notify(): void {
    const clients = this.connectedClients;
    for (const callback of [...this.#listeners]) {
      try {
        // Each listener gets its own array (the spec's type is a plain array): one that sorts it cannot reorder the next one's.
        callback([...clients]);
      } catch (error) {
        console.error('platform-kit: a presence listener threw', error);
      }
    }
  }
}

function toClient(member: MemberWire): ConnectedClient {
  return { clientId: member.clientId, userInfo: member.userInfo, userId: member.userId, connectedAt: member.connectedAt };
}
