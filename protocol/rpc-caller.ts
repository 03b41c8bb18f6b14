/**
 * The calling half of a port (see rpc.ts for the serving half and the door):
 * calls of the other side's surface in comlink's wire format, the table of
 * calls awaiting an answer, and their timeouts.
 */
import { deserializeError, PlatformError } from './errors.js';

/** Calls the other side's surface; see {@link createCaller}. */
export interface Caller<Api> {
  /** Calls `name` with a timeout. Rejects with a {@link PlatformError} carrying the callee's code. */
  call<Name extends keyof Api & string>(
    name: Name,
    ...args: Api[Name] extends (...params: infer Params) => unknown ? Params : never
  ): Promise<Api[Name] extends (...params: never[]) => infer Result ? Awaited<Result> : never>;
  /**
   * {@link Caller.call} with the arguments as one array, for layers that pass
   * on arguments they received as an array (no spread and rest again per call).
   * The array is only read, never kept.
   */
  apply(name: keyof Api & string, args: readonly unknown[]): Promise<unknown>;
  /** Fails every call in flight with `error` (link reset or closed) and refuses new ones. */
  close(error: PlatformError): void;
  /** Calls currently awaiting an answer. */
  readonly pending: number;
}

/** Options of {@link createCaller}. */
export interface CallerOptions {
  /** A call with no answer within this time fails with `CALL_TIMEOUT`. */
  readonly callTimeoutMs: number;
}

/**
 * Calls the other side's surface, speaking comlink's wire format
 * (`{id, type: 'APPLY', path: [name], argumentList: [{type: 'RAW', value}]}`
 * answered by `{id, type: 'RAW', value}`), which the other side's
 * `expose()` serves.
 *
 * Why not comlink's `wrap()`: every property access on its Proxy builds a
 * new Proxy and registers it with a FinalizationRegistry, and its ids are
 * random strings. We only ever call named top-level methods with plain
 * arguments, so a map of pending ids does the same job; measured, the Proxy
 * path alone cost as much per round trip as all of penpal (bench/RESULTS.md).
 *
 * Timeouts: one sweep timer per caller instead of one timer per call (a
 * timer per call was a measurable share of a 0.3 ms round trip). A call
 * fails with `CALL_TIMEOUT` between `callTimeoutMs` and 1.25 × `callTimeoutMs`.
 */
export function createCaller<Api>(port: MessagePort, options: CallerOptions): Caller<Api> {
  const listener = (event: MessageEvent): void => {
    const data: unknown = event.data;
    // Requests from the other side (they carry a path) are the server's business.
    if (typeof data === 'object' && data !== null && !('path' in data)) receive(data);
  };
  const { caller, receive } = createCallerCore<Api>(port, options, () => port.removeEventListener('message', listener));
  port.addEventListener('message', listener);
  return caller;
}

/** A caller and the function that hands it the answers (messages without a path) arriving on its port; {@link linkPort} of rpc.ts shares its listener. */
export function createCallerCore<Api>(port: MessagePort, options: CallerOptions, onClose: () => void): { caller: Caller<Api>; receive: (data: object) => boolean } {
  interface Pending {
    readonly name: string;
    readonly deadline: number;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: PlatformError) => void;
  }
  // Keyed by the sequence number of the call, not by its wire id: a fresh string key costs
  // about 0.3 µs more per call to store, find and delete (measured in Chromium).
  const pending = new Map<number, Pending>();
  // The wire id is this prefix and the sequence number. A per-caller prefix keeps ids unique if
  // two callers ever share a port. Numbers start at 1: an id that is the bare prefix matches nothing.
  const idPrefix = `c${Math.random().toString(36).slice(2, 8)}-`;
  let nextId = 1;
  let closedWith: PlatformError | null = null;
  let sweepTimer: ReturnType<typeof setInterval> | undefined;
  const sweepEveryMs = Math.max(10, Math.ceil(options.callTimeoutMs / 4));

  const sweep = (): void => {
    const now = Date.now();
    for (const [id, entry] of pending) {
      if (entry.deadline > now) continue;
      pending.delete(id);
      entry.reject(new PlatformError('CALL_TIMEOUT', `"${entry.name}" got no answer within ${options.callTimeoutMs} ms`));
    }
    // Stopped lazily: back-to-back calls keep one timer running instead of arming one per call.
    if (pending.size === 0 && sweepTimer !== undefined) {
      clearInterval(sweepTimer);
      sweepTimer = undefined;
    }
  };

  /** Settles the call `data` answers; false when it answers none (stale, or not ours). */
  const receive = (data: object): boolean => {
    const { id, type, value } = data as { id?: unknown; type?: unknown; value?: unknown };
    if (typeof id !== 'string' || !id.startsWith(idPrefix)) return false;
    const sequence = Number(id.slice(idPrefix.length));
    const entry = pending.get(sequence);
    // Unknown ids are stale (a call that timed out) or not ours.
    if (!entry) return false;
    pending.delete(sequence);
    if (type !== 'RAW') {
      entry.reject(new PlatformError('INVALID_MESSAGE', `"${entry.name}" got a malformed answer`));
      return true;
    }
    // The envelope is read in place: no copy of it per answer.
    if (typeof value === 'object' && value !== null) {
      const envelope = value as { ok?: unknown; value?: unknown; error?: unknown };
      if (envelope.ok === true) {
        entry.resolve(envelope.value);
        return true;
      }
      if (envelope.ok === false) {
        entry.reject(deserializeError(envelope.error));
        return true;
      }
    }
    entry.reject(new PlatformError('INVALID_MESSAGE', 'the other side answered without an envelope'));
    return true;
  };

  const apply = (name: string, args: readonly unknown[]): Promise<unknown> => {
    if (closedWith) return Promise.reject(closedWith);
    const sequence = nextId++;
    const argumentList = new Array<{ type: 'RAW'; value: unknown }>(args.length);
    for (let i = 0; i < args.length; i++) argumentList[i] = { type: 'RAW', value: args[i] };
    try {
      port.postMessage({ id: `${idPrefix}${sequence}`, type: 'APPLY', path: [name], argumentList });
    } catch (error) {
      // structuredClone refused an argument (a function, a DOM node…).
      return Promise.reject(new PlatformError('INVALID_ARGUMENT', `"${name}" could not be sent: ${error instanceof Error ? error.message : String(error)}`));
    }
    // The promise and the bookkeeping come after the post: the message is on its way while
    // they are made. No answer can arrive before this returns (it comes in a later task).
    return new Promise<unknown>((resolve, reject) => {
      pending.set(sequence, { name, deadline: Date.now() + options.callTimeoutMs, resolve, reject });
      sweepTimer ??= setInterval(sweep, sweepEveryMs);
    });
  };

  const caller: Caller<Api> = {
    call: ((name: string, ...args: unknown[]) => apply(name, args)) as Caller<Api>['call'],
    apply,
    close(error) {
      closedWith ??= error;
      onClose();
      for (const entry of pending.values()) entry.reject(error);
      pending.clear();
      if (sweepTimer !== undefined) clearInterval(sweepTimer);
      sweepTimer = undefined;
    },
    get pending() {
      return pending.size;
    },
  };
  return { caller, receive };
}
