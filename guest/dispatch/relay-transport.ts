/**
 * The relay path: events go as `emit` frames on the control WebSocket and
 * the server fans them out. Reaches every member while the socket is open.
 * It keeps the frames of the last few seconds so that, after a reconnection,
 * those the server never got are sent again (the server tells the last seq
 * it has; receivers drop duplicates by seq).
 */
import { emitFrame, resendFrame } from '../../protocol/signaling.js';
import type { DataTransport } from './transport.js';

/** Frames kept for a resend, at most this long. */
const RESEND_WINDOW_MS = 15_000;
const MAX_KEPT = 1_024;

/** The relay transport. */
export class RelayTransport implements DataTransport {
  readonly #sendFrame: (text: string) => boolean;
  // The kept frames: a ring of MAX_KEPT slots, oldest at #keptStart, in three parallel arrays
  // made once, so keeping a frame allocates nothing (no record per event, no array shifting).
  readonly #keptSeq = new Float64Array(MAX_KEPT);
  readonly #keptAt = new Float64Array(MAX_KEPT);
  /** 1 where the kept frame is a resend (see {@link RelayTransport.resend}). */
  readonly #keptResend = new Uint8Array(MAX_KEPT);
  readonly #keptText: (string | undefined)[] = new Array<string | undefined>(MAX_KEPT).fill(undefined);
  #keptStart = 0;
  #keptCount = 0;

  /** `sendFrame` writes to the control socket; false when it is not open. */
  constructor(sendFrame: (text: string) => boolean) {
    this.#sendFrame = sendFrame;
  }

  reaches(): boolean {
    return true;
  }

  /**
   * Sends one event (its frame body, see eventFrameBody) to these recipients
   * (client ids or user ids), or to every other member when `recipients` is null.
   */
  send(seq: number, body: string, recipients: readonly string[] | null): void {
    const text = emitFrame(body, recipients);
    this.#keep(seq, text, Date.now(), false);
    this.#sendFrame(text);
  }

  /** Sends to one member an event that went by a data channel which died before the member acknowledged it. */
  resend(seq: number, body: string, clientId: string): void {
    const text = resendFrame(body, clientId);
    this.#keep(seq, text, Date.now(), true);
    this.#sendFrame(text);
  }

  /**
   * Sends again, in order, every kept frame the server does not have: the events with a seq above
   * `lastSeq`, and every resend (their seqs are older than events the server relayed after them,
   * so `lastSeq` cannot tell; the receiver drops one it had).
   */
  resendAfter(lastSeq: number): number {
    let count = 0;
    for (let i = 0; i < this.#keptCount; i++) {
      const slot = (this.#keptStart + i) % MAX_KEPT;
      if ((this.#keptSeq[slot]! > lastSeq || this.#keptResend[slot] === 1) && this.#sendFrame(this.#keptText[slot]!)) count++;
    }
    return count;
  }

  close(): void {
    this.#keptText.fill(undefined);
    this.#keptStart = this.#keptCount = 0;
  }

  #keep(seq: number, text: string, now: number, resend: boolean): void {
    // Older than the window, or the oldest when the ring is full: dropped.
    while (this.#keptCount > 0 && (this.#keptCount === MAX_KEPT || now - this.#keptAt[this.#keptStart]! > RESEND_WINDOW_MS)) {
      this.#keptText[this.#keptStart] = undefined;
      this.#keptStart = (this.#keptStart + 1) % MAX_KEPT;
      this.#keptCount--;
    }
    const slot = (this.#keptStart + this.#keptCount) % MAX_KEPT;
    this.#keptSeq[slot] = seq;
    this.#keptAt[slot] = now;
    this.#keptResend[slot] = resend ? 1 : 0;
    this.#keptText[slot] = text;
    this.#keptCount++;
  }
}
