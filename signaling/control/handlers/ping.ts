/**
 * `ping`: clock sync. The answer carries the client's own stamp back (`c`)
 * and the server's clock (`s`): the client takes the offset from the fastest
 * round trips, and every delivered event's `latencyMs` is computed with it.
 * A ping over the message rate is never answered (door.ts): its sample would
 * be late anyway.
 */
import { preciseNow, type PingMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { send } from '../outbox.js';

/** Answers a `ping` with a `pong` stamped now. */
export function onPing(ctx: ServerContext, connection: Connection, message: PingMessage): void {
  send(ctx, connection, { type: 'pong', id: message.id, c: message.c, s: preciseNow() });
}
