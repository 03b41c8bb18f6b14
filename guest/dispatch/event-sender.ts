/**
 * The sending side of events: `emitEvent`'s checks (name, payload, recipients),
 * this client's own rate limit, the queue of events waiting for the
 * connection, and the choice of path per recipient (the mesh when its channel
 * is open, the relay otherwise) with the `prev` that keeps each receiver's
 * order across the two. Apart from the session because it is the hot path:
 * what it reads per event is here, and the session only tells it when the
 * connection comes and goes.
 *
 * Delivery, written down: to the listed recipients (client ids or verified
 * user ids), or to every member. The sender hears its own event when it is
 * one of them: a broadcast (unless `receiveOwnBroadcasts` is false), or a
 * list that names its client id or its verified user id. It hears it from
 * here, not from the network: once, when the event leaves (the server never
 * sends a sender its own event), after `emitEvent` returned, with
 * `latencyMs` 0. "Every member" means every member the sender knows of when
 * it sends (its presence list; a broadcast that goes wholly by the relay also
 * reaches any member the server has by then): a member whose join has not
 * reached the sender yet (presence is some milliseconds on its way) may miss
 * events sent meanwhile. The mesh cannot do better without sending every
 * event through the server too; apps hand newcomers the state from
 * onConnectedClientsChanged, which fires once the sender knows them.
 *
 * Offline: while the control socket is down (reconnecting), events wait in a
 * bounded queue (`maxQueuedEvents`, `QUEUE_FULL` beyond it) and leave exactly
 * once, in order, when the client is back; `emitEvent` resolves at once.
 *
 * While `connect()` is in progress: from the call until it settles,
 * events wait the same way, at most {@link MAX_EVENTS_BEFORE_CONNECTED}
 * (`QUEUE_FULL` beyond), and `emitEvent` settles with them: it resolves when
 * the event leaves, and rejects with the connection's error (its code) when
 * `connect()` fails. With no `connect()` in progress (never called, failed,
 * or after `disconnect()`) `emitEvent` rejects `NOT_CONNECTED` at once: a
 * promise that might never settle would hide a forgotten `connect()`, and
 * `connect(); emitEvent(…)` needs no await between them.
 */
import { plainDataJson } from '../../protocol/data.js';
import { isPlatformError, PlatformError } from '../../protocol/errors.js';
import { DEFAULT_MAX_EVENTS_PER_SECOND, eventFrameBody, isEventName, MAX_RECIPIENTS, preciseNow, type EventPayload, type WireLimits } from '../../protocol/signaling.js';
import type { ServerClock } from './clock.js';
import type { Membership } from './membership.js';
import { RelayTransport } from './relay-transport.js';
import { TokenBucket } from './token-bucket.js';
import type { PeerTransport } from './transport.js';
import type { SessionState } from './types.js';

/** What the sender reads of the session, when it needs it. */
export interface SenderHost {
  readonly state: SessionState;
  /** The shard's limits (the defaults until `joined` brings the server's). */
  readonly limits: WireLimits;
  /** This client's id once joined. */
  readonly clientId: string | undefined;
  /** This client's verified user id, or null. */
  readonly userId: string | null;
  /** An event this client sent to itself left: call its listeners (see the header). */
  deliverOwn(name: string, payloadJson: string): void;
}

/** Events `emitEvent` keeps while `connect()` is in progress, before `QUEUE_FULL` (each within the payload limit: at most 4 MiB by default). */
export const MAX_EVENTS_BEFORE_CONNECTED = 64;

/** The promise of an event emitted while connecting, settled when it leaves or the connection fails. */
interface Waiter {
  resolve(): void;
  reject(error: PlatformError): void;
}

/** An event waiting for the connection: its payload already checked and serialized. */
interface QueuedEvent {
  readonly name: string;
  readonly payloadJson: string;
  readonly recipients: readonly string[] | null;
  /**
   * When it was emitted, on this client's clock: the offset to the server's is added when it
   * leaves (before the first join there is none yet), so `latencyMs` counts the wait too.
   */
  readonly at: number;
  readonly waiter: Waiter | null;
}

/**
 * What `emitEvent` returns once an event is sent or queued: one settled
 * promise for every call, not one per event (the hot path allocates as
 * little as it can).
 */
const SENT: Promise<void> = Promise.resolve();

