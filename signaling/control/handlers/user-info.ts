/**
 * `userInfo`: a member changes what the others see of it. Also the common
 * end of `identify` ({@link setUser}): the member's record changes in the
 * store and the whole shard, the member included, hears the update.
 */
import { utf8Length } from '../../../protocol/data.js';
import type { EventPayload, UserInfoMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { send } from '../outbox.js';
import { publishPresence, toWire } from '../presence.js';
import { fail, storeFailed } from '../refusals.js';

/** Checks the size of the new `userInfo` (SignalingLimits.maxUserInfoBytes) and sets it. */
export function onUserInfo(ctx: ServerContext, connection: Connection, message: UserInfoMessage): void {
  const max = ctx.limits.maxUserInfoBytes;
  const size = utf8Length(JSON.stringify(message.userInfo));
  if (size > max) return fail(ctx, connection, 'VALUE_TOO_LARGE', `userInfo is ${size} bytes, over ${max}`, { id: message.id });
  void setUser(ctx, connection, message.id, { userInfo: message.userInfo }).catch((error: unknown) => storeFailed(ctx, connection, message.id, error));
}

/** Changes a joined member's user id or info, answers `ok`, and tells the shard. Rejects when the store fails. */
export async function setUser(ctx: ServerContext, connection: Connection, id: number, patch: { userId?: string; userInfo?: EventPayload }): Promise<void> {
  if (connection.state !== 'joined') return fail(ctx, connection, 'NOT_CONNECTED', 'not connected', { id });
  if (patch.userId !== undefined) connection.userId = patch.userId;
  const member = await ctx.store.update(connection.projectId, connection.shardName, connection.clientId, patch);
  send(ctx, connection, { type: 'ok', id, userId: connection.userId });
  // Everyone, the client itself included, sees the new list.
  if (member) publishPresence(ctx, connection, { type: 'presence', op: 'update', member: toWire(member) }, null);
}
