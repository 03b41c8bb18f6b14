/**
 * The receiving side of events, whichever path brought them: per-sender
 * order by `seq`/`prev`, duplicates dropped, and the listeners of `on`.
 * Apart from the sender because nothing is shared between the two
 * directions but the clock; the mesh's acknowledgements are the peer
 * transport's (peer-link.ts), this only tells it which seq a frame carried.
 *
 * Order, written down: every event carries its sender's seq; a receiver
 * drops a seq it has delivered, and holds a mesh frame back until the event
 * sent before it to this receiver (its `prev`) was delivered, or for at most
 * {@link HOLD_MS} when that one never comes (its channel died with it).
 */
import { PlatformError } from '../../protocol/errors.js';
import { parsePeerFrame, type EventPayload, type MemberWire } from '../../protocol/signaling.js';
import type { ServerClock } from './clock.js';
import type { DispatchMessageMetadata, MessageHandlerCallback } from './types.js';

/** A mesh frame held back until the event sent before it (its `prev`) was delivered. */
interface HeldEvent {
  readonly seq: number;
  readonly prev: number;
  readonly userId: string | null;
  readonly name: string;
  readonly payload: EventPayload;
  readonly ts: number;
}

/** What this client has of one sender. */
interface Inbound {
  last: number;
  held: HeldEvent[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** A mesh frame whose predecessor never comes (its channel died with it) is delivered after this. */
const HOLD_MS = 3_000;

/** Orders, dedupes and hands events to their listeners. */
export class EventReceiver {
  readonly #clock: ServerClock;
  /**
   * Listeners per event name, copy-on-write: `on` and unsubscribing replace the array, so a
   * delivery walks the array it found without copying it, and a listener added or removed
   * meanwhile takes effect from the next event.
   */
  readonly #listeners = new Map<string, readonly MessageHandlerCallback[]>();
  readonly #inbound = new Map<string, Inbound>();

  constructor(clock: ServerClock) {
    this.#clock = clock;
  }

  /** Listens to an event. Returns the unsubscribe function. */
  on(eventName: string, callback: MessageHandlerCallback): () => void {
    if (typeof callback !== 'function') throw new PlatformError('INVALID_ARGUMENT', 'on() needs a callback');
    this.#listeners.set(eventName, [...(this.#listeners.get(eventName) ?? []), callback]);
    let subscribed = true;
    return () => {
      // Once: a callback added twice is two subscriptions, and each unsubscribe removes one.
      if (!subscribed) return;
      subscribed = false;
      const current = this.#listeners.get(eventName) ?? [];
      const index = current.indexOf(callback);
      if (index < 0) return;
      const rest = [...current.slice(0, index), ...current.slice(index + 1)];
      if (rest.length > 0) this.#listeners.set(eventName, rest);
      else this.#listeners.delete(eventName);
    };
  }

  /** A frame from the data channel of `member` (undefined: not a member). Returns the frame's seq for the transport to acknowledge, or 0 when it was not a valid event of a member. */
  onPeerFrame(clientId: string, member: MemberWire | undefined, text: string): number {
    const frame = parsePeerFrame(text);
    if (!frame || !member) return 0;
    this.deliver(clientId, member.userId, frame.seq, frame.prev, frame.name, frame.payload, frame.ts);
    return frame.seq;
  }

  /** An event of `from` (relayed: `prev` null; by the mesh: the seq sent to us before it). */
  deliver(from: string, userId: string | null, seq: number, prev: number | null, name: string, payload: EventPayload, ts: number): void {
    let inbound = this.#inbound.get(from);
    if (!inbound) this.#inbound.set(from, (inbound = { last: 0, held: [], timer: undefined }));
    if (seq <= inbound.last) return; // a duplicate
    const held = inbound.held;
    if (held.length > 0) {
      for (const item of held) if (item.seq === seq) return; // a duplicate of one held back
    }
    if (prev !== null && prev > inbound.last) {
      // The event sent before this one is still on its way by the relay: hold this one back.
      held.push({ seq, prev, userId, name, payload, ts });
      held.sort((a, b) => a.seq - b.seq);
      const state = inbound;
      state.timer ??= setTimeout(() => this.#releaseHeld(from, state, true), HOLD_MS);
      return;
    }
    inbound.last = seq;
    this.dispatch(from, userId, name, payload, ts);
    if (held.length > 0) this.#releaseHeld(from, inbound, false);
  }

  /**
   * Calls the event's listeners, with no ordering (the caller has done it). latencyMs is taken
   * now: for an event held back, when it is let go.
   */
  dispatch(from: string, userId: string | null, name: string, payload: EventPayload, ts: number): void {
    const listeners = this.#listeners.get(name);
    if (listeners === undefined) return;
    // One metadata object per event, shared by its listeners as the payload is (both are theirs to read).
    this.#call(listeners, payload, { latencyMs: Math.max(0, this.#clock.serverNow() - ts), clientId: from, userId });
  }

  /** An event of the shard's history (`connect({ history })`): no order to keep, marked `replayed`. */
  replay(from: string, userId: string | null, name: string, payload: EventPayload, ts: number): void {
    const listeners = this.#listeners.get(name);
    if (listeners === undefined) return;
    this.#call(listeners, payload, { latencyMs: Math.max(0, this.#clock.serverNow() - ts), clientId: from, userId, replayed: true });
  }

  /**
   * An event this client sent to itself (event-sender.ts): no order to keep (it is this client's),
   * `latencyMs` 0, and the payload parsed from the text that left, as a remote listener gets it
   * (a copy: the object given to emitEvent stays the caller's).
   */
  dispatchOwn(self: string, userId: string | null, name: string, payloadJson: string): void {
    const listeners = this.#listeners.get(name);
    if (listeners === undefined) return;
    this.#call(listeners, JSON.parse(payloadJson) as EventPayload, { latencyMs: 0, clientId: self, userId });
  }

  #call(listeners: readonly MessageHandlerCallback[], payload: EventPayload, metadata: DispatchMessageMetadata): void {
    for (const callback of listeners) {
      try {
        callback(payload, metadata);
      } catch (error) {
        // One listener's bug must not stop the others or the stream.
        console.error('platform-kit: an event listener threw', error);
      }
    }
  }

  /** Forgets every sender and what is held back of them (the session is torn down). */
  clear(): void {
    for (const inbound of this.#inbound.values()) clearTimeout(inbound.timer);
    this.#inbound.clear();
  }

  #releaseHeld(from: string, inbound: Inbound, force: boolean): void {
    if (force) inbound.timer = undefined;
    while (inbound.held.length > 0) {
      const next = inbound.held[0]!;
      if (!force && next.prev > inbound.last) break;
      inbound.held.shift();
      if (next.seq <= inbound.last) continue;
      inbound.last = next.seq;
      this.dispatch(from, next.userId, next.name, next.payload, next.ts);
    }
    if (inbound.held.length === 0 && inbound.timer !== undefined) {
      clearTimeout(inbound.timer);
      inbound.timer = undefined;
    }
  }
}
