/**
 * The door of the control socket: every frame passes here, in this order:
 * open socket, binary, size, depth, parse and check (protocol/signaling.ts),
 * the client's message rate, then one handler per frame type (handlers/).
 * What is refused here counts against SignalingLimits.maxRefusals; what a
 * handler throws is caught one level up, in the socket's `emit`
 * (control-socket.ts controlSocketClass → {@link threw}), so no handler can skip
 * the door's catch.
 */
import { jsonDepthWithin } from '../../protocol/data.js';
import { PlatformError, serializeError, type ErrorCode } from '../../protocol/errors.js';
import { unreachable } from '../../protocol/exhaustive.js';
import {
  base64CharsFor,
  FRAME_ENVELOPE_BYTES,
  parseClientMessage,
  parseJsonObject,
  type ClientMessage,
  type FocusMessage,
  type IdentifyMessage,
  type InfoRequest,
  type LeaveMessage,
  type StateSyncRequest,
  type StateUpdateMessage,
  type TakeSeatMessage,
  type UserInfoMessage,
} from '../../protocol/signaling.js';
import type { RawData } from 'ws';
import type { Connection, ControlSocketHandlers } from './control-socket.js';
import type { ServerContext } from './context.js';
import { onEmit } from './handlers/emit.js';
import { onFocus } from './handlers/focus.js';
import { onIdentify } from './handlers/identify.js';
import { onInfo } from './handlers/info.js';
import { onJoinFrame } from './handlers/join.js';
import { onLeave } from './handlers/leave.js';
import { onPing } from './handlers/ping.js';
import { onSignal } from './handlers/signal.js';
import { onStateSync, onStateUpdate } from './handlers/state.js';
import { onTakeSeat } from './handlers/take-seat.js';
import { onUserInfo } from './handlers/user-info.js';
import { send } from './outbox.js';
import { clock, take } from './rate-buckets.js';
import { fail, refusalAllowed } from './refusals.js';
import { onClose, saveBuckets } from './member-session.js';

/** How a state update frame starts (guest/dispatch/session.ts `stateRequest` writes it so). */
const STATE_FRAME_START = '{"type":"state","id":';

/** Largest frame that may carry a state update of `maxStateBytes`. */
export function stateFrameBytes(maxStateBytes: number): number {
  return base64CharsFor(maxStateBytes) + 64;
}

/** The handlers of one server's control sockets: made once per server, shared by every socket. */
export function controlHandlers(ctx: ServerContext): ControlSocketHandlers {
  return {
    message: (connection, data, isBinary) => onMessage(ctx, connection, data, isBinary),
    close: (connection, code) => onClose(ctx, connection, code),
    threw: (connection, error, during) => threw(ctx, connection, error, during),
  };
}

/** A frame from a control socket: checked, then handed to its handler. */
export function onMessage(ctx: ServerContext, connection: Connection, data: RawData, isBinary: boolean): void {
  connection.alive = true;
  // Closing (refused too often, left, over its buffer): what it still sends is not read.
  if (connection.socket.readyState !== connection.socket.OPEN) return;
  const bytes = Buffer.isBuffer(data) ? data.length : Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
  const now = clock();
  const limits = ctx.limits;
  if (isBinary) return invalid(ctx, connection, now, 'binary frames are not part of the protocol');
  // A text frame arrives as a Buffer (ws's default binaryType), whose String() is its UTF-8 text.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  const text = String(data);
  // A state update may be as large as the shard's state (base64: a third more); it says so in its first bytes.
  if (bytes > limits.maxPayloadBytes + FRAME_ENVELOPE_BYTES && !(bytes <= stateFrameBytes(limits.maxStateBytes) && text.startsWith(STATE_FRAME_START))) {
    return refuseFrame(ctx, connection, now, 'PAYLOAD_TOO_LARGE', `frame of ${bytes} bytes is over the limit`);
  }
  // Before the parser: nothing may re-serialize or walk a frame deeper than this (JSON.stringify throws past a few thousand).
  if (!jsonDepthWithin(text, limits.maxJsonDepth)) return invalid(ctx, connection, now, `frame nests deeper than ${limits.maxJsonDepth} levels`);
  const message = parseClientMessage(parseJsonObject(text), limits.maxStateBytes);
  if (message === null) return invalid(ctx, connection, now, 'malformed frame');
  // The hot path: an event goes on with its text, which the relayed frame is spliced from.
  if (message.type === 'emit') return onEmit(ctx, connection, message, text, bytes, now);
  // A mesh signal is held to the peer's rate, as on a PeerJS socket (handlers/signal.ts), not the requests'.
  if (message.type === 'signal') return onSignal(ctx, connection, message, bytes);
  onClientMessage(ctx, connection, message, bytes, now);
}

