/**
 * The client of a shard's state (issue 26), shared by the browser
 * (`platform-kit/guest/state`) and the backend (`platform-kit/signaling`): a
 * Y.Doc kept in sync with the server's copy (protocol/state-frames.ts says
 * how). Its only promise about the wire is this: whatever this client changed
 * and the server did not acknowledge is sent again at the next join, as the
 * diff against the server's state vector (SyncStep2 back), so nothing is kept
 * in a queue here and a drop, a server restart or a refused frame (a rate
 * limit) loses nothing the document holds.
 */
import * as Y from 'yjs';
import { isPlatformError, PlatformError } from '../../protocol/errors.js';
import { fromBase64, toBase64, type StateRelayMessage, type StateResyncMessage, type StateSyncReply } from '../../protocol/signaling.js';
import type { DispatchSession } from '../dispatch/session.js';
import type { SessionStateHooks } from '../dispatch/types.js';
import { stateMap, type StateMap } from './state-map.js';

export type { StateMap } from './state-map.js';

/** The shard's shared state. */
export interface ShardState {
  /** The shard's document (Yjs). Changes made to it are sent to the shard; remote changes are applied to it. */
  readonly doc: Y.Doc;
  /**
   * Resolves once this client holds the shard's whole state: at connect() when attached before it, else after one round trip.
   * Rejects with a PlatformError (code) when the state cannot be had, also when connect() fails before it was had (with
   * connect()'s error: SHARD_FULL, UNAUTHORIZED, NOT_CONNECTED…); called once a later connect() has begun, it returns a fresh
   * promise for that one. Once resolved it stays resolved.
   */
  whenSynced(): Promise<void>;
  /** The common case: a map of keys to plain JSON values (a score, a board). Backed by doc.getMap(name). Default name 'state'. */
  map<T = unknown>(name?: string): StateMap<T>;
  /** A refused update (STATE_TOO_LARGE or the like, RATE_LIMITED, ...): the error carries a code. */
  onError(callback: (error: Error & { code: string }) => void): () => void;
  /** Detaches from the dispatch and destroys nothing the template holds. */
  close(): void;
}

/** A Dispatch the state attaches to: `Platform.dispatch` (a BrowserDispatch) or a `PlatformBackend.Dispatch`. */
export interface FrontendOrBackendDispatch {
  whenSession(callback: (session: DispatchSession) => void): void;
  /** The dispatch's errors: a connect() that fails before any session exists (INVALID_CONFIG) is heard here only. */
  onError?(callback: (error: PlatformError) => void): () => void;
}

/** The origin of the changes this client applies from the network: they are not sent back. */
const REMOTE = Symbol('platform-kit remote state');
/** Codes after which the connection's next join resends what the server lacks: not the template's concern. */
const CONNECTION_CODES: ReadonlySet<string> = new Set(['NOT_CONNECTED', 'CALL_TIMEOUT', 'UNAVAILABLE', 'LINK_CLOSED']);
/** Least time between two state frames over the mesh: 50 a second, half a peer's default event rate. */
const MESH_INTERVAL_MS = 20;
/** After a refusal that a later try can fix (RATE_LIMITED): sync again this long after. */
const REPAIR_DELAY_MS = 1_000;

const attached = new WeakMap<FrontendOrBackendDispatch, ShardStateClient>();

/** Attaches to a dispatch. One ShardState per dispatch (a second call returns the same, until close()). */
export function attachShardState(dispatch: FrontendOrBackendDispatch): ShardState {
  let state = attached.get(dispatch);
  if (!state) {
    // A connect() that fails before a session exists (no project id: INVALID_CONFIG) reaches no
    // session hook: whenSynced() hears it from the dispatch's errors, or it would wait for ever.
    let stopHearing = (): void => undefined;
    const created = new ShardStateClient(() => {
      stopHearing();
      attached.delete(dispatch);
    });
    stopHearing = dispatch.onError?.((error) => created.failedBeforeSession(error)) ?? stopHearing;
    dispatch.whenSession((session) => created.attach(session));
    attached.set(dispatch, (state = created));
  }
  return state;
}

