/**
 * Calls over a MessagePort with comlink, behind a guard at the door.
 *
 * Why a guard: comlink's `expose()` serves GET, SET, CONSTRUCT, ENDPOINT and
 * nested paths of whatever object it is given, and a `{type:'HANDLER'}`
 * argument makes it build proxies. The other side of our port is another
 * origin we do not trust, so the serving side ({@link serveSurface}, or
 * {@link linkPort} for a side that also calls) puts an endpoint in front of
 * `expose()` that lets through only `APPLY` of one allow-listed method name
 * with plain (`RAW`) arguments. Everything else is answered with a coded
 * error in comlink's own reply format, counted, and never reaches an object.
 *
 * Why envelopes: comlink's thrown-error transfer keeps only name and message.
 * Served methods never throw across the wire; they resolve
 * `{ok: true, value}` or `{ok: false, error}` and the caller
 * ({@link createCaller}, {@link linkPort}) turns the latter back into a
 * {@link PlatformError} with its code.
 *
 * The serving side may be given a budget of calls and bytes
 * (call-budget.ts): the door charges it for every incoming message before
 * anything else looks at the message, and once it is spent stops serving for
 * good and tells its owner (`onLimited`), which closes the port.
 */
import { expose, type Endpoint } from 'comlink';
// Types only: the budget's code is the host's to bring (TemplateFrame), so a guest bundle carries none of it.
import type { CallBudget, Limited } from './call-budget.js';
import { deserializeError, PlatformError, serializeError, type SerializedError } from './errors.js';

/** Result envelope of every served call. */
export type Envelope = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: SerializedError };

/** Why an incoming message was refused at the door. */
export interface Refusal {
  readonly code: 'METHOD_NOT_ALLOWED' | 'INVALID_MESSAGE' | 'VALUE_TOO_LARGE' | 'INVALID_VALUE';
  readonly message: string;
}

/** Most arguments any surface method takes; more is a malformed call. */
const MAX_ARGUMENTS = 8;
const MAX_ID_LENGTH = 128;

type Handler = (...args: unknown[]) => unknown;

/** Options of {@link serveSurface}. */
export interface ServeOptions {
  /** Called for every refused message (after the refusal was answered). */
  readonly onRefused?: (refusal: Refusal) => void;
  /**
   * Charged for every incoming request (and every answer that matches no call
   * of ours) before it is looked at. Without it nothing is limited.
   */
  readonly budget?: CallBudget;
  /**
   * Called once when the other side spent `budget`: the door has stopped
   * serving for good (every later message is dropped unread) and answered
   * the call that went over with `RATE_LIMITED`. The owner closes the port.
   */
  readonly onLimited?: (limited: Limited) => void;
}

/** The serving half of a port: the guard in front of comlink's `expose()`. */
interface Server {
  /** Handles the data of one incoming request (anything that is not an answer): refuse it, or pass it to comlink. */
  serve(data: unknown): void;
  /** Charges the budget for a message that is neither served nor refused (an answer that matched no call). */
  charge(): void;
  /** Stops passing requests to comlink. */
  stop(): void;
}

