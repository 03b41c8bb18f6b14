/**
 * The listeners of a Dispatch client, in one registry used by all three entry
 * points: the session (session.ts) notifies them, and the browser client
 * (dispatch.ts) and the backend client (signaling/backend-dispatch.ts) make one
 * before anything else and hand it to their session. A listener added before
 * `connect()` is therefore simply in the registry: nothing is buffered and
 * attached later.
 *
 * Every notification walks the list it found (copy-on-write: adding or removing
 * a listener during a notification takes effect from the next one), and a
 * listener that throws is logged and does not stop the others or the stream.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { ConnectedClientsChangedHandlerCallback, DispatchErrorCallback, MessageHandlerCallback, SeatAvailableCallback, SpectatorsChangedCallback } from './types.js';

/** Any listener: its arguments are the registry's, it returns nothing the registry reads. */
type Listener = (...args: never[]) => void;

/** The listeners of one kind, in the order they were added. */
export class ListenerList<L extends Listener> {
  /** What a listener of this list is, for the log line when one throws ("an error listener"). */
  readonly #what: string;
  /** Replaced, never changed in place: a notification walks the array it found. */
  #listeners: readonly L[] = [];
  /** Counts additions: a notifier that skips unchanged news (membership.ts) must still tell a new listener. */
  #generation = 0;

  constructor(what: string) {
    this.#what = what;
  }

  /**
   * Adds a listener; returns the function that removes it. The same callback added twice is two
   * subscriptions, and each returned function removes one of them, once.
   */
  add(listener: L): () => void {
    if (typeof listener !== 'function') throw new PlatformError('INVALID_ARGUMENT', `${this.#what} must be a function`);
    this.#listeners = [...this.#listeners, listener];
    this.#generation++;
    let added = true;
    return () => {
      if (!added) return;
      added = false;
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners = [...this.#listeners.slice(0, index), ...this.#listeners.slice(index + 1)];
    };
  }

  /** Grows with every listener added. */
  get generation(): number {
    return this.#generation;
  }

  /** How many listeners there are. */
  get size(): number {
    return this.#listeners.length;
  }

  /** Calls every listener with the same arguments. */
  notify(...args: Parameters<L>): void {
    for (const listener of this.#listeners) {
      try {
        listener(...args);
      } catch (error) {
        // One listener's bug must not stop the others or the stream.
        console.error(`platform-kit: ${this.#what} threw`, error);
      }
    }
  }

  /** Calls every listener through `call`: for arguments each listener must have its own copy of. */
  notifyEach(call: (listener: L) => void): void {
    for (const listener of this.#listeners) {
      try {
        call(listener);
      } catch (error) {
        console.error(`platform-kit: ${this.#what} threw`, error);
      }
    }
  }
}

/** Lists by a name (the event listeners of `on`, by event name); a name with no listener left is forgotten. */
export class NamedListenerLists<L extends Listener> {
  readonly #what: string;
  readonly #lists = new Map<string, ListenerList<L>>();

  constructor(what: string) {
    this.#what = what;
  }

  /** Adds a listener of `name`; returns the function that removes it (see {@link ListenerList.add}). */
  add(name: string, listener: L): () => void {
    let list = this.#lists.get(name);
    if (list === undefined) {
      list = new ListenerList<L>(this.#what);
      this.#lists.set(name, list);
    }
    const remove = list.add(listener);
    const owner = list;
    return () => {
      remove();
      // Only the list still registered: a name emptied and added again has a new one.
      if (owner.size === 0 && this.#lists.get(name) === owner) this.#lists.delete(name);
    };
  }

  /** The listeners of `name`, or undefined when it has none (the hot path checks this before building arguments). */
  get(name: string): ListenerList<L> | undefined {
    return this.#lists.get(name);
  }
}

/** Every listener of one Dispatch client. */
export class DispatchListeners {
  /** `on(eventName, callback)`. */
  readonly events = new NamedListenerLists<MessageHandlerCallback>('an event listener');
  /** `onConnectedClientsChanged`: the members here. */
  readonly presence = new ListenerList<ConnectedClientsChangedHandlerCallback>('a presence listener');
  /** `onConnectedClientsChanged(callback, { includeAway: true })`: every member, here or away. */
  readonly presenceWithAway = new ListenerList<ConnectedClientsChangedHandlerCallback>('a presence listener');
  /** `onSpectatorsChanged`: how many watch. */
  readonly spectators = new ListenerList<SpectatorsChangedCallback>('a spectator listener');
  /** `onSeatAvailable`: a seat may be free for this spectator. */
  readonly seats = new ListenerList<SeatAvailableCallback>('a seat listener');
  /** `onError`: errors no promise carries. */
  readonly errors = new ListenerList<DispatchErrorCallback>('an error listener');

  /** Adds a presence listener to the list its options choose; returns the function that removes it. */
  addPresence(callback: ConnectedClientsChangedHandlerCallback, options: PresenceListenerOptions = {}): () => void {
    return options.includeAway === true ? this.presenceWithAway.add(callback) : this.presence.add(callback);
  }
}

/** Options of a presence listener (`onConnectedClientsChanged`'s second argument). */
export interface PresenceListenerOptions {
  /**
   * Also list members that are `away` (connected but not looked at: preloaded in a feed,
   * scrolled past, a hidden tab). Default false: only members `here`.
   */
  readonly includeAway?: boolean;
}
