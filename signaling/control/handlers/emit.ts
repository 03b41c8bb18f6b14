/**
 * `emit`: an event to relay to the shard (or to the members it names). The
 * hot path: the door hands the frame's text on, the relayed frame is spliced
 * from it (protocol/signaling.ts `relayedEventFrame`) and published once;
 * the store delivers it to every node's hub (relay.ts). Nothing is allocated
 * here but that frame and the store's message.
 */
import { utf8Length } from '../../../protocol/data.js';
import { relayedEventFrame, type EmitMessage } from '../../../protocol/signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { take } from '../rate-buckets.js';
import { fail } from '../refusals.js';
import { saveBuckets } from '../member-session.js';

/** Checks an event (joined, new seq, event rate, payload size) and publishes it to the shard. `text` may be '' (then serialized anew). */
export function onEmit(ctx: ServerContext, connection: Connection, message: EmitMessage, text: string, bytes: number, now: number): void {
  const seq = message.seq;
  if (connection.state !== 'joined') return fail(ctx, connection, 'NOT_CONNECTED', 'join first', { seq });
  if (connection.spectator) return fail(ctx, connection, 'FORBIDDEN', 'a spectator cannot emit events: take a seat first (takeSeat)', { seq });
  if (message.re !== true) {
    // A resend after a reconnection: already relayed once.
    if (seq <= connection.lastSeq) return;
    connection.lastSeq = seq;
  }
  // Otherwise an event a dead data channel did not deliver, resent to its one receiver: it went
  // by the mesh, so lastSeq says nothing about it, and the receiver drops it if it had it.
  ctx.counters.eventsIn++;
  const limits = ctx.limits;
  if (!take(connection, 'event', limits.maxEventsPerSecond, now)) {
    saveBuckets(ctx, connection, now);
    return fail(ctx, connection, 'RATE_LIMITED', `more than ${limits.maxEventsPerSecond} events per second`, { seq });
  }
  if (bytes > limits.maxPayloadBytes) {
    const size = utf8Length(JSON.stringify(message.payload));
    if (size > limits.maxPayloadBytes) return fail(ctx, connection, 'PAYLOAD_TOO_LARGE', `payload is ${size} bytes, over ${limits.maxPayloadBytes}`, { seq });
  }
  // Spliced from the sender's text when safe: the payload is not serialized again.
  const frame = relayedEventFrame(text, message, connection.clientId, connection.userId);
  const event = { kind: 'event', from: connection.clientId, to: message.to ?? null, frame } as const;
  // Broadcasts only: an event sent to named members is not for whoever joins later (connect({ history })).
  if (event.to === null && ctx.limits.historyEvents > 0) ctx.store.state?.remember(connection.projectId, connection.shardName, frame, ctx.limits.historyEvents);
  // A shared store out of reach: this node's members have it, the others' may not. The sender is told
  // (as PeerJS's EXPIRE tells a peer), never left to believe it arrived; nothing waits to go late.
  if (ctx.nodeId === null) ctx.store.publish(connection.projectId, connection.shardName, event);
  else ctx.store.publish(connection.projectId, connection.shardName, event, () => undelivered(ctx, connection, seq));
}

function undelivered(ctx: ServerContext, connection: Connection, seq: number): void {
  if (connection.state === 'joined')
    fail(ctx, connection, 'UNAVAILABLE', `event ${seq} may not have reached the members on other nodes: the server cannot reach its state store`, { seq });
}
