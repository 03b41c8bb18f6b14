/**
 * A client's rate buckets (SignalingLimits.maxEventsPerSecond and
 * maxMessagesPerSecond), kept in its {@link Connection} as integers, and what
 * travels with its session: the levels saved when limited or gone, restored
 * on a resume (see the note on SignalingLimits).
 */
import type { SignalingLimits } from '../server-options.js';
import type { RateBuckets } from '../store/store.js';
import type { Connection } from './control-socket.js';

/** Whole ms since the process started (monotonic): a small integer for 12 days, then a boxed one (still right). */
export const clock = (): number => Math.floor(performance.now());

/** A bucket's level at `now` ({@link clock}): its level at its stamp plus the refill since, at most `2 × rate` tokens. */
export function levelAt(connection: Connection, which: 'event' | 'message', rate: number, now: number): number {
  // Two branches, not a destructured pair: this runs for every frame, and a pair is an array.
  if (which === 'event') return Math.min(rate * 2000, connection.eventMilliTokens + (now - connection.eventStamp) * rate);
  return Math.min(rate * 2000, connection.messageMilliTokens + (now - connection.messageStamp) * rate);
}

/**
 * Takes `cost` tokens (default one) from a bucket refilled at `rate` per
 * second up to `2 × rate`; false when it holds fewer. `now` is {@link clock}.
 * Counted in thousandths of a token: `rate` per second is `rate` thousandths
 * per ms, so it stays integer.
 */
export function take(connection: Connection, which: 'event' | 'message', rate: number, now: number, cost = 1): boolean {
  const tokensKey = which === 'event' ? 'eventMilliTokens' : 'messageMilliTokens';
  const stampKey = which === 'event' ? 'eventStamp' : 'messageStamp';
  const tokens = levelAt(connection, which, rate, now);
  connection[stampKey] = now;
  if (tokens < cost * 1000) {
    connection[tokensKey] = tokens;
    return false;
  }
  connection[tokensKey] = tokens - cost * 1000;
  return true;
}

/**
 * What a shard state update of `bytes` costs in the event bucket: one event per
 * `maxPayloadBytes` (the largest event) of it, so updates move no more bytes a
 * second than events of the largest size may (a member sending 1 MiB updates at
 * the event rate would move 100 MiB a second). At most the bucket's size, `2 ×
 * maxEventsPerSecond`: the largest update then takes a whole burst, and is never
 * refused for good.
 */
export function stateUpdateCost(bytes: number, limits: Pick<SignalingLimits, 'maxPayloadBytes' | 'maxEventsPerSecond'>): number {
  return Math.min(Math.max(1, Math.ceil(bytes / limits.maxPayloadBytes)), Math.max(1, Math.floor(limits.maxEventsPerSecond * 2)));
}

/**
 * The buckets' levels now, to save with the session; undefined when both are
 * full. Not saving a full bucket is exact: an older save plus the refill of
 * the time since is never less than full then, because a bucket only empties
 * by taking.
 */
export function bucketLevels(connection: Connection, limits: SignalingLimits, now: number): RateBuckets | undefined {
  const eventMilliTokens = levelAt(connection, 'event', limits.maxEventsPerSecond, now);
  const messageMilliTokens = levelAt(connection, 'message', limits.maxMessagesPerSecond, now);
  if (eventMilliTokens >= limits.maxEventsPerSecond * 2000 && messageMilliTokens >= limits.maxMessagesPerSecond * 2000) return undefined;
  return { eventMilliTokens, messageMilliTokens, savedAtMs: Date.now() };
}

/**
 * A resumed client continues from its saved levels plus the refill of the
 * time since (wall clock: nodes share no other; a save stamped in the future,
 * a skewed clock, refills nothing), capped at this node's bucket sizes.
 */
export function restoreBuckets(connection: Connection, saved: RateBuckets, limits: SignalingLimits, now: number): void {
  const elapsedMs = Math.max(0, Date.now() - saved.savedAtMs);
  const level = (milliTokens: number, rate: number): number => Math.floor(Math.min(rate * 2000, Math.max(0, milliTokens) + elapsedMs * rate));
  connection.eventMilliTokens = level(saved.eventMilliTokens, limits.maxEventsPerSecond);
  connection.messageMilliTokens = level(saved.messageMilliTokens, limits.maxMessagesPerSecond);
  connection.eventStamp = connection.messageStamp = now;
}
