/**
 * The feed's navigation keys, and the guards of the input a template
 * forwards after load() (touches, wheel, keys). Apart from the gestures
 * that use them: these are the door for foreign data (STYLE.md 2), which
 * turns anything malformed into `INVALID_ARGUMENT` before the feed moves.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { ForwardedKeyEvent, ForwardedTouchPoint, ForwardedWheelEvent } from '../../protocol/link.js';
import type { SwipeInput } from './swipe-tracker.js';

/** Most touch points one forwarded event may carry. */
const MAX_TOUCH_POINTS = 10;
/**
 * Largest coordinate or wheel delta taken, in CSS px (or lines, pages): far past any screen. A
 * finite 1e308 passed a finiteness check and overflowed to Infinity, then NaN, in a drag's sums.
 */
export const MAX_FORWARDED_MAGNITUDE = 1e6;

/** The keys that move the feed, and which way. */
export const NAVIGATION_KEYS: { readonly [key: string]: 1 | -1 } = {
  ArrowDown: 1,
  PageDown: 1,
  j: 1,
  ArrowUp: -1,
  PageUp: -1,
  k: -1,
};

/** The keys a template may forward: exactly the feed's navigation keys. */
const FORWARDED_KEYS: ReadonlySet<string> = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'j', 'k'] satisfies ForwardedKeyEvent['key'][]);

/** A forwarded touch event once checked. */
export interface ForwardedTouch {
  readonly type: SwipeInput['type'];
  readonly touches: ForwardedTouchPoint[];
  readonly changedTouches: ForwardedTouchPoint[];
  readonly timeStamp: number | undefined;
}

/** Guard for a forwarded touch event: the type, at most {@link MAX_TOUCH_POINTS} points of coordinates within ±{@link MAX_FORWARDED_MAGNITUDE}. */
export function parseForwardedTouch(value: unknown): ForwardedTouch {
  if (typeof value !== 'object' || value === null) throw new PlatformError('INVALID_ARGUMENT', 'touch() needs an event object');
  const { type, touches, changedTouches, timeStamp } = value as Record<string, unknown>;
  if (type !== 'start' && type !== 'move' && type !== 'end' && type !== 'cancel') throw new PlatformError('INVALID_ARGUMENT', 'touch() type must be start, move, end or cancel');
  return { type, touches: parsePoints(touches), changedTouches: parsePoints(changedTouches), timeStamp: isFiniteNumber(timeStamp) ? timeStamp : undefined };
}

function parsePoints(value: unknown): ForwardedTouchPoint[] {
  if (!Array.isArray(value) || value.length > MAX_TOUCH_POINTS) throw new PlatformError('INVALID_ARGUMENT', `touch points must be a list of at most ${MAX_TOUCH_POINTS}`);
  return value.map((point: unknown) => {
    const { identifier, clientX, clientY, screenX, screenY } = (typeof point === 'object' && point !== null ? point : {}) as Record<string, unknown>;
    if (!Number.isSafeInteger(identifier) || !isMagnitude(clientX) || !isMagnitude(clientY)) {
      throw new PlatformError('INVALID_ARGUMENT', `a touch point needs an integer identifier and clientX, clientY within ±${MAX_FORWARDED_MAGNITUDE}`);
    }
    const parsed: ForwardedTouchPoint = { identifier: identifier as number, clientX, clientY };
    // Screen coordinates are optional, but only as a pair.
    return isMagnitude(screenX) && isMagnitude(screenY) ? { ...parsed, screenX, screenY } : parsed;
  });
}

/** Guard for a forwarded wheel event: deltas within ±{@link MAX_FORWARDED_MAGNITUDE}, a deltaMode of 0, 1 or 2, a finite timeStamp. */
export function parseForwardedWheel(value: unknown): ForwardedWheelEvent {
  if (typeof value !== 'object' || value === null) throw new PlatformError('INVALID_ARGUMENT', 'wheel() needs an event object');
  const { deltaX, deltaY, deltaMode, timeStamp } = value as Record<string, unknown>;
  if (!isMagnitude(deltaX) || !isMagnitude(deltaY) || !isFiniteNumber(timeStamp)) {
    throw new PlatformError('INVALID_ARGUMENT', `wheel() needs deltaX, deltaY within ±${MAX_FORWARDED_MAGNITUDE} and a finite timeStamp`);
  }
  if (deltaMode !== 0 && deltaMode !== 1 && deltaMode !== 2) throw new PlatformError('INVALID_ARGUMENT', 'wheel() deltaMode must be 0, 1 or 2');
  return { deltaX, deltaY, deltaMode, timeStamp };
}

/** Guard for a forwarded key: one of the feed's navigation keys. */
export function parseForwardedKey(value: unknown): ForwardedKeyEvent {
  const key = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['key'] : undefined;
  if (typeof key !== 'string' || !FORWARDED_KEYS.has(key)) {
    throw new PlatformError('INVALID_ARGUMENT', 'key() needs {key} of ArrowUp, ArrowDown, PageUp, PageDown, j or k');
  }
  return { key: key as ForwardedKeyEvent['key'] };
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isMagnitude(value: unknown): value is number {
  return isFiniteNumber(value) && Math.abs(value) <= MAX_FORWARDED_MAGNITUDE;
}