/** A checked client message, from a frame or (a join) from the handshake: the dispatcher. */
export function onClientMessage(ctx: ServerContext, connection: Connection, message: ClientMessage, bytes: number, now: number): void {
  // Without its text (none here: the handshake carries only joins) an event is serialized anew.
  if (message.type === 'emit') return onEmit(ctx, connection, message, '', bytes, now);
  if (message.type === 'signal') return onSignal(ctx, connection, message, bytes);
  if (!take(connection, 'message', ctx.limits.maxMessagesPerSecond, now)) {
    saveBuckets(ctx, connection, now);
    // A ping over the rate is not answered (its clock sample would be late anyway), but it is refused all the same.
    if (message.type !== 'ping') fail(ctx, connection, 'RATE_LIMITED', 'too many messages', { id: message.id });
    else refusalAllowed(ctx, connection);
    return;
  }
  // One case per frame type (emit went above): a type added to ClientMessage is a compile error at `unreachable`.
  switch (message.type) {
    case 'ping':
      return onPing(ctx, connection, message);
    case 'join':
      return onJoinFrame(ctx, connection, message);
    case 'identify':
    case 'userInfo':
    case 'info':
    case 'leave':
    case 'focus':
    case 'takeSeat':
    case 'state':
    case 'stateSync':
      if (connection.state !== 'joined') return fail(ctx, connection, 'NOT_CONNECTED', 'join first', { id: message.id });
      return onMemberMessage(ctx, connection, message, now);
    default:
      return unreachable(message, 'client frame');
  }
}

/** A frame only a joined member may send. */
function onMemberMessage(
  ctx: ServerContext,
  connection: Connection,
  message: IdentifyMessage | UserInfoMessage | InfoRequest | LeaveMessage | FocusMessage | TakeSeatMessage | StateUpdateMessage | StateSyncRequest,
  now: number,
): void {
  switch (message.type) {
    case 'identify':
      return onIdentify(ctx, connection, message);
    case 'userInfo':
      return onUserInfo(ctx, connection, message);
    case 'info':
      return onInfo(ctx, connection, message);
    case 'leave':
      return onLeave(ctx, connection, message);
    case 'focus':
      return onFocus(ctx, connection, message);
    case 'takeSeat':
      return onTakeSeat(ctx, connection, message);
    case 'state':
      return onStateUpdate(ctx, connection, message, now);
    case 'stateSync':
      return onStateSync(ctx, connection, message);
    default:
      return unreachable(message, 'member frame');
  }
}

/** A frame the door refuses as malformed (counted in `invalidFrames`). */
export function invalid(ctx: ServerContext, connection: Connection, now: number, why: string): void {
  ctx.counters.invalidFrames++;
  refuseFrame(ctx, connection, now, 'INVALID_MESSAGE', why);
}

/**
 * Refuses a frame that never reached a handler. Answers are rate limited
 * too (a flood of junk gets silence, not an echo flood), and answered or not
 * it is a refusal: a flood of junk ends with the socket.
 */
function refuseFrame(ctx: ServerContext, connection: Connection, now: number, code: ErrorCode, why: string): void {
  if (take(connection, 'message', ctx.limits.maxMessagesPerSecond, now)) fail(ctx, connection, code, why);
  else refusalAllowed(ctx, connection);
}

/** The door's one catch (ControlSocketHandlers.threw): a handler bug answers INTERNAL and is logged, never more. */
export function threw(ctx: ServerContext, connection: Connection, error: unknown, during: string): void {
  ctx.counters.errors++;
  ctx.log(`platform-kit: a ${during} handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  try {
    send(ctx, connection, { type: 'error', error: serializeError(new PlatformError('INTERNAL', 'the server failed to handle that frame')) });
  } catch {
    connection.socket.terminate();
  }
}
