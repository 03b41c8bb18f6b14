/**
 * `identify`: a member proves who it is with a user token after joining.
 * The token is checked by the same issuer that signs them (services routes),
 * and the verified user id joins the member's record ({@link setUser}).
 */
import { serializeError } from '../../../protocol/errors.js';
import type { IdentifyMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { send } from '../outbox.js';
import { storeFailed } from '../refusals.js';
import { setUser } from './user-info.js';

/** Verifies the token; one that fails is answered with its own error (its code tells the client why), not counted as a refusal. */
export function onIdentify(ctx: ServerContext, connection: Connection, message: IdentifyMessage): void {
  void ctx
    .running()
    .services.tokens.verify(connection.projectId, message.token)
    .then(
      (user) => setUser(ctx, connection, message.id, { userId: user.id }).catch((error: unknown) => storeFailed(ctx, connection, message.id, error)),
      (error: unknown) => send(ctx, connection, { type: 'error', id: message.id, error: serializeError(error) }),
    );
}
