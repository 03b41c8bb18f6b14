/**
 * Optional tracing of a page's MessagePort traffic, for the breakdown
 * diagnostic: while on, each request posted on a port and each request
 * received (at the first listener that sees it) is stamped with
 * `performance.timeOrigin + performance.now()`, a clock that processes of one
 * machine share, so a round trip splits into its hops. Pages install it
 * only when opened with `?trace` (the diagnostic does that), before any port
 * has a listener; the benchmark proper runs without it.
 */

/** One stamped event. `start` and `stop` are the timing loop's own marks. */
export interface TraceEvent {
  readonly kind: 'start' | 'post' | 'recv' | 'stop';
  /** ms since the epoch, µs resolution in an isolated page. */
  readonly at: number;
}

const events: TraceEvent[] = [];
let tracing = false;

/** A request of any of the compared protocols; replies and control traffic are left out. */
function isRequest(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const { type, k } = data as { type?: unknown; k?: unknown };
  // comlink (ours and bare) calls are APPLY, penpal's are CALL, lean-rpc's k: 'call'; raw echoes carry {path, value}.
  return type === 'APPLY' || type === 'CALL' || k === 'call' || (type === undefined && 'path' in data && 'value' in data);
}

function stamp(kind: TraceEvent['kind']): void {
  events.push({ kind, at: performance.timeOrigin + performance.now() });
}

let installed = false;
const seen = new WeakSet<Event>();
const wrapped = new WeakMap<object, EventListener>();
const originalPost = MessagePort.prototype.postMessage;
type ListenerMethod = (this: MessagePort, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) => void;
const originalAdd = MessagePort.prototype.addEventListener as ListenerMethod;
const originalRemove = MessagePort.prototype.removeEventListener as ListenerMethod;

/** Wraps MessagePort's postMessage and message listeners of this page (once; before any listener is added). */
export function installTrace(): void {
  if (installed) return;
  installed = true;
  MessagePort.prototype.postMessage = function postMessage(this: MessagePort, message: unknown, ...rest: unknown[]): void {
    if (tracing && isRequest(message)) stamp('post');
    (originalPost as (this: MessagePort, ...args: unknown[]) => void).call(this, message, ...rest);
  };
  MessagePort.prototype.addEventListener = function addEventListener(
    this: MessagePort,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (type !== 'message' || listener === null) return originalAdd.call(this, type, listener, options);
    let wrapper = wrapped.get(listener);
    if (!wrapper) {
      wrapper = (event: Event) => {
        if (tracing && !seen.has(event) && isRequest((event as MessageEvent).data)) {
          seen.add(event);
          stamp('recv');
        }
        if (typeof listener === 'function') listener.call(event.currentTarget, event);
        else listener.handleEvent(event);
      };
      wrapped.set(listener, wrapper);
    }
    originalAdd.call(this, type, wrapper, options);
  };
  MessagePort.prototype.removeEventListener = function removeEventListener(
    this: MessagePort,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    originalRemove.call(this, type, (listener && wrapped.get(listener)) ?? listener, options);
  };
}

/** True when this page was opened with `?trace`. */
export function traceRequested(): boolean {
  return new URLSearchParams(location.search).has('trace');
}

/** Starts a fresh trace. */
export function startTrace(): void {
  events.length = 0;
  tracing = true;
}

/** Stops tracing and hands over what was stamped. */
export function stopTrace(): TraceEvent[] {
  tracing = false;
  return events.splice(0);
}

/** `performance.now()` for the start of a round trip, stamped when tracing. */
export function startClock(): number {
  const now = performance.now();
  if (tracing) events.push({ kind: 'start', at: performance.timeOrigin + now });
  return now;
}

/** `performance.now()` for the end of a round trip, stamped when tracing. */
export function stopClock(): number {
  const now = performance.now();
  if (tracing) events.push({ kind: 'stop', at: performance.timeOrigin + now });
  return now;
}
