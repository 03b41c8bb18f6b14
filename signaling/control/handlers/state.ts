/**
 * `state` and `stateSync`: the shard's shared state (issue 26; the sync is
 * written down in protocol/state-frames.ts). The server holds no Y.Doc: a
 * shard's state is the list of update bytes in the store, merged
 * (Y.mergeUpdates) on a schedule and by a join that finds several (written
 * back with its state vector), and the diffs a client lacks are computed on
 * bytes (Y.diffUpdate); SyncStep2's diff leaves as a binary frame. Updates pay
 * the event rate by size (rate-buckets.ts stateUpdateCost). Every update is
 * decoded once, inside a catch, before it is kept: garbage, a truncated
 * update, a varint past 2^53 or a nesting that overflows Yjs's recursion is
 * refused `INVALID_MESSAGE` and never reaches the store.
 */
import * as Y from 'yjs';
import { assertPlainData } from '../../../protocol/data.js';
import { PlatformError } from '../../../protocol/errors.js';
import { base64CharsFor, fromBase64, toBase64, type StateSyncReply, type StateSyncRequest, type StateUpdateMessage } from '../../../protocol/signaling.js';
import { projectOf } from '../../projects.js';
import type { ShardStateStore } from '../../store/store.js';
import type { Connection } from '../control-socket.js';
import { shardKey, type ServerContext } from '../context.js';
import { send, sendWithUpdate } from '../outbox.js';
import { stateUpdateCost, take } from '../rate-buckets.js';
import { fail, storeFailed } from '../refusals.js';
import { saveBuckets } from '../member-session.js';

/** A shard's updates are merged once this many are stored (and not on every update: merging costs a decode of all of them). */
export const COMPACT_AFTER_UPDATES = 64;
/** …and at most this long after the update that crossed it, so a burst of updates is merged once. */
const COMPACT_DELAY_MS = 500;

/**
 * A compaction also collects the state's garbage once its merge is this many times the size it had
 * after the last collection on this node (ShardHub.stateCollectedBytes), and always when an update
 * found the state at its limit. Y.mergeUpdates keeps deleted content; only a document drops it
 * (Yjs's gc), so collecting loads the state into a Y.Doc for the length of the call. Without it a
 * log trimmed to its last 100 entries grew by every entry ever written, up to STATE_TOO_LARGE.
 */
const COLLECT_AFTER_GROWTH = 2;

/** A Yjs update that changes nothing: no structs, an empty delete set. */
const EMPTY_UPDATE = new Uint8Array([0, 0]);
/** The state vector of an empty document. */
const EMPTY_VECTOR = new Uint8Array([0]);

/** The compactions each server has scheduled, by shard key: one at a time per shard and node. */
const scheduled = new WeakMap<ServerContext, Map<string, ReturnType<typeof setTimeout>>>();

/** The project's largest shard state (SignalingProject.maxStateBytes, never above the server's). */
export function maxStateBytesOf(ctx: ServerContext, projectId: string): number {
  const own = projectOf(ctx.projects, projectId)?.maxStateBytes;
  const server = ctx.limits.maxStateBytes;
  return typeof own === 'number' && Number.isInteger(own) && own > 0 ? Math.min(own, server) : server;
}

/** The Yjs update in a frame, decoded and checked; a PlatformError when it is not one. */
export function checkedUpdate(text: string, maxBytes: number): Uint8Array | PlatformError {
  if (text.length > base64CharsFor(maxBytes)) return new PlatformError('STATE_TOO_LARGE', `the update is over the shard's state limit of ${maxBytes} bytes`);
  try {
    const bytes = fromBase64(text);
    // Decodes every struct and the delete set: what does not decode is refused here, not in a later merge.
    const decoded = Y.decodeUpdate(bytes);
    for (const struct of decoded.structs) if (struct instanceof Y.Item) checkContent(struct.content);
    // Re-encoded: what follows a valid update (Yjs stops reading there) is neither kept nor relayed.
    // (mergeUpdates of one update returns it as it is; the empty one makes it re-encode.)
    return Y.mergeUpdates([bytes, EMPTY_UPDATE]);
  } catch (error) {
    if (error instanceof PlatformError) return error;
    return new PlatformError('INVALID_MESSAGE', `not a Yjs update: ${error instanceof Error ? error.message.slice(0, 100) : 'undecodable'}`);
  }
}

