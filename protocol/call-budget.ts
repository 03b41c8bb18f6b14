/**
 * The budget of calls and bytes a guest may spend on a link (see
 * {@link CallBudget}): two token buckets, and the bounded walk that measures
 * a call's arguments without copying them. The door of rpc.ts charges it for
 * every incoming message before anything else looks at the message.
 *
 * Why a budget: a guest can post faster than any host can answer, and one
 * structured-clone message can carry any number of bytes; a guest that spends
 * its budget is unlinked, and its host page stays responsive.
 */
import { PlatformError } from './errors.js';
import type { Refusal } from './refusal.js';

/**
 * What a budget says of one allowed call's arguments: `null` (serve it), a
 * {@link Refusal} (answer it with that error; the link stays), or what was
 * exceeded (the byte rate: the link is cut).
 */
export type CallVerdict = null | Refusal | { readonly exceeded: string };

/** Why the door stopped serving: the other side spent its {@link CallBudget}. */
export interface Limited {
  readonly code: 'RATE_LIMITED';
  /** What was exceeded, as "more than 500 calls a second (a burst of 1000)". */
  readonly exceeded: string;
}

/** The limits of a {@link CallBudget}. Every number is positive; `Infinity` turns a limit off. */
export interface CallLimits {
  /** Calls (any incoming request) allowed per second, sustained. */
  readonly maxCallsPerSecond: number;
  /** Calls allowed at once, on top of nothing: the bucket's size. */
  readonly maxCallsBurst: number;
  /** Argument bytes (as {@link measureArguments} counts them) allowed per second, sustained. */
  readonly maxBytesPerSecond: number;
  /** Argument bytes allowed at once: the bucket's size. A call bigger than this spends the budget by itself. */
  readonly maxBytesBurst: number;
  /** Largest arguments of one call; a bigger call is refused with `VALUE_TOO_LARGE` (and its bytes still charged). */
  readonly maxCallBytes: number;
}

/**
 * Two token buckets (calls, bytes) that one link's door charges. Made once
 * per guest by its owner and kept across its links, so a new link (a reload,
 * a second hello) does not refill it.
 */
export interface CallBudget {
  readonly limits: CallLimits;
  /** Takes one call: false when none is left. */
  takeCall(): boolean;
  /** Takes `bytes`: false when fewer are left (then none are taken). */
  takeBytes(bytes: number): boolean;
  /** Measures one call's arguments (comlink's `argumentList`) and charges their bytes; see {@link CallVerdict}. */
  chargeArguments(argumentList: readonly { readonly value?: unknown }[]): CallVerdict;
}

/** Checks `limits` (each a positive number or Infinity) and returns a budget that holds them, full. */
export function createCallBudget(limits: CallLimits): CallBudget {
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0)) throw new PlatformError('INVALID_ARGUMENT', `${name} must be a positive number (Infinity: no limit), not ${String(value)}`);
  }
  const calls = tokenBucket(limits.maxCallsBurst, limits.maxCallsPerSecond);
  const bytes = tokenBucket(limits.maxBytesBurst, limits.maxBytesPerSecond);
  const maxCallBytes = limits.maxCallBytes;
  // The clock of the last takeCall(), which the door calls for every message just before it
  // charges that message's arguments: one clock read per call, not two. performance.now()
  // costs 0.3 to 0.5 µs in a cross-origin isolated page (measured, bench/RESULTS.md 2026-11-25).
  let calledAt = performance.now();
  const chargeArguments = (argumentList: readonly { readonly value?: unknown }[]): CallVerdict => {
    const size = measureArguments(argumentList, maxCallBytes);
    // Charged before anything is refused: a refused call still cost its bytes to receive.
    if (!bytes(size === TOO_DEEP ? 0 : size, calledAt)) return { exceeded: `more than ${limits.maxBytesPerSecond} bytes a second (a burst of ${limits.maxBytesBurst})` };
    if (size === TOO_DEEP) return { code: 'INVALID_VALUE', message: `arguments nest deeper than ${MAX_MEASURED_DEPTH} levels` };
    if (size > maxCallBytes) return { code: 'VALUE_TOO_LARGE', message: `the arguments of a call are over the limit of ${maxCallBytes} bytes` };
    if (metNotPlain) return { code: 'INVALID_VALUE', message: 'arguments must be plain data (JSON values)' };
    return null;
  };
  return {
    limits: { ...limits },
    takeCall: () => calls(1, (calledAt = performance.now())),
    takeBytes: (amount) => bytes(amount, performance.now()),
    chargeArguments,
  };
}

