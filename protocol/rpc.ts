/**
 * Calls over a MessagePort with comlink, behind a guard at the door.
 *
 * Why a guard: comlink's `expose()` serves GET, SET, CONSTRUCT, ENDPOINT and
 * nested paths of whatever object it is given, and a `{type:'HANDLER'}`
 * argument makes it build proxies. The other side of our port is another
 * origin we do not trust, so {@link serveSurface} puts an endpoint in front of
 * `expose()` that lets through only `APPLY` of one allow-listed method name
 * with plain (`RAW`) arguments. Everything else is answered with a coded
 * error in comlink's own reply format, counted, and never reaches an object.
 *
 * Why envelopes: comlink's thrown-error transfer keeps only name and message.
 * Served methods never throw across the wire; they resolve
 * `{ok: true, value}` or `{ok: false, error}` and {@link createCaller} turns
 * the latter back into a {@link PlatformError} with its code.
 */
import { expose, type Endpoint } from 'comlink';
import { deserializeError, PlatformError, serializeError, type SerializedError } from './errors.js';

/** Result envelope of every served call. */
export type Envelope = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: SerializedError };

/** Why an incoming message was refused at the door. */
export interface Refusal {
  readonly code: 'METHOD_NOT_ALLOWED' | 'INVALID_MESSAGE';
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
}

/**
 * Serves `handlers` (only the names in `allowed`) on `port`. Returns the
 * function that stops serving. Handlers receive unchecked arguments: each
 * must check its own at the door.
 */
