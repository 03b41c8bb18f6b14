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
import { PlatformError, serializeError, type SerializedError } from './errors.js';
import { createCallerCore, type Caller, type CallerOptions } from './rpc-caller.js';
import type { Refusal } from './refusal.js';

export { createCaller, type Caller, type CallerOptions } from './rpc-caller.js';
export type { Refusal } from './refusal.js';

/** Result envelope of every served call. */
export type Envelope = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: SerializedError };

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
        typeof listener === 'function' ? (listener as unknown as (event: { readonly data: unknown }) => void) : (event) => listener.handleEvent(event as unknown as Event);
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
export function serveSurface(port: MessagePort, allowed: readonly string[], handlers: { readonly [name: string]: Handler }, options: ServeOptions = {}): () => void {
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
