/**
 * One pair of the mesh as the sending and the receiving side see it: the data
 * channel, what was sent on it and is not acknowledged yet, the
 * acknowledgements owed for what came, and the door every incoming frame
 * passes. Apart from the mesh (peer-transport.ts), which decides which pairs
 * exist and when one fails; this is what one pair does per frame.
 *
 * - Nothing in flight is lost: a receiver acknowledges the frames of each
 *   channel (every {@link ACK_EVERY} frames, or {@link ACK_DELAY_MS} after the
 *   first one not yet acknowledged), and the sender keeps each frame until it
 *   is. When a channel dies, or the pair leaves the mesh while the member
 *   stays, the frames still open go to the session, which resends them by the
 *   relay to that member (receivers drop the ones they had, by seq). A
 *   receiver that does not acknowledge {@link MAX_UNACKED_FRAMES} frames (or
 *   {@link MAX_UNACKED_CHARS} characters of them) loses the pair the same way:
 *   what it holds up is bounded.
 * - A guard at the door of each channel: the server never sees mesh traffic,
 *   so the receiver holds each peer to the shard's limits itself. Every frame
 *   takes a token from a bucket twice as generous as the sender's own (burst
 *   4× and refill 2× `maxEventsPerSecond`, so network bunching of an honest
 *   stream never trips it), and a frame over the payload limit plus the
 *   envelope is refused. A channel that breaks either rule is closed and the
 *   pair moves to the relay, where the server polices it; the application
 *   hears `RATE_LIMITED` or `PAYLOAD_TOO_LARGE` on its error listeners. The
 *   refused frame is not acknowledged, so an honest sender resends it by the
 *   relay. Frames of an unknown type are ignored (a newer peer may send
 *   some), but they pay their token too.
 */
import type { DataConnection } from 'peerjs';
import { PlatformError } from '../../protocol/errors.js';
import { FRAME_ENVELOPE_BYTES, peerAckFrame, peerEventFrame } from '../../protocol/signaling.js';
import { TokenBucket } from './token-bucket.js';
import type { PeerTransportInit } from './transport.js';

/** A receiver acknowledges after this many frames of a channel… */
const ACK_EVERY = 32;
/** …or this long after the first frame not yet acknowledged, whichever comes first. */
const ACK_DELAY_MS = 50;
/**
 * Unacknowledged frames (or characters of them) a sender keeps for one pair before it gives the
 * pair up. A live receiver owes at most about ACK_DELAY_MS of frames plus a round trip; 128 is
 * over a second of the default 100 events/s, and well within the server's default burst of 200
 * relayed events, so their resend is not refused.
 */
const MAX_UNACKED_FRAMES = 128;
const MAX_UNACKED_CHARS = 4 * 1024 * 1024;
/** The door's bucket, in multiples of `maxEventsPerSecond`: its size, and its refill per second. */
const INBOUND_BURST = 4;
const INBOUND_REFILL = 2;
/** peerjs's `DataConnection.MAX_BUFFERED_AMOUNT` (protected): above it, peerjs holds frames back itself. */
const PEERJS_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** The browser's own send: peerjs's webrtc-adapter wraps each channel's `send` in a size check that reads two more native properties per frame. */
function sendOnChannel(channel: RTCDataChannel, text: string): void {
  (RTCDataChannel.prototype.send as (this: RTCDataChannel, data: string) => void).call(channel, text);
}

/** One pair of the mesh. */
export class PeerLink {
  readonly clientId: string;
  readonly peerId: string;
  state: 'connecting' | 'open' | 'failed' = 'connecting';
  connection: DataConnection | null = null;
  /** The connection's data channel once open: events go on it directly (see send). */
  channel: RTCDataChannel | null = null;
  /** The pair's open timeout. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Events sent on the channel and not acknowledged yet, oldest first: seqs and bodies in step. */
  #sentSeqs: number[] = [];
  #sentBodies: string[] = [];
  /** Characters of `#sentBodies`. */
  #sentChars = 0;
  /** Highest seq received on the channel; `#ackOwed` frames of it not acknowledged yet. */
  receivedSeq = 0;
  #ackOwed = 0;
  #ackTimer: ReturnType<typeof setTimeout> | undefined;
  /** An acknowledgement is queued as a microtask (see received). */
  #ackQueued = false;
  /** The door's bucket for frames from this peer (see the header). */
  readonly #inbound: TokenBucket;
  readonly #fail: (link: PeerLink) => void;

  /** `fail` gives the pair up (the mesh's decision: hand over what is unacknowledged, close). */
  constructor(clientId: string, peerId: string, maxEventsPerSecond: number, fail: (link: PeerLink) => void) {
    this.clientId = clientId;
    this.peerId = peerId;
    this.#inbound = new TokenBucket(maxEventsPerSecond * INBOUND_BURST, performance.now());
    this.#fail = fail;
  }