/** Checks, queues and sends this client's events. */
export class EventSender {
  readonly #host: SenderHost;
  readonly #clock: ServerClock;
  readonly #membership: Membership;
  readonly #maxQueuedEvents: number;
  readonly #receiveOwnBroadcasts: boolean;
  /** The mesh, while there is one (the session starts and replaces it). */
  peer: PeerTransport | null = null;
  #relay: RelayTransport | null = null;
  /** The relay of the connection that dropped: its kept frames go again once the client is back. */
  #relayOld: RelayTransport | null = null;
  #seq = 0;
  /** The seq of the event last sent to each member, by either path: the next one's `prev`. */
  readonly #lastSentTo = new Map<string, number>();
  readonly #queue: QueuedEvent[] = [];
  /** The last event name that passed `isEventName` (most apps emit a few names over and over); null before the first. */
  #checkedEventName: string | null = null;
  /** This client's own events: `maxEventsPerSecond`, bursts of twice that (as the server counts). */
  readonly #eventBucket = new TokenBucket(DEFAULT_MAX_EVENTS_PER_SECOND * 2);

  constructor(host: SenderHost, clock: ServerClock, membership: Membership, options: { readonly maxQueuedEvents: number; readonly receiveOwnBroadcasts: boolean }) {
    this.#host = host;
    this.#clock = clock;
    this.#membership = membership;
    this.#maxQueuedEvents = options.maxQueuedEvents;
    this.#receiveOwnBroadcasts = options.receiveOwnBroadcasts;
  }

  /** `emitEvent`: to `recipients` (client ids or user ids) or to every member (see the header for the sender itself). */
  emit(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    try {
      if (eventName !== this.#checkedEventName) {
        if (!isEventName(eventName)) {
          throw new PlatformError('INVALID_NAME', 'an event name is 1 to 64 of A-Z a-z 0-9 _ . : / -, starting with a letter or digit, not "platform:…"');
        }
        this.#checkedEventName = eventName;
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new PlatformError('INVALID_ARGUMENT', 'the payload must be a plain object');
      }
      const limits = this.#host.limits;
      // Checked and serialized once: this text is what every path sends (and what waits in the
      // offline queue, so a payload changed after emitEvent returned is not what goes out).
      let payloadJson: string;
      try {
        payloadJson = plainDataJson(payload, limits.maxPayloadBytes);
      } catch (error) {
        if (isPlatformError(error) && error.code === 'VALUE_TOO_LARGE') throw new PlatformError('PAYLOAD_TOO_LARGE', error.message);
        throw error;
      }
      const list = recipients === undefined ? null : typeof recipients === 'string' ? [recipients] : [...recipients];
      if (list && (list.length > MAX_RECIPIENTS || !list.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 256))) {
        throw new PlatformError('INVALID_ARGUMENT', `recipients are 0 to ${MAX_RECIPIENTS} client ids or user ids`);
      }
      const state = this.#host.state;
      if (state === 'idle' || state === 'closed') throw new PlatformError('NOT_CONNECTED', 'connect() first');
      // One clock read for both: the rate limit's refill and the send time.
      const now = preciseNow();
      if (!this.#eventBucket.take(now, limits.maxEventsPerSecond, limits.maxEventsPerSecond * 2)) {
        throw new PlatformError('RATE_LIMITED', `more than ${limits.maxEventsPerSecond} events per second`);
      }
      if (state !== 'connected') return this.#enqueue(eventName, payloadJson, list, now + this.#clock.skew, state === 'connecting');
      // Send time on the server-synced clock (serverNow() at `now`): receivers subtract it from theirs.
      this.#send(eventName, payloadJson, list, now + this.#clock.skew + this.#clock.offset);
      return SENT;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The client joined: events go by a new relay on the socket (`write`). When it resumed its id,
   * `resumedLastSeq` is the last seq the server has of it, and the old relay sends what came after.
   */
  useRelay(write: (text: string) => boolean, resumedLastSeq: number | null): void {
    this.#relay = new RelayTransport(write);
    if (resumedLastSeq !== null) this.#relayOld?.resendAfter(resumedLastSeq);
    this.#relayOld?.close();
    this.#relayOld = null;
  }

  /** Events queued while offline leave now, once, in order. */
  flushQueue(): void {
    const offset = this.#clock.offset;
    for (const item of this.#queue.splice(0)) {
      this.#send(item.name, item.payloadJson, item.recipients, item.at + offset);
      item.waiter?.resolve();
    }
  }

  /**
   * `connect()` failed (or `disconnect()` came first): the events emitted while it was in progress
   * reject with `error` and are dropped. Those queued while reconnecting, whose promises have
   * resolved, stay for the next connection.
   */
  failWaiting(error: PlatformError): void {
    if (!this.#queue.some((item) => item.waiter !== null)) return;
    const kept = this.#queue.filter((item) => item.waiter === null);
    const failed = this.#queue.filter((item) => item.waiter !== null);
    this.#queue.length = 0;
    this.#queue.push(...kept);
    for (const item of failed) item.waiter!.reject(error);
  }

  /** The socket dropped: the relay's kept frames wait for the next connection (see useRelay). */
  suspend(): void {
    this.#relayOld = this.#relay ?? this.#relayOld;
    this.#relay = null;
  }

  /** Back with a new client id: receivers keep order per id, so no `prev` carries over. */
  forgetOrder(): void {
    this.#lastSentTo.clear();
  }

  /**
   * Events a dead data channel took and did not deliver, to the one member
   * behind it: by the relay, in order. While reconnecting they wait in the old
   * relay's kept frames and leave with its resend.
   */
  resendByRelay(clientId: string, seqs: readonly number[], bodies: readonly string[]): void {
    const relay = this.#relay ?? (this.#host.state === 'reconnecting' ? this.#relayOld : null);
    if (!relay) return;
    for (let i = 0; i < seqs.length; i++) relay.resend(seqs[i]!, bodies[i]!, clientId);
  }

  /** Ends the paths (the mesh, both relays); the queue stays (see clearQueue). */
  close(): void {
    this.peer?.close();
    this.peer = null;
    this.#relay?.close();
    this.#relay = null;
    this.#relayOld?.close();
    this.#relayOld = null;
    this.#lastSentTo.clear();
  }

  /** Drops the events waiting for the connection (disconnect); those emitted while connecting reject with `error`. */
  clearQueue(error: PlatformError): void {
    this.failWaiting(error);
    if (this.#queue.length > 0) this.#queue.length = 0;
  }

  /** Queues an event until the connection; `connecting`: while `connect()` is in progress (see the header). */
  #enqueue(name: string, payloadJson: string, recipients: readonly string[] | null, at: number, connecting: boolean): Promise<void> {
    const limit = connecting ? Math.min(MAX_EVENTS_BEFORE_CONNECTED, this.#maxQueuedEvents) : this.#maxQueuedEvents;
    if (this.#queue.length >= limit) {
      throw new PlatformError('QUEUE_FULL', `${this.#queue.length} events already wait for the connection; this one was not sent`);
    }
    if (!connecting) {
      this.#queue.push({ name, payloadJson, recipients, at, waiter: null });
      return SENT;
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ name, payloadJson, recipients, at, waiter: { resolve, reject } });
    });
  }

