/**
 * What becomes of a failed call that the spec gives no result: onSetValue,
 * onPresentControl, finish, ready, load, navigate, present, share,
 * createRemix, requestCancelTouch.
 *
 * Templates of the original platform call these and drop the promise (the
 * original posted a message and returned nothing). A rejection nobody handles
 * is an "Uncaught (in promise)" in the template's console and, on many sites,
 * an error report. So:
 * - a call that does not apply where the template runs (the host answers
 *   `UNSUPPORTED`: onSetValue in a plain feed item, load() in the editor)
 *   resolves, with one debug line per method and page;
 * - any other failure goes to the template's `onError` listeners (or, with
 *   none, one console warning that names the code), and the returned promise
 *   still rejects for a template that awaits it, but it is already handled:
 *   ignoring it surfaces nothing.
 */
import { PlatformError } from '../protocol/errors.js';

/** Receives a failure of a call whose promise the template may have ignored, and the method's name. */
export type CallErrorHandler = (error: PlatformError, method: string) => void;

const explained = new Set<string>();

/**
 * Returns `call`, settled as this file's comment says. `listeners` gives the
 * `onError` handlers that apply at the time of the failure.
 */
export function settleCall(method: string, call: Promise<void>, listeners: () => Iterable<CallErrorHandler>): Promise<void> {
  const settled: Promise<void> = call.then(undefined, (error: unknown) => callFailed(method, error, listeners, settled));
  return settled;
}

/**
 * The failure half of {@link settleCall}, for a caller that reacts to the
 * answer itself (onSetValue: one reaction for its bookkeeping and this).
 * Call it from the rejection handler that makes `settled`: it resolves
 * (`UNSUPPORTED`) or reports and throws.
 */
export function callFailed(method: string, error: unknown, listeners: () => Iterable<CallErrorHandler>, settled: Promise<void>): void {
  const coded = error instanceof PlatformError ? error : new PlatformError('INTERNAL', `${method}() failed: ${String(error)}`, { cause: error });
  if (coded.code === 'UNSUPPORTED') {
    if (!explained.has(method)) {
      explained.add(method);
      console.debug(`platform-kit: ${method}() does not apply where this template runs; it did nothing (${coded.message})`);
    }
    return;
  }
  reportCallError(coded, method, listeners());
  // Handled here, before it rejects, so a template that ignores the promise sees no unhandled
  // rejection and one that awaits it still gets the error. Only on this path: a `.catch` on
  // every call was one more promise and microtask per keystroke for calls that succeed.
  settled.catch(noop);
  throw coded;
}

/** Adds `handler` to `set` after checking it is a function; returns the function that removes it. Every guest listener method uses it. */
export function addListener<Handler>(set: Set<Handler>, handler: Handler): () => void {
  if (typeof handler !== 'function') throw new PlatformError('INVALID_ARGUMENT', 'a listener must be a function');
  set.add(handler);
  return () => {
    set.delete(handler);
  };
}

function reportCallError(error: PlatformError, method: string, listeners: Iterable<CallErrorHandler>): void {
  let heard = false;
  for (const handler of listeners) {
    heard = true;
    try {
      handler(error, method);
    } catch (thrown) {
      console.error('platform-kit: an onError listener threw', thrown);
    }
  }
  if (!heard) console.warn(`platform-kit: ${method}() failed with ${error.code}: ${error.message} (set onError to handle it)`);
}

function noop(): void {}
