/**
 * The relay path: events go as `emit` frames on the control WebSocket and
 * the server fans them out. Reaches every member while the socket is open.
 * It keeps the frames of the last few seconds so that, after a reconnection,
 * those the server never got are sent again (the server tells the last seq
 * it has; receivers drop duplicates by seq).
 */
import type { EmitMessage } from '../../protocol/signaling.js';
import type { DataTransport, OutgoingEvent } from './transport.js';

/** Frames kept for a resend, at most this long. */
const RESEND_WINDOW_MS = 15_000;
const MAX_KEPT = 1_024;

/** The relay transport. */
export class RelayTransport implements DataTransport {
  readonly #sendFrame: (text: string) => boolean;
  readonly #kept: { seq: number; at: number; text: string }[] = [];

  /** `sendFrame` writes to the control socket; false when it is not open. */
  constructor(sendFrame: (text: string) => boolean) {
    this.#sendFrame = sendFrame;
  }

  reaches(): boolean {
    return true;
  }

  send(event: OutgoingEvent, recipients: readonly string[] | null): void {
    const frame: EmitMessage = {
      type: 'emit',
      seq: event.seq,
      name: event.name,
      payload: event.payload,
      ts: event.ts,
      ...(recipients ? { to: recipients } : {}),
    };
    const text = JSON.stringify(frame);
    const now = Date.now();
    this.#kept.push({ seq: event.seq, at: now, text });
    while (this.#kept.length > MAX_KEPT || (this.#kept.length > 0 && now - this.#kept[0]!.at > RESEND_WINDOW_MS)) this.#kept.shift();
    this.#sendFrame(text);
  }

  /** Sends again, in order, every kept frame the server does not have (seq above `lastSeq`). */
  resendAfter(lastSeq: number): number {
    let count = 0;
    for (const { seq, text } of this.#kept) {
      if (seq > lastSeq && this.#sendFrame(text)) count++;
    }
    return count;
  }

  close(): void {
    this.#kept.length = 0;
  }
}