  /** Whether the sender is among the recipients of its own event (see the header). */
  #toSelf(recipients: readonly string[] | null): boolean {
    if (recipients === null) return this.#receiveOwnBroadcasts;
    const self = this.#host.clientId;
    const userId = this.#host.userId;
    return (self !== undefined && recipients.includes(self)) || (userId !== null && recipients.includes(userId));
  }

  #send(name: string, payloadJson: string, recipients: readonly string[] | null, ts: number): void {
    const relay = this.#relay;
    if (!relay) return;
    const seq = ++this.#seq;
    if (this.#toSelf(recipients)) this.#host.deliverOwn(name, payloadJson);
    // Serialized once for every path and recipient; each path only wraps it.
    const body = eventFrameBody(seq, name, payloadJson, ts);
    const peer = this.peer;
    if (!peer) {
      relay.send(seq, body, recipients);
      return;
    }
    // Resolve recipients against presence: the mesh takes whom it reaches, the relay the rest.
    const lastSentTo = this.#lastSentTo;
    const self = this.#host.clientId;
    let direct = 0;
    let relayed: string[] | null = null;
    const unresolved = recipients ? new Set(recipients) : null;
    for (const member of this.#membership.members.values()) {
      const clientId = member.clientId;
      if (clientId === self) continue;
      if (recipients) {
        const named = recipients.includes(clientId) || (member.userId !== null && recipients.includes(member.userId));
        if (!named) continue;
        unresolved?.delete(clientId);
        if (member.userId !== null) unresolved?.delete(member.userId);
      }
      // `prev` is the event sent to this member before, by either path: read before it moves on.
      if (peer.sendTo(clientId, seq, lastSentTo.get(clientId) ?? 0, body)) direct++;
      else (relayed ??= []).push(clientId);
      lastSentTo.set(clientId, seq);
    }
    if (!recipients && direct === 0) relay.send(seq, body, null);
    else if (relayed !== null || (unresolved && unresolved.size > 0)) relay.send(seq, body, [...(relayed ?? []), ...(unresolved ?? [])]);
  }
}