export function serveSurface(
  port: MessagePort,
  allowed: readonly string[],
  handlers: { readonly [name: string]: Handler },
  options: ServeOptions = {},
): () => void {
  const allowSet = new Set(allowed);
  // A null-prototype target: even a path that slipped through could not reach Object.prototype.
  const target: Record<string, Handler> = Object.create(null) as Record<string, Handler>;
  for (const name of allowSet) {
    const handler = handlers[name];
    // Synchronous where the handler is: comlink already awaits the result once, so no extra hop is added here.
    target[name] = (...args: unknown[]): Envelope | Promise<Envelope> => {
      try {
        if (!handler) throw new PlatformError('UNSUPPORTED', `"${name}" is not supported by this side`);
        const value = handler(...args);
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

  let exposedListener: ((event: MessageEvent) => void) | null = null;
  const guardListener = (event: MessageEvent): void => {
    const verdict = inspectRequest(event.data, allowSet);
    if (verdict === 'ignore') return;
    if (verdict === 'pass') {
      exposedListener?.(event);
      return;
    }
    const id = requestId(event.data);
    if (id !== null) {
      const reply: Envelope = { ok: false, error: new PlatformError(verdict.code, verdict.message).toJSON() };
      port.postMessage({ id, type: 'RAW', value: reply });
    }
    options.onRefused?.(verdict);
  };
  port.addEventListener('message', guardListener);

  const guardedEndpoint: Endpoint = {
    postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer ?? []),
    addEventListener: (_type: string, listener: EventListenerOrEventListenerObject) => {
      exposedListener = typeof listener === 'function' ? (listener as (event: MessageEvent) => void) : (event) => listener.handleEvent(event);
    },
    removeEventListener: () => {
      exposedListener = null;
    },
    start: () => port.start(),
  };
  expose(target, guardedEndpoint);
  return () => {
    port.removeEventListener('message', guardListener);
    exposedListener = null;
  };
}

function requestId(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const id = (data as { id?: unknown }).id;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : null;
}

const COMLINK_REQUEST_TYPES = new Set(['GET', 'SET', 'APPLY', 'CONSTRUCT', 'ENDPOINT', 'RELEASE']);
const COMLINK_REPLY_TYPES = new Set(['RAW', 'HANDLER']);

/** Decides what happens to one incoming message: pass to comlink, ignore (a reply), or refuse. */
function inspectRequest(data: unknown, allowed: ReadonlySet<string>): 'pass' | 'ignore' | Refusal {
  if (typeof data !== 'object' || data === null) return { code: 'INVALID_MESSAGE', message: 'a message must be an object' };
  const message = data as Record<string, unknown>;
  const { type, path, argumentList } = message;
  // Replies to our own calls travel on the same port; the caller side handles them.
  if (typeof type === 'string' && COMLINK_REPLY_TYPES.has(type) && !('path' in message)) return 'ignore';
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
  for (const argument of argumentList as unknown[]) {
    // Only plain values: a HANDLER argument would make comlink build a proxy or throw for us.
    if (typeof argument !== 'object' || argument === null || (argument as { type?: unknown }).type !== 'RAW') {
      return { code: 'INVALID_MESSAGE', message: 'arguments must be plain values' };
    }
  }
  return 'pass';
}

/** Calls the other side's surface; see {@link createCaller}. */
export interface Caller<Api> {
  /** Calls `name` with a timeout. Rejects with a {@link PlatformError} carrying the callee's code. */
  call<Name extends keyof Api & string>(
    name: Name,
    ...args: Api[Name] extends (...params: infer Params) => unknown ? Params : never
  ): Promise<Api[Name] extends (...params: never[]) => infer Result ? Awaited<Result> : never>;
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
  interface Pending {
    readonly name: string;
    readonly deadline: number;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: PlatformError) => void;
  }
  const pending = new Map<string, Pending>();
  // A per-caller prefix keeps ids unique if two callers ever share a port.
  const idPrefix = `c${Math.random().toString(36).slice(2, 8)}-`;
  let nextId = 0;
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

  const onMessage = (event: MessageEvent): void => {
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null) return;
    const { id, type, value } = data as { id?: unknown; type?: unknown; value?: unknown };
    if (typeof id !== 'string') return;
    const entry = pending.get(id);
    // Requests from the other side (they carry a path) are the server's business; unknown ids are stale.
    if (!entry || 'path' in data) return;
    pending.delete(id);
    if (type !== 'RAW') {
      entry.reject(new PlatformError('INVALID_MESSAGE', `"${entry.name}" got a malformed answer`));
      return;
    }
    const envelope = parseEnvelope(value);
    if (envelope.ok) entry.resolve(envelope.value);
    else entry.reject(deserializeError(envelope.error));
  };
  port.addEventListener('message', onMessage);

  const call = (name: string, ...args: unknown[]): Promise<unknown> => {
    if (closedWith) return Promise.reject(closedWith);
    return new Promise<unknown>((resolve, reject) => {
      const id = idPrefix + (nextId++).toString(36);
      try {
        port.postMessage({ id, type: 'APPLY', path: [name], argumentList: args.map((value) => ({ type: 'RAW', value })) });
      } catch (error) {
        // structuredClone refused an argument (a function, a DOM node…).
        reject(new PlatformError('INVALID_ARGUMENT', `"${name}" could not be sent: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      pending.set(id, { name, deadline: Date.now() + options.callTimeoutMs, resolve, reject });
      sweepTimer ??= setInterval(sweep, sweepEveryMs);
    });
  };

  return {
    call: call as Caller<Api>['call'],
    close(error) {
      closedWith ??= error;
      port.removeEventListener('message', onMessage);
      for (const entry of pending.values()) entry.reject(error);
      pending.clear();
      if (sweepTimer !== undefined) clearInterval(sweepTimer);
      sweepTimer = undefined;
    },
    get pending() {
      return pending.size;
    },
  };
}

function parseEnvelope(value: unknown): Envelope {
  if (typeof value === 'object' && value !== null) {
    const envelope = value as { ok?: unknown; value?: unknown; error?: unknown };
    if (envelope.ok === true) return { ok: true, value: envelope.value };
    if (envelope.ok === false) return { ok: false, error: deserializeError(envelope.error).toJSON() };
  }
  return { ok: false, error: new PlatformError('INVALID_MESSAGE', 'the other side answered without an envelope').toJSON() };
}
