/**
 * An event's frames as text, its payload serialized once: the body every
 * frame of one event shares, the `emit` a client sends (and resends), and the
 * `event` the server relays, spliced from the sender's text when that is safe.
 */
import type { EmitMessage } from './client-frames.js';

/**
 * The members every frame of one event shares, `"seq":…,"name":…,"payload":…,"ts":…`,
 * from the payload's JSON text (the sender serializes the payload once, for
 * its size check and every path and recipient). `name` must pass
 * {@link isEventName}: none of its characters needs escaping in JSON.
 */
export function eventFrameBody(seq: number, name: string, payloadJson: string, ts: number): string {
  // A finite number prints as JSON.stringify prints it.
  return `"seq":${seq},"name":"${name}","payload":${payloadJson},"ts":${ts}`;
}

/** Start of every `emit` frame {@link emitFrame} makes; the server splices what follows it. */
export const EMIT_FRAME_PREFIX = '{"type":"emit",';

/** The {@link EmitMessage} text of an event body, to `to` (or to every other member when null). */
export function emitFrame(body: string, to: readonly string[] | null): string {
  return to === null ? `${EMIT_FRAME_PREFIX}${body}}` : `${EMIT_FRAME_PREFIX}${body},"to":${JSON.stringify(to)}}`;
}

/** The {@link EmitMessage} text that resends by the relay an event a dead data channel did not deliver to `to`. */
export function resendFrame(body: string, to: string): string {
  return `${EMIT_FRAME_PREFIX}${body},"to":${JSON.stringify([to])},"re":true}`;
}

/** How many members an `emit` without `to` has: type, seq, name, payload and ts. */
const EMIT_MEMBERS = 5;

/**
 * The {@link EventMessage} text the server relays for a checked `emit`.
 *
 * Spliced from the sender's `text` when that is safe, so the payload is
 * neither serialized again nor walked: the text starts with
 * {@link EMIT_FRAME_PREFIX} and its object has no member besides type, seq,
 * name, payload and ts. Every member of the text is a member of the parsed
 * `message`, so counting the latter's proves that no `from`, `userId` or `to`
 * hides in the text; a repeated member parses to the same last value at the
 * server and at every receiver, which is what the server checked (a repeated
 * `type` would only make receivers drop that sender's own event). Otherwise
 * (`to`, other members, other spacing) the frame is serialized from the
 * checked fields, as before: recipients never see `to` or unknown members.
 */
export function relayedEventFrame(text: string, message: EmitMessage, from: string, userId: string | null): string {
  const head = `{"type":"event","from":${JSON.stringify(from)},"userId":${userId === null ? 'null' : JSON.stringify(userId)},`;
  if (text.startsWith(EMIT_FRAME_PREFIX) && message.to === undefined) {
    let members = 0;
    for (const key in message) if (Object.prototype.hasOwnProperty.call(message, key)) members++;
    if (members === EMIT_MEMBERS) return head + text.slice(EMIT_FRAME_PREFIX.length);
  }
  return head + `"seq":${message.seq},"name":${JSON.stringify(message.name)},"payload":${JSON.stringify(message.payload)},"ts":${message.ts}}`;
}
