/**
 * `focus`: a member says whether its viewer is looking at it (`here`) or not
 * (`away`: preloaded in a feed, scrolled past, a hidden tab). Only its own
 * state: the member is the connection's, never one the frame names. A frame
 * that changes nothing is answered and goes no further, so a client that
 * repeats itself costs the shard nothing; one that flips its state pays the
 * door's message rate per flip, and the shard's presence coalescing
 * (presence.ts) bounds what the others hear of a burst.
 */
import type { FocusMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { send } from '../outbox.js';
import { publishPresence, toWire } from '../presence.js';
import { storeFailed } from '../refusals.js';

/** Sets the member's presence state, answers `ok`, and tells the shard when it changed. */
export function onFocus(ctx: ServerContext, connection: Connection, message: FocusMessage): void {
  const away = message.state === 'away';
  // A spectator is in no member list: it has no state to show.
  if (connection.spectator || connection.away === away) return send(ctx, connection, { type: 'ok', id: message.id });
  connection.away = away;
  void ctx.store
    .update(connection.projectId, connection.shardName, connection.clientId, { state: message.state })
    .then((member) => {
      send(ctx, connection, { type: 'ok', id: message.id });
      // Everyone, the member included, sees the new list.
      if (member && connection.state === 'joined') publishPresence(ctx, connection, { type: 'presence', op: 'update', member: toWire(member) }, null);
    })
    .catch((error: unknown) => storeFailed(ctx, connection, message.id, error));
}
