/**
 * This client's own presence state (`here` or `away`, ConnectedClient.state)
 * as the application (or the viewer-focus follower) wants it, and as the
 * server last heard it: a join carries it, and a change while connected goes
 * as one `focus` request, this client's own list changing at once (it knows
 * the other members already; the server's `update` confirms it). Apart from
 * the session, which only says when it joins and when it is connected.
 */
import { isPlatformError, type PlatformError } from '../../protocol/errors.js';
import type { PresenceState } from '../../protocol/signaling.js';
import type { Membership } from './membership.js';

/** What the own presence needs of its session. */
export interface OwnPresenceHost {
  readonly membership: Membership;
  /** This client's id once joined. */
  clientId(): string | undefined;
  /** Whether it watches (a spectator has no state: it is in no list). */
  spectator(): boolean;
  /** Whether the session is connected now. */
  connected(): boolean;
  /** Sends the `focus` request. */
  send(state: PresenceState): Promise<unknown>;
  emitError(error: PlatformError): void;
}

/** See the module comment. */
export class OwnPresence {
  #wanted: PresenceState = 'here';
  /** What the server has (its last join or focus frame). */
  #server: PresenceState = 'here';
  readonly #host: OwnPresenceHost;

  constructor(host: OwnPresenceHost) {
    this.#host = host;
  }

  get state(): PresenceState {
    return this.#wanted;
  }

  /** A new state: told to the server now when connected, else with the next join. */
  set(state: PresenceState): void {
    if (state === this.#wanted) return;
    this.#wanted = state;
    if (this.#host.connected()) this.flush();
  }

  /** A join leaves with this state: the server will have it. */
  joining(): PresenceState {
    this.#server = this.#wanted;
    return this.#wanted;
  }

  /** Tells the server the wanted state when it has another one (the viewer looked while the join was on its way). */
  flush(): void {
    const host = this.#host;
    const self = host.clientId();
    const state = this.#wanted;
    if (self === undefined || host.spectator() || state === this.#server) return;
    this.#server = state;
    if (host.membership.setOwnState(self, state)) host.membership.notify();
    // No answer awaited: a lost one changes nothing, and the next join carries the state anyway.
    host.send(state).catch((error: unknown) => {
      if (isPlatformError(error) && error.code !== 'NOT_CONNECTED') host.emitError(error);
    });
  }
}
