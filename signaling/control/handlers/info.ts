/**
 * `info`: the project's shards and how full they are, bounded and paid for:
 * at most SignalingLimits.maxInfoShards of them, and a message token per
 * {@link INFO_BYTES_PER_TOKEN} bytes of the answer, so 30 bytes in never buy
 * 100 KB out for free.
 */
import type { InfoRequest, ServerMessage, ShardInfo } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { writable } from '../outbox.js';
import { clock, levelAt } from '../rate-buckets.js';
import { fail, storeFailed } from '../refusals.js';
import { saveBuckets } from '../member-session.js';

/** One message token per this many bytes of an `info` answer (SignalingLimits.maxInfoShards). */
const INFO_BYTES_PER_TOKEN = 4096;

/** The emptiest shard first (most room left for the default capacity), then by name: a stable order for a bounded `info`. */
const byRoomLeft = (a: ShardInfo, b: ShardInfo): number => a.numConnectedClients - b.numConnectedClients || (a.shardName < b.shardName ? -1 : a.shardName > b.shardName ? 1 : 0);

/** Asks the store for the project's shards and answers with them. */
export function onInfo(ctx: ServerContext, connection: Connection, message: InfoRequest): void {
  void ctx.store.shards(connection.projectId).then(
    (shards) => sendInfo(ctx, connection, message.id, shards),
    (error: unknown) => storeFailed(ctx, connection, message.id, error),
  );
}

/**
 * Answers `info` with at most {@link SignalingLimits.maxInfoShards} shards,
 * the emptiest first, and charges the client a message token per
 * {@link INFO_BYTES_PER_TOKEN} bytes of the answer; an answer the client's
 * bucket cannot pay for is refused (RATE_LIMITED) instead.
 */
function sendInfo(ctx: ServerContext, connection: Connection, id: number, all: readonly ShardInfo[]): void {
  const max = ctx.limits.maxInfoShards;
  const shards = all.length <= max ? all : [...all].sort(byRoomLeft).slice(0, max);
  const text = JSON.stringify({ type: 'info', id, shards } satisfies ServerMessage);
  const extra = Math.floor(text.length / INFO_BYTES_PER_TOKEN);
  if (extra > 0) {
    // The door took one token per request as it came, and the answers are paid for here, once
    // the store has answered: when many requests arrive in one read (a busy machine batches
    // them), the door admits them all before the first answer is paid. Forgiving what the bucket
    // could not pay (it was clamped at zero) then let 150 requests of 30 bytes buy 91 answers of
    // 10 KB from a bucket of 100; an answer is sent only when its whole price is paid.
    const rate = ctx.limits.maxMessagesPerSecond;
    const now = clock();
    const level = levelAt(connection, 'message', rate, now);
    connection.messageStamp = now;
    if (level < extra * 1000) {
      connection.messageMilliTokens = level;
      saveBuckets(ctx, connection, now);
      return fail(ctx, connection, 'RATE_LIMITED', `too many messages (an info answer of ${text.length} bytes costs ${extra + 1})`, { id });
    }
    connection.messageMilliTokens = level - extra * 1000;
  }
  if (writable(ctx, connection)) connection.socket.send(text);
}