class ShardStateClient implements ShardState {
  readonly doc = new Y.Doc();
  #session: DispatchSession | null = null;
  #detach: (() => void) | null = null;
  #closed = false;
  readonly #forget: () => void;
  readonly #errorListeners = new Set<(error: PlatformError) => void>();
  /** The server's state vector at the last sync: what it lacks is the diff against it. */
  #serverVector: Uint8Array | null = null;
  /** What whenSynced() returns; replaced by a fresh one when a join starts after it was rejected. */
  #synced: Deferred;
  /** Local updates of this task, merged and sent once (a loop of set() calls is one frame). */
  #outgoing: Uint8Array[] = [];
  #repairTimer: ReturnType<typeof setTimeout> | null = null;
  #meshSentAt = 0;
  readonly #onUpdate = (update: Uint8Array, origin: unknown): void => {
    if (origin === REMOTE || this.#closed) return;
    if (this.#outgoing.push(update) === 1) queueMicrotask(() => this.#flush());
  };

  constructor(forget: () => void) {
    this.#forget = forget;
    this.#synced = deferred();
    this.doc.on('update', this.#onUpdate);
  }

  attach(session: DispatchSession): void {
    if (this.#closed) return;
    this.#session = session;
    const hooks: SessionStateHooks = {
      stateVector: () => {
        // A join leaves: after a connect() that failed, whenSynced() waits for this one.
        this.#renewIfRejected();
        return toBase64(Y.encodeStateVector(this.doc));
      },
      onSync: (reply) => this.#onSync(reply),
      onRemote: (message) => this.#onRemote(message),
      // Never synced (attached while the join was on its way, without the vector): SyncStep1 now.
      onConnected: () => (this.#serverVector === null ? this.#requestSync() : this.#sendMissing()),
      // Not synced yet: nothing more will come of this connect(); the template hears why (a state synced before keeps it).
      onConnectFailed: (error) => {
        if (!this.#closed) this.#settle(error);
      },
    };
    this.#detach = session.statePort.attach(hooks);
    // Attached after connect(): SyncStep1 now (before it, the join carries it).
    if (session.state === 'connected') this.#requestSync();
  }

  whenSynced(): Promise<void> {
    return this.#synced.promise;
  }

  map<T = unknown>(name = 'state'): StateMap<T> {
    return stateMap<T>(this.doc.getMap(name));
  }

  onError(callback: (error: Error & { code: string }) => void): () => void {
    const entry = (error: PlatformError): void => callback(error);
    this.#errorListeners.add(entry);
    return () => {
      this.#errorListeners.delete(entry);
    };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.doc.off('update', this.#onUpdate);
    this.#detach?.();
    if (this.#repairTimer) clearTimeout(this.#repairTimer);
    this.#outgoing = [];
    this.#settle(new PlatformError('NOT_CONNECTED', 'the shard state was closed'));
    this.#forget();
  }

  /** The dispatch failed to connect before it had a session: not synced, and why (a later connect() renews the promise). */
  failedBeforeSession(error: PlatformError): void {
    if (this.#session === null && !this.#closed && error.code === 'INVALID_CONFIG') this.#settle(error);
  }

  #settle(error?: PlatformError): void {
    const synced = this.#synced;
    if (synced.settled !== null) return;
    synced.settled = error ? 'rejected' : 'resolved';
    if (error) synced.reject(error);
    else synced.resolve();
  }

  /** A fresh whenSynced() promise for the next try, when the last one was rejected (never once resolved: the state is held). */
  #renewIfRejected(): void {
    if (this.#synced.settled === 'rejected' && !this.#closed) this.#synced = deferred();
  }

  #onSync(reply: StateSyncReply | null): void {
    if (this.#closed) return;
    if (reply === null) return this.#settle(new PlatformError('UNSUPPORTED', 'the server keeps no shard state'));
    if (!this.#apply(reply.update)) return this.#settle(new PlatformError('INVALID_MESSAGE', 'the server sent a state that does not decode'));
    this.#serverVector = fromBase64(reply.sv);
    this.#settle();
  }

  #onRemote(message: StateRelayMessage | StateResyncMessage): void {
    if (this.#closed) return;
    if (message.type === 'stateResync') this.#requestSync();
    else this.#apply(message.update);
  }

  /** Applies an update from the network (base64 when relayed, bytes in SyncStep2); false (and an error heard by onError) when it does not decode. */
  #apply(update: string | Uint8Array): boolean {
    try {
      Y.applyUpdate(this.doc, typeof update === 'string' ? fromBase64(update) : update, REMOTE);
      return true;
    } catch (error) {
      this.#emitError(new PlatformError('INVALID_MESSAGE', `a state update did not decode: ${String(error)}`));
      return false;
    }
  }

  /** SyncStep2 back: what the server lacks (nothing, most of the time: an update of two bytes). */
  #sendMissing(): void {
    if (this.#closed || this.#serverVector === null) return;
    const missing = Y.encodeStateAsUpdate(this.doc, this.#serverVector);
    // Local changes made meanwhile are in it: what waits in #outgoing would go twice.
    this.#outgoing = [];
    if (!isEmptyUpdate(missing)) this.#send(missing);
  }

  #flush(): void {
    const updates = this.#outgoing;
    this.#outgoing = [];
    if (updates.length === 0 || this.#closed) return;
    // Not connected: the mesh may still be up (the pairs outlive a dropped control socket); the
    // server gets it from the next join's SyncStep2 (see the file's comment).
    this.#send(updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates), this.#session?.state === 'connected');
  }

  #send(update: Uint8Array, toServer = true): void {
    const session = this.#session;
    if (!session) return;
    const text = toBase64(update);
    // Over the mesh first where it is up (the faster path), at most one frame per MESH_INTERVAL_MS so
    // a receiver's door (its peer's event rate) never moves the pair to the relay; the server gets it
    // in any case, keeps it and relays it to every member, those reached here too (duplicates are
    // harmless to Yjs, and the mesh frame is not acknowledged: the relay is what makes it reliable).
    const now = Date.now();
    if (now - this.#meshSentAt >= MESH_INTERVAL_MS) {
      this.#meshSentAt = now;
      session.statePort.toPeers(text);
    }
    if (!toServer) return;
    session.statePort.request({ type: 'state', update: text }).then(
      () => undefined,
      (error: unknown) => this.#refused(error),
    );
  }

  #refused(error: unknown): void {
    const platformError = isPlatformError(error) ? error : new PlatformError('INTERNAL', String(error));
    if (this.#closed) return;
    if (platformError.code === 'RATE_LIMITED') this.#scheduleRepair();
    // A dropped connection is the session's to report; its next join resends what the server lacks.
    if (!CONNECTION_CODES.has(platformError.code)) this.#emitError(platformError);
  }

  /** Syncs with the server again a little later: what it refused (over its rate) goes then. */
  #scheduleRepair(): void {
    if (this.#repairTimer) return;
    this.#repairTimer = setTimeout(() => {
      this.#repairTimer = null;
      if (this.#session?.state === 'connected') this.#requestSync();
    }, REPAIR_DELAY_MS);
  }

  /** SyncStep1 on a connected session; the answer is applied and what the server lacks sent back. */
  #requestSync(): void {
    const session = this.#session;
    if (!session) return;
    this.#renewIfRejected();
    session.statePort.request({ type: 'stateSync', sv: toBase64(Y.encodeStateVector(this.doc)) }).then(
      (reply) => {
        if (reply.type !== 'stateSynced') return;
        this.#onSync(reply);
        this.#sendMissing();
      },
      (error: unknown) => {
        const platformError = isPlatformError(error) ? error : new PlatformError('INTERNAL', String(error));
        // Still connecting or dropped: the next join carries the vector and settles whenSynced.
        if (CONNECTION_CODES.has(platformError.code)) return;
        this.#settle(platformError);
        this.#emitError(platformError);
      },
    );
  }

  #emitError(error: PlatformError): void {
    if (this.#errorListeners.size === 0) console.warn(error.message);
    for (const callback of [...this.#errorListeners]) {
      try {
        callback(error);
      } catch (listenerError) {
        console.error('platform-kit: a state error listener threw', listenerError);
      }
    }
  }
}

/** A promise settled from outside, once: whenSynced()'s. */
interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: PlatformError) => void;
  settled: 'resolved' | 'rejected' | null;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: PlatformError) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // whenSynced() may never be awaited (a template that only reads the map): no unhandled rejection then.
  promise.catch(() => undefined);
  return { promise, resolve, reject, settled: null };
}

/** An update that carries nothing: no structs and an empty delete set (Yjs encodes it in two bytes). */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.length <= 2 && update.every((byte) => byte === 0);
}