  /** Sends a state frame (peer-frames.ts `peerStateFrame`) when the channel is open and not backed up; false when it did not go. */
  sendState(text: string): boolean {
    const channel = this.channel;
    if (this.state !== 'open' || !channel || channel.readyState !== 'open' || channel.bufferedAmount > PEERJS_MAX_BUFFERED_BYTES / 8) return false;
    try {
      sendOnChannel(channel, text);
      return true;
    } catch {
      // Closing under our feet: the server relays the update anyway.
      return false;
    }
  }

  /** Sends one event when the channel is open, and keeps it until acknowledged; false when it did not go. */
  send(seq: number, prev: number, body: string): boolean {
    const connection = this.connection;
    const channel = this.channel;
    if (this.state !== 'open' || !connection || !channel) return false;
    // The body is serialized once per event; each channel gets its own `prev` in front.
    const text = peerEventFrame(prev, body);
    // Straight onto the channel, which is what peerjs's send (serialization 'raw') does when it
    // holds nothing back, minus its three calls. When it does hold frames back (the channel's
    // buffer was over its limit), this one queues behind them through peerjs, in order.
    if (((connection as { readonly bufferSize?: number }).bufferSize ?? 0) === 0 && channel.bufferedAmount <= PEERJS_MAX_BUFFERED_BYTES) {
      try {
        // The browser checks the size itself (a TypeError, caught below).
        sendOnChannel(channel, text);
      } catch {
        // A channel that is closing ends this pair; either way the session relays this event
        // (its `prev` keeps the receiver's order across the two paths).
        if (channel.readyState !== 'open') this.#fail(this);
        return false;
      }
    } else {
      void connection.send(text);
    }
    // Kept until the receiver acknowledges it (see the header).
    this.#sentSeqs.push(seq);
    this.#sentBodies.push(body);
    this.#sentChars += body.length;
    if (this.#sentSeqs.length > MAX_UNACKED_FRAMES || this.#sentChars > MAX_UNACKED_CHARS) this.#fail(this);
    return true;
  }

  /** The events not acknowledged yet, no longer kept here (they go by the relay now); null for none. */
  takeUnacknowledged(): { seqs: number[]; bodies: string[] } | null {
    if (this.#sentSeqs.length === 0) return null;
    const taken = { seqs: this.#sentSeqs, bodies: this.#sentBodies };
    this.#sentSeqs = [];
    this.#sentBodies = [];
    this.#sentChars = 0;
    return taken;
  }

  /** The door (see the header): null when the frame may pass, else why it may not. */
  refusal(data: unknown, init: PeerTransportInit): PlatformError | null {
    const rate = init.maxEventsPerSecond;
    if (!this.#inbound.take(performance.now(), rate * INBOUND_REFILL, rate * INBOUND_BURST)) {
      return new PlatformError(
        'RATE_LIMITED',
        `member ${this.clientId} sent more than ${rate} events per second on its data channel; its events go through the server from now on`,
      );
    }
    if ((typeof data === 'string' ? data.length : data instanceof ArrayBuffer ? data.byteLength : 0) > init.maxPayloadBytes + FRAME_ENVELOPE_BYTES) {
      // UTF-16 units of a string are never more than its UTF-8 bytes: an honest frame always fits.
      return new PlatformError(
        'PAYLOAD_TOO_LARGE',
        `member ${this.clientId} sent a frame over ${init.maxPayloadBytes} bytes on its data channel; its events go through the server from now on`,
      );
    }
    return null;
  }

  /** The member has every frame of this channel up to `seq`. */
  acknowledged(seq: number): void {
    const seqs = this.#sentSeqs;
    let count = 0;
    while (count < seqs.length && seqs[count]! <= seq) count++;
    if (count === 0) return;
    for (let i = 0; i < count; i++) this.#sentChars -= this.#sentBodies[i]!.length;
    seqs.splice(0, count);
    this.#sentBodies.splice(0, count);
  }

  /**
   * A frame of `seq` came on the channel: acknowledged in a batch, or after a short while. A
   * batch's acknowledgement waits for a microtask: it leaves after the event's listeners and
   * whatever they queued, so its cost is not added to the delivery the application sees.
   */
  received(seq: number): void {
    this.receivedSeq = seq;
    if (++this.#ackOwed < ACK_EVERY) {
      this.#ackTimer ??= setTimeout(() => this.#sendAck(), ACK_DELAY_MS);
    } else if (!this.#ackQueued) {
      this.#ackQueued = true;
      queueMicrotask(() => this.#sendAck());
    }
  }

  /** Ends the pair's connection and timers; it stays failed. */
  drop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.#ackTimer);
    this.#ackTimer = undefined;
    const connection = this.connection;
    this.connection = null;
    this.channel = null;
    if (this.state !== 'failed') this.state = 'failed';
    connection?.close();
  }

  #sendAck(): void {
    this.#ackQueued = false;
    clearTimeout(this.#ackTimer);
    this.#ackTimer = undefined;
    this.#ackOwed = 0;
    const channel = this.channel;
    if (this.state !== 'open' || !channel) return;
    try {
      sendOnChannel(channel, peerAckFrame(this.receivedSeq));
    } catch {
      // The channel is closing: its close ends the pair, and the sender resends what it has not heard of.
    }
  }
}