/** A token bucket of `size` refilled at `perSecond`: the function takes `amount` at time `now` (performance.now()) when there is that much. */
function tokenBucket(size: number, perSecond: number): (amount: number, now: number) => boolean {
  if (size === Infinity || perSecond === Infinity) return () => true;
  const perMs = perSecond / 1_000;
  let tokens = size;
  let at = performance.now();
  return (amount, now) => {
    // A clock read before `at` (the call's, charged after a later takeBytes) refills nothing.
    tokens = Math.min(size, tokens + Math.max(0, now - at) * perMs);
    at = Math.max(at, now);
    if (tokens < amount) return false;
    tokens -= amount;
    return true;
  };
}

/** Deepest nesting {@link measureArguments} walks (a value's own limit is 32 levels, plus the argument list and a path). */
const MAX_MEASURED_DEPTH = 40;
/** What {@link measureArguments} returns for arguments that nest deeper than {@link MAX_MEASURED_DEPTH}. */
const TOO_DEEP = -1;
/** Set by a walk of {@link measureArguments} that met something other than plain data (a Map, a buffer, a Date…). */
let metNotPlain = false;

/**
 * The size of a call's arguments (comlink's `[{type: 'RAW', value}]`), in
 * bytes as their JSON would at least have: a string its length and quotes,
 * an object its keys, braces and separators, a number 1, true/false/null 4.
 * For plain data never more than the UTF-8 JSON, so a value its receiver
 * would accept is never refused here. Anything else structured clone can
 * carry (buffers, blobs, Maps, Sets, Errors, Dates…) is counted by what it
 * holds and flagged, for the door to refuse.
 *
 * Bounded: it stops as soon as the count passes `budget` (a 50 MB string
 * costs one length read), every step counts at least 1 (so a cycle or a
 * shared subtree ends there too), an array's length is counted before its
 * items (a sparse array of length 2^32 ends at once), and nesting past
 * {@link MAX_MEASURED_DEPTH} returns {@link TOO_DEEP}. Plain data allocates nothing.
 */
function measureArguments(argumentList: readonly { readonly value?: unknown }[], budget: number): number {
  metNotPlain = false;
  let total = 0;
  for (let i = 0; i < argumentList.length && total <= budget; i++) {
    const size = measureValue(argumentList[i]?.value, budget - total, 1);
    if (size === TOO_DEEP) return TOO_DEEP;
    total += size;
  }
  return total;
}

/** {@link measureArguments} of one value: its size, or something over `budget` once it is known to be, or TOO_DEEP. */
function measureValue(value: unknown, budget: number, depth: number): number {
  // typeof's answers are fixed by the language: the default covers the rest, and no new one can come.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'undefined':
      return 1;
    case 'boolean':
      return 4;
    case 'object':
      break;
    default:
      // bigint: structured clone carries it; JSON and our surfaces do not.
      metNotPlain = true;
      return 1;
  }
  if (value === null) return 4;
  if (depth > MAX_MEASURED_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    let total = value.length + 1;
    for (let i = 0; i < value.length && total <= budget; i++) {
      const size = measureValue(value[i], budget - total, depth + 1);
      if (size === TOO_DEEP) return TOO_DEEP;
      total += size;
    }
    return total;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    metNotPlain = true;
    return measureNotPlain(value, budget, depth);
  }
  let total = 1;
  // for…in without an array of keys; only own keys count (structured clone makes no others).
  for (const key in value) {
    if (total > budget) break;
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const size = measureValue((value as Record<string, unknown>)[key], budget - total, depth + 1);
    if (size === TOO_DEEP) return TOO_DEEP;
    total += key.length + 4 + size;
  }
  return total;
}

/** The bytes an object of another kind than plain data holds, read without walking what has a size. */
function measureNotPlain(value: object, budget: number, depth: number): number {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength + 2;
  if (value instanceof Blob) return value.size + 2;
  if (value instanceof String) return value.length + 2;
  if (value instanceof Error) return String(value.message).length + (typeof value.stack === 'string' ? value.stack.length : 0) + 2;
  if (value instanceof RegExp) return value.source.length + 2;
  if (value instanceof Map || value instanceof Set) {
    let total = value.size + 2;
    for (const entry of value instanceof Map ? value.entries() : value.values()) {
      if (total > budget) break;
      const size = measureValue(entry, budget - total, depth + 1);
      if (size === TOO_DEEP) return TOO_DEEP;
      total += size;
    }
    return total;
  }
  return 2;
}
