/**
 * Every write to a control socket: the check of its outgoing buffer
 * (SignalingLimits.maxBufferedBytes) and the corking that batches a turn's
 * frames into one write per socket.
 */
import type { ServerMessage } from '../../protocol/signaling.js';
import type { Connection } from './control-socket.js';
import type { CorkableStream, ServerContext } from './context.js';

/** ws's send options of every relayed frame: one object, not one per frame. */
const TEXT_FRAME = Object.freeze({ binary: false });

/** Sends one answer (serialized here) to one client, if its socket may be written to. */
export function send(ctx: ServerContext, connection: Connection, message: ServerMessage): void {
  if (writable(ctx, connection)) connection.socket.send(JSON.stringify(message));
}

/** ws's send options of SyncStep2's diff. */
const BINARY_FRAME = Object.freeze({ binary: true });

/** Leaves bytes out of a frame's JSON: they travel as the binary frame before it. */
const withoutBytes = (_key: string, value: unknown): unknown => (value instanceof Uint8Array ? undefined : value);

/**
 * Sends an answer that carries SyncStep2 (`joined` with a state, `stateSynced`): its diff, `update`,
 * as a binary frame, then the JSON frame without it, which the client's door joins to it
 * (protocol/state-frames.ts `withSyncUpdate`). Both or neither: one writable check for the pair.
 */
export function sendWithUpdate(ctx: ServerContext, connection: Connection, message: ServerMessage, update: Uint8Array): void {
  if (!writable(ctx, connection)) return;
  connection.socket.send(update, BINARY_FRAME);
  connection.socket.send(JSON.stringify(message, withoutBytes));
}

/**
 * Whether a frame may be written to the connection's socket now. Every send
 * asks: a socket over {@link SignalingLimits.maxBufferedBytes} (a client
 * that does not read) is terminated instead, so no answer, presence or event
 * can pile up in the server's memory for it; it reconnects and resumes.
 */
export function writable(ctx: ServerContext, connection: Connection): boolean {
  const socket = connection.socket;
  if (socket.readyState !== socket.OPEN) return false;
  if (socket.bufferedAmount <= ctx.limits.maxBufferedBytes) return true;
  ctx.log(`platform-kit: closing ${connection.clientId || 'a socket'}: ${socket.bufferedAmount} bytes unsent`);
  socket.terminate();
  return false;
}

/** Most frames that may wait for a joining client's `joined` answer (one store round trip); past it the socket goes. */
const MAX_HELD_FRAMES = 1_000;

/** Sends a frame serialized once for many receivers (events, presence): the fan-out's one write. */
export function sendRaw(ctx: ServerContext, connection: Connection, frame: Buffer): void {
  const socket = connection.socket;
  if (connection.held !== null) {
    // Joining: the frame follows `joined` (handlers/join.ts).
    if (connection.held.length < MAX_HELD_FRAMES) connection.held.push(frame);
    else socket.terminate();
    return;
  }
  if (!writable(ctx, connection)) return;
  // The turn's first frame leaves at once; every later one waits for the end of the turn.
  if (ctx.endOfTurnScheduled) corkStream(ctx, (socket as unknown as { _socket?: CorkableStream })._socket);
  else scheduleEndOfTurn(ctx);
  socket.send(frame, TEXT_FRAME);
  ctx.counters.deliveries++;
}

// Fan-out batching: every socket written to during one turn of the event loop is corked and
// uncorked once after it (setImmediate runs after the turn's I/O callbacks), so a recipient of
// many events gets them in one write syscall instead of one each. ws exposes no cork of its
// own; its underlying net.Socket (`_socket`) is the documented Node stream that has one.
// The one exception is the turn's very first frame: it is written at once, so a lone event
// (one sender, one receiver: what latency is made of) does not wait for the end of the turn,
// and under load batching costs at most one extra write per turn, not one per socket.
// A socket being upgraded is corked too: its 101 and the `joined` of a handshake join leave
// in one write.

/** Corks `stream` until the end of this turn (once, however often it is written to). */
export function corkStream(ctx: ServerContext, stream: CorkableStream | undefined): void {
  if (!stream || ctx.corked.has(stream)) return;
  stream.cork();
  ctx.corked.add(stream);
  scheduleEndOfTurn(ctx);
}

/** Runs {@link ServerContext.endOfTurn} (presence.ts: due presence, then uncorking) once after this turn. */
export function scheduleEndOfTurn(ctx: ServerContext): void {
  if (ctx.endOfTurnScheduled) return;
  ctx.endOfTurnScheduled = true;
  setImmediate(ctx.endOfTurn);
}

/** Uncorks every socket corked during this turn: their frames leave, one write each. */
export function uncorkAll(ctx: ServerContext): void {
  for (const stream of ctx.corked) stream.uncork();
  ctx.corked.clear();
}