function createServer(port: MessagePort, allowed: readonly string[], handlers: { readonly [name: string]: Handler }, options: ServeOptions): Server {
  const allowSet = new Set(allowed);
  // A null-prototype target: even a path that slipped through could not reach Object.prototype.
  const target: Record<string, Handler> = Object.create(null) as Record<string, Handler>;
  for (const name of allowSet) {
    const handler = handlers[name];
    // Synchronous where the handler is: comlink already awaits the result once, so no extra hop is added here.
    // `arguments`, not `...args`: optimized V8 forwards them to `apply` without building an array per call.
    target[name] = function served(): Envelope | Promise<Envelope> {
      try {
        if (!handler) throw new PlatformError('UNSUPPORTED', `"${name}" is not supported by this side`);
        const value = handler.apply(undefined, arguments as unknown as unknown[]);
        if (value instanceof Promise) {
          return value.then(
            (resolved: unknown): Envelope => ({ ok: true, value: resolved }),
            (error: unknown): Envelope => ({ ok: false, error: serializeError(error) }),
          );
        }
        return { ok: true, value };
      } catch (error) {
        return { ok: false, error: serializeError(error) };
      }
    };
  }

  // comlink's listener gets a plain `{data}` instead of the MessageEvent: it reads `event.data`
  // four times and `event.origin` once per request, and on a MessageEvent each read is a call
  // into the browser (about 0.1 µs, measured) where on a plain object it is a property load. Its
  // origin check has nothing to check here (the default '*'): the port is ours, and its other
  // end went only to the checked origin.
  let exposedListener: ((event: { readonly data: unknown }) => void) | null = null;
  const guardedEndpoint: Endpoint = {
    postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer ?? []),
    addEventListener: (_type: string, listener: EventListenerOrEventListenerObject) => {
      exposedListener =
        typeof listener === 'function'
          ? (listener as unknown as (event: { readonly data: unknown }) => void)
          : (event) => listener.handleEvent(event as unknown as Event);
    },
    removeEventListener: () => {
      exposedListener = null;
    },
    start: () => port.start(),
  };
  expose(target, guardedEndpoint);

  const budget = options.budget;
  let limited = false;
  const limit = (data: unknown, exceeded: string): void => {
    limited = true;
    exposedListener = null;
    const id = requestId(data);
    if (id !== null) {
      const message = `platform-kit: this side sent ${exceeded}; the other side closed the link`;
      const reply: Envelope = { ok: false, error: { name: 'PlatformError', code: 'RATE_LIMITED', message } };
      port.postMessage({ id, type: 'RAW', value: reply });
    }
    options.onLimited?.({ code: 'RATE_LIMITED', exceeded });
  };
  const refuse = (data: unknown, refusal: Refusal): void => {
    const id = requestId(data);
    if (id !== null) {
      const reply: Envelope = { ok: false, error: new PlatformError(refusal.code, refusal.message).toJSON() };
      port.postMessage({ id, type: 'RAW', value: reply });
    }
    options.onRefused?.(refusal);
  };

  return {
    serve(data) {
      // Once limited, nothing is read: no refusal, no error object, no reply.
      if (limited) return;
      if (budget !== undefined && !budget.takeCall()) {
        limit(data, `more than ${budget.limits.maxCallsPerSecond} calls a second (a burst of ${budget.limits.maxCallsBurst})`);
        return;
      }
      if (isAllowedCall(data, allowSet)) {
        if (budget !== undefined) {
          const verdict = budget.chargeArguments((data as { argumentList: readonly { readonly value?: unknown }[] }).argumentList);
          if (verdict !== null) {
            if ('exceeded' in verdict) limit(data, verdict.exceeded);
            else refuse(data, verdict);
            return;
          }
        }
        exposedListener?.({ data });
        return;
      }
      refuse(data, refusalOf(data, allowSet));
    },
    charge() {
      if (limited || budget === undefined || budget.takeCall()) return;
      limit(null, `more than ${budget.limits.maxCallsPerSecond} messages a second (a burst of ${budget.limits.maxCallsBurst})`);
    },
    stop() {
      exposedListener = null;
    },
  };
}

/**
 * Serves `handlers` (only the names in `allowed`) on `port`. Returns the
 * function that stops serving. Handlers receive unchecked arguments: each
 * must check its own at the door. A side that also calls the other side
 * uses {@link linkPort} instead: one listener for both.
 */
export function serveSurface(
  port: MessagePort,
  allowed: readonly string[],
  handlers: { readonly [name: string]: Handler },
  options: ServeOptions = {},
): () => void {
  const server = createServer(port, allowed, handlers, options);
  const listener = (event: MessageEvent): void => {
    const data: unknown = event.data;
    // Answers to our own calls travel on the same port; the caller handles them. This side makes
    // no calls, so an answer here is junk: charged like a request.
    if (isAnswer(data)) {
      server.charge();
      return;
    }
    server.serve(data);
  };
  port.addEventListener('message', listener);
  return () => {
    port.removeEventListener('message', listener);
    server.stop();
  };
}

/** Both halves of a port: the guarded surface this side serves and the caller of the other side's. */
export interface PortLink<Api> {
  /** Calls the other side (see {@link createCaller}). */
  readonly caller: Caller<Api>;
  /** Stops serving and listening. Calls in flight are failed by `caller.close()`, not by this. */
  stop(): void;
}

/** Options of {@link linkPort}. */
export interface LinkPortOptions extends ServeOptions, CallerOptions {
  /** Method names this side serves: nothing else is ever called. */
  readonly allowed: readonly string[];
  /** Handlers of the allowed methods; arguments arrive unchecked. */
  readonly handlers: { readonly [name: string]: Handler };
}

/**
 * {@link serveSurface} and {@link createCaller} on one port, behind one
 * 'message' listener instead of two. Why: with two, every message of a
 * round trip (two requests, two answers) reached both, and each call of a
 * listener is a trip from the browser into JavaScript and a read of
 * `event.data` (about 0.1 µs each, measured) that one of them then ignored.
 * The link carries every keystroke of a text control.
 */
