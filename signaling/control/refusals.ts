/**
 * Error answers to a client, and the refusal allowance they draw from
 * (SignalingLimits.maxRefusals): a client that keeps breaking a limit is
 * disconnected (4029), not answered forever. Used by the door and by every
 * handler.
 */
import { isPlatformError, PlatformError, serializeError, type ErrorCode } from '../../protocol/errors.js';
import { CLOSE_CODES } from '../../protocol/signaling.js';
import { closeSoon } from '../close-soon.js';
import type { Connection } from './control-socket.js';
import type { ServerContext } from './context.js';
import { send } from './outbox.js';
import { clock } from './rate-buckets.js';

/** Answers a client frame with an error. Every answer but a server-side failure (UNAVAILABLE, INTERNAL) is a refusal. */
export function fail(ctx: ServerContext, connection: Connection, code: ErrorCode, message: string, ref: { id?: number; seq?: number } = {}): void {
  ctx.counters.errors++;
  if (code !== 'UNAVAILABLE' && code !== 'INTERNAL' && !refusalAllowed(ctx, connection)) return;
  send(ctx, connection, { type: 'error', ...ref, error: serializeError(new PlatformError(code, message)) });
}

/**
 * Counts one refusal against {@link SignalingLimits.maxRefusals}; false (and
 * the socket closes with 4029) once the client is past it. The allowance
 * refills at a tenth of its size per second.
 */
export function refusalAllowed(ctx: ServerContext, connection: Connection): boolean {
  const max = ctx.limits.maxRefusals;
  if (max === Infinity) return true;
  // GCRA: one refusal every `interval` ms (a tenth of the allowance per second), up to `max` at once.
  const now = clock();
  const interval = Math.ceil(10_000 / max);
  const dueAt = Math.max(connection.refusalsDueAt, now) + interval;
  if (dueAt - now <= max * interval) {
    connection.refusalsDueAt = dueAt;
    return true;
  }
  ctx.counters.disconnectedForRefusals++;
  ctx.log(`platform-kit: closing ${connection.clientId || 'a socket'}: more than ${max} refused frames`);
  closeSoon(connection.socket, CLOSE_CODES.TOO_MANY_REFUSALS, 'RATE_LIMITED: too many refused frames');
  return false;
}

/** Refuses a join for good: answers the error, then closes the socket with `closeCode`. */
export function refuse(ctx: ServerContext, connection: Connection, code: ErrorCode, message: string, id: number, closeCode: number = CLOSE_CODES.REFUSED): void {
  fail(ctx, connection, code, message, { id });
  connection.state = 'closed';
  closeSoon(connection.socket, closeCode, code);
}

/** Answers a request whose store call failed: UNAVAILABLE while Redis is out of reach, else INTERNAL. */
export function storeFailed(ctx: ServerContext, connection: Connection, id: number, error: unknown): void {
  ctx.log(`platform-kit: store: ${String(error)}`);
  const code: ErrorCode = isPlatformError(error) && error.code === 'UNAVAILABLE' ? 'UNAVAILABLE' : 'INTERNAL';
  fail(ctx, connection, code, code === 'UNAVAILABLE' ? 'the server cannot reach its state store; retry shortly' : 'the request failed', { id });
}
