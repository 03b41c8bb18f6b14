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
import { expose, wrap, type Endpoint, type Remote } from 'comlink';
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
    target[name] = async (...args: unknown[]): Promise<Envelope> => {
      try {
        if (!handler) throw new PlatformError('UNSUPPORTED', `"${name}" is not supported by this side`);
        return { ok: true, value: await handler(...args) };
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

/** Wraps `port` with comlink and adds timeouts, coded errors and a clean close. */
export function createCaller<Api>(port: MessagePort, options: CallerOptions): Caller<Api> {
  const remote = wrap<Record<string, (...args: unknown[]) => Promise<unknown>>>(port) as Remote<Record<string, (...args: unknown[]) => Promise<unknown>>>;
  const inFlight = new Set<(error: PlatformError) => void>();
  let closedWith: PlatformError | null = null;

  const call = (name: string, ...args: unknown[]): Promise<unknown> => {
    if (closedWith) return Promise.reject(closedWith);
    return new Promise<unknown>((resolve, reject) => {
      const fail = (error: PlatformError): void => {
        clearTimeout(timer);
        inFlight.delete(fail);
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new PlatformError('CALL_TIMEOUT', `"${name}" got no answer within ${options.callTimeoutMs} ms`)),
        options.callTimeoutMs,
      );
      inFlight.add(fail);
      let sent: Promise<unknown>;
      try {
        const method = remote[name];
        if (!method) throw new PlatformError('METHOD_NOT_ALLOWED', `"${name}" is not a method`);
        sent = method(...args);
      } catch (error) {
        fail(error instanceof PlatformError ? error : new PlatformError('INVALID_ARGUMENT', `"${name}" could not be sent: ${String(error)}`));
        return;
      }
      sent.then(
        (envelope) => {
          if (!inFlight.has(fail)) return; // already timed out or reset
          clearTimeout(timer);
          inFlight.delete(fail);
          const parsed = parseEnvelope(envelope);
          if (parsed.ok) resolve(parsed.value);
          else reject(deserializeError(parsed.error));
        },
        () => {
          if (inFlight.has(fail)) fail(new PlatformError('INVALID_MESSAGE', `"${name}" got a malformed answer`));
        },
      );
    });
  };

  return {
    call: call as Caller<Api>['call'],
    close(error) {
      closedWith ??= error;
      for (const fail of [...inFlight]) fail(error);
    },
    get pending() {
      return inFlight.size;
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
