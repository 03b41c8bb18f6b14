/**
 * `leave`: the client goes for good. Answered, then the socket closes; the
 * close (member-session.ts) removes the member at once instead of keeping its place
 * for the grace period.
 */
import type { LeaveMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { closeSoon } from '../../close-soon.js';
import { send } from '../outbox.js';

/** Answers `ok` and closes the socket (1000, 'left'), marked as leaving. */
export function onLeave(ctx: ServerContext, connection: Connection, message: LeaveMessage): void {
  connection.leaving = true;
  send(ctx, connection, { type: 'ok', id: message.id });
  // closeSoon: the frames of a client that never answers the close keep it looking alive to the
  // heartbeat, which would leave it to ws's 30 s closing handshake.
  closeSoon(connection.socket, 1000, 'left');
}