/**
 * The JSON an update carries (a map's or an array's values, embeds, formats) is plain data within
 * {@link MAX_VALUE_DEPTH}: lib0 rebuilds objects by assignment, so a `__proto__` key comes out as
 * an object with another prototype, which this refuses (`INVALID_VALUE`), as deep nesting.
 */
function checkContent(content: unknown): void {
  if (content instanceof Y.ContentAny) assertPlainData(content.arr, Number.MAX_SAFE_INTEGER);
  else if (content instanceof Y.ContentJSON) assertPlainData(content.arr, Number.MAX_SAFE_INTEGER);
  else if (content instanceof Y.ContentEmbed) assertPlainData(content.embed, Number.MAX_SAFE_INTEGER);
  else if (content instanceof Y.ContentFormat) assertPlainData(content.value, Number.MAX_SAFE_INTEGER);
}

/** Bytes a base64 text decodes to (the text is checked already). */
function fromBase64Length(text: string): number {
  return (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

/**
 * The shard's state as one update with its state vector, or null when it has none. Stored updates
 * are merged here when there are several, and the merge is written back (a compaction) with its
 * vector: the next join reads one precomputed update and its vector instead of decoding the state
 * again (a profile of a late join found the merge, the diff, the vector and the base64 of the reply
 * to be most of the server's time: bench/RESULTS.md).
 */
async function mergedState(ctx: ServerContext, store: ShardStateStore, projectId: string, shardName: string): Promise<{ merged: Uint8Array; vector: Uint8Array } | null> {
  const stored = await store.read(projectId, shardName);
  if (stored.updates.length === 0) return null;
  if (stored.updates.length === 1) {
    const merged = stored.updates[0]!;
    return { merged, vector: stored.vector ?? Y.encodeStateVectorFromUpdate(merged) };
  }
  const merged = Y.mergeUpdates(stored.updates as Uint8Array[]);
  const vector = Y.encodeStateVectorFromUpdate(merged);
  // Not awaited: the join goes on with the merge; a compaction that lost a race is simply not applied.
  store
    .compact(projectId, shardName, merged, stored.updates.length, stored.generation, vector)
    .catch((error: unknown) => ctx.log(`platform-kit: state compaction failed: ${String(error)}`));
  return { merged, vector };
}

/** True for the state vector of an empty document (Yjs encodes it as one zero byte): its diff is the whole state. */
function isEmptyVector(vector: Uint8Array): boolean {
  return vector.length === 1 && vector[0] === 0;
}

/**
 * SyncStep2 for a client whose state vector is `svText` (base64): what it lacks (bytes: the binary
 * frame, protocol/state-frames.ts) and the server's vector. A vector that does not decode counts
 * as empty (the client gets the whole state). A joiner that holds nothing (the late joiner's case)
 * gets the stored update as it is, without a diff.
 */
export async function syncReply(ctx: ServerContext, store: ShardStateStore, projectId: string, shardName: string, svText: string): Promise<StateSyncReply> {
  const held = await mergedState(ctx, store, projectId, shardName);
  noteState(ctx, projectId, shardName, held === null, held !== null);
  const { merged, vector } = held ?? { merged: EMPTY_UPDATE, vector: EMPTY_VECTOR };
  let diff = merged;
  try {
    const clientVector = fromBase64(svText);
    if (held !== null && !isEmptyVector(clientVector)) diff = Y.diffUpdate(merged, clientVector);
  } catch {
    diff = merged;
  }
  return { update: diff, updateBytes: diff.length, sv: toBase64(vector) };
}

/** `stateSync`: SyncStep1 from a client that attached its state after joining. */
export function onStateSync(ctx: ServerContext, connection: Connection, message: StateSyncRequest): void {
  const store = ctx.store.state;
  if (!store) return fail(ctx, connection, 'UNSUPPORTED', 'this server keeps no shard state (its store has none)', { id: message.id });
  // From now on it hears relayed updates: one that comes while the state is read is in the read or follows it.
  connection.wantsState = true;
  const { projectId, shardName } = connection;
  syncReply(ctx, store, projectId, shardName, message.sv)
    .then(
      (reply) => sendWithUpdate(ctx, connection, { type: 'stateSynced', id: message.id, ...reply }, reply.update),
      (error: unknown) => storeFailed(ctx, connection, message.id, error),
    )
    // Out of the door's catch (asynchronous): a bug here is logged, never an unhandled rejection that ends the process.
    .catch((error: unknown) => ctx.log(`platform-kit: stateSync failed: ${String(error)}`));
}

/** `state`: an update from a member. Checked, kept (within the shard's limit), relayed to the others, answered `ok`. */
export function onStateUpdate(ctx: ServerContext, connection: Connection, message: StateUpdateMessage, now: number): void {
  const id = message.id;
  const store = ctx.store.state;
  if (!store) return fail(ctx, connection, 'UNSUPPORTED', 'this server keeps no shard state (its store has none)', { id });
  // Counted as events, by size (before anything is decoded): an update is what an event is to the state.
  const cost = stateUpdateCost(fromBase64Length(message.update), ctx.limits);
  if (!take(connection, 'event', ctx.limits.maxEventsPerSecond, now, cost)) {
    saveBuckets(ctx, connection, now);
    const per = `one per ${ctx.limits.maxPayloadBytes} bytes of an update`;
    return fail(ctx, connection, 'RATE_LIMITED', `more than ${ctx.limits.maxEventsPerSecond} events and state updates per second (${per})`, { id });
  }
  const maxBytes = maxStateBytesOf(ctx, connection.projectId);
  const update = checkedUpdate(message.update, maxBytes);
  if (update instanceof PlatformError) {
    if (update.code === 'INVALID_MESSAGE') ctx.counters.invalidFrames++;
    return fail(ctx, connection, update.code, update.message, { id });
  }
  connection.wantsState = true;
  // Nothing in it (an empty update, or only bytes after one): answered, neither kept nor relayed.
  if (update.length <= EMPTY_UPDATE.length) return send(ctx, connection, { type: 'ok', id });
  const { projectId, shardName, clientId } = connection;
  const text = update.length === fromBase64Length(message.update) ? message.update : toBase64(update);
  keep(ctx, store, projectId, shardName, update, maxBytes)
    .then(
      (count) => {
        if (count === null) return fail(ctx, connection, 'STATE_TOO_LARGE', `the shard's state would pass its limit of ${maxBytes} bytes; the update was not kept`, { id });
        const frame = `{"type":"state","from":${JSON.stringify(clientId)},"update":"${text}"}`;
        // The first update of a state this node saw before: the store lost it (Redis restarted empty).
        // Before the publish, which marks the hub as holding state when this node relays it.
        noteState(ctx, projectId, shardName, count === 1, true);
        ctx.store.publish(projectId, shardName, { kind: 'state', from: clientId, frame });
        if (connection.state === 'joined') send(ctx, connection, { type: 'ok', id });
      },
      (error: unknown) => storeFailed(ctx, connection, id, error),
    )
    .catch((error: unknown) => ctx.log(`platform-kit: a state update failed: ${String(error)}`));
}

/** Appends within the limit; when over, merges first (duplicates and overhead go) and tries once more. */
async function keep(ctx: ServerContext, store: ShardStateStore, projectId: string, shardName: string, update: Uint8Array, maxBytes: number): Promise<number | null> {
  let count = await store.append(projectId, shardName, update, maxBytes);
  if (count === null) {
    await compact(ctx, store, projectId, shardName, true);
    count = await store.append(projectId, shardName, update, maxBytes);
    if (count === null) return null;
  }
  if (count >= COMPACT_AFTER_UPDATES) scheduleCompaction(ctx, store, projectId, shardName);
  return count;
}

/**
 * Notes what this node learnt of a shard's state: held (`empty` false), or found empty. Empty after
 * it was held means the store lost it: every member is asked to sync again (`stateResync`) and sends
 * back what the server lacks, so a Redis that restarted empty gets the state back from the members.
 */
export function noteState(ctx: ServerContext, projectId: string, shardName: string, foundEmpty: boolean, holdsNow: boolean): void {
  const hub = ctx.hubs.get(shardKey(projectId, shardName));
  if (!hub) return;
  if (foundEmpty && hub.stateSeen === true) {
    ctx.log(`platform-kit: the state of ${projectId}/${shardName} was lost by the store; asking its members for it`);
    ctx.store.publish(projectId, shardName, { kind: 'state', from: '', frame: '{"type":"stateResync"}' });
    // The members' answers refill it: the first of them must not ask again.
    hub.stateSeen = false;
  }
  if (holdsNow) hub.stateSeen = true;
}

function scheduleCompaction(ctx: ServerContext, store: ShardStateStore, projectId: string, shardName: string): void {
  let timers = scheduled.get(ctx);
  if (!timers) scheduled.set(ctx, (timers = new Map<string, ReturnType<typeof setTimeout>>()));
  const key = `${projectId}\u0000${shardName}`;
  if (timers.has(key)) return;
  const timer = setTimeout(() => {
    timers.delete(key);
    compact(ctx, store, projectId, shardName, false).catch((error: unknown) => ctx.log(`platform-kit: state compaction failed: ${String(error)}`));
  }, COMPACT_DELAY_MS);
  timer.unref();
  timers.set(key, timer);
}

/**
 * Merges the shard's updates into one (replaced only if no other compaction came between), and
 * collects its garbage when it grew enough since the last collection or when `collect` says so
 * (see {@link COLLECT_AFTER_GROWTH}). A single update is collected too when it is due.
 */
export async function compact(ctx: ServerContext, store: ShardStateStore, projectId: string, shardName: string, collect: boolean): Promise<void> {
  const stored = await store.read(projectId, shardName);
  if (stored.updates.length === 0) return;
  let merged = stored.updates.length === 1 ? stored.updates[0]! : Y.mergeUpdates(stored.updates as Uint8Array[]);
  const hub = ctx.hubs.get(shardKey(projectId, shardName));
  const due = collect || hub?.stateCollectedBytes === undefined || merged.length >= COLLECT_AFTER_GROWTH * hub.stateCollectedBytes;
  if (due) {
    merged = collectGarbage(merged);
    if (hub) hub.stateCollectedBytes = Math.max(merged.length, 1);
  }
  // One update that neither merging nor collecting changed: nothing to write back.
  if (stored.updates.length === 1 && merged === stored.updates[0]) return;
  await store.compact(projectId, shardName, merged, stored.updates.length, stored.generation, Y.encodeStateVectorFromUpdate(merged));
}

/** The same state without its deleted content: the clocks (so every state vector) stay as they were. */
function collectGarbage(update: Uint8Array): Uint8Array {
  const doc = new Y.Doc({ gc: true });
  try {
    Y.applyUpdate(doc, update);
    const collected = Y.encodeStateAsUpdate(doc);
    // A document that collected nothing may still encode a little larger: keep the smaller.
    return collected.length < update.length ? collected : update;
  } finally {
    doc.destroy();
  }
}