export function linkPort<Api>(port: MessagePort, options: LinkPortOptions): PortLink<Api> {
  const server = createServer(port, options.allowed, options.handlers, options);
  const { caller, receive } = createCallerCore<Api>(port, options, () => undefined);
  const listener = (event: MessageEvent): void => {
    const data: unknown = event.data;
    // Answers first: they are half of the traffic and end here.
    if (typeof data === 'object' && data !== null && !('path' in data)) {
      const matched = receive(data);
      if (isAnswerType((data as { type?: unknown }).type)) {
        // An answer to no call of ours costs a listener call like a request: it is charged as one.
        if (!matched) server.charge();
        return;
      }
    }
    server.serve(data);
  };
  port.addEventListener('message', listener);
  return {
    caller,
    stop() {
      port.removeEventListener('message', listener);
      server.stop();
    },
  };
}

function requestId(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const id = (data as { id?: unknown }).id;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : null;
}

const COMLINK_REQUEST_TYPES = new Set(['GET', 'SET', 'APPLY', 'CONSTRUCT', 'ENDPOINT', 'RELEASE']);

function isAnswerType(type: unknown): boolean {
  return type === 'RAW' || type === 'HANDLER';
}

/** An answer to one of our calls (comlink's `{id, type: 'RAW' | 'HANDLER', value}`): never a request, whatever its id. */
function isAnswer(data: unknown): boolean {
  return typeof data === 'object' && data !== null && isAnswerType((data as { type?: unknown }).type) && !('path' in data);
}

/**
 * The one message the guard lets through: `APPLY` of one allow-listed
 * top-level method with at most {@link MAX_ARGUMENTS} plain (`RAW`)
 * arguments and a string id. Checked in one pass, cheapest tests first;
 * {@link refusalOf} says why anything else is refused.
 */
function isAllowedCall(data: unknown, allowed: ReadonlySet<string>): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const { id, type, path, argumentList } = data as Record<string, unknown>;
  if (type !== 'APPLY' || typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) return false;
  if (!Array.isArray(path) || path.length !== 1) return false;
  const name: unknown = path[0];
  if (typeof name !== 'string' || !allowed.has(name)) return false;
  if (!Array.isArray(argumentList) || argumentList.length > MAX_ARGUMENTS) return false;
  for (let i = 0; i < argumentList.length; i++) {
    const argument: unknown = argumentList[i];
    // Only plain values: a HANDLER argument would make comlink build a proxy or throw for us.
    if (typeof argument !== 'object' || argument === null || (argument as { type?: unknown }).type !== 'RAW') return false;
  }
  return true;
}

/** Why a message that {@link isAllowedCall} did not let through is refused. */
function refusalOf(data: unknown, allowed: ReadonlySet<string>): Refusal {
  if (typeof data !== 'object' || data === null) return { code: 'INVALID_MESSAGE', message: 'a message must be an object' };
  const { type, path, argumentList } = data as Record<string, unknown>;
  if (requestId(data) === null) return { code: 'INVALID_MESSAGE', message: 'a call needs a string id' };
  if (typeof type !== 'string' || !COMLINK_REQUEST_TYPES.has(type)) return { code: 'INVALID_MESSAGE', message: 'unknown message type' };
  if (type !== 'APPLY') return { code: 'METHOD_NOT_ALLOWED', message: `${type} is not allowed: only calls of named methods are` };
  if (!Array.isArray(path) || path.length !== 1 || typeof path[0] !== 'string') {
    return { code: 'METHOD_NOT_ALLOWED', message: 'only calls of top-level named methods are allowed' };
  }
  const name = path[0];
  if (!allowed.has(name)) return { code: 'METHOD_NOT_ALLOWED', message: `"${name.slice(0, 64)}" is not a method of this surface` };
  if (!Array.isArray(argumentList) || argumentList.length > MAX_ARGUMENTS) {
    return { code: 'INVALID_MESSAGE', message: `arguments must be a list of at most ${MAX_ARGUMENTS}` };
  }
  return { code: 'INVALID_MESSAGE', message: 'arguments must be plain values' };
}

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

/** A caller and the function that hands it the answers (messages without a path) arriving on its port. */
function createCallerCore<Api>(port: MessagePort, options: CallerOptions, onClose: () => void): { caller: Caller<Api>; receive: (data: object) => boolean } {
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
      port.postMessage({ id: idPrefix + sequence, type: 'APPLY', path: [name], argumentList });
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
