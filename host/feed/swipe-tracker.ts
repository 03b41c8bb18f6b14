/**
 * Follows one vertical swipe at a time from touch streams: the feed page's
 * own touches and those each template forwards (mapped to feed coordinates).
 * Pure logic, no DOM: the controller feeds it events and moves the feed by
 * what it answers.
 *
 * A gesture starts pending; past `slopPx` it becomes a vertical drag (the
 * feed follows) or, when mostly horizontal or when a second finger lands
 * first, it is left to the template. A template's requestCancelTouch() ends
 * the following of the current gesture only: the next touch start is
 * followed again.
 */

/** One touch point in feed (viewport) CSS pixels. */
export interface SwipePoint {
  readonly identifier: number;
  readonly x: number;
  readonly y: number;
}

/** A touch event from one source (`host`, or a template's frame id). */
export interface SwipeInput {
  readonly type: 'start' | 'move' | 'end' | 'cancel';
  readonly touches: readonly SwipePoint[];
  readonly changedTouches: readonly SwipePoint[];
}

/** Where a released swipe sends the feed. */
export type SwipeDecision = 'next' | 'previous' | 'stay';

/** What the feed does after an event. */
export type SwipeUpdate =
  | { readonly kind: 'none' }
  /** Follow the finger: `offsetPx` > 0 when it moved down (towards the previous item). */
  | { readonly kind: 'drag'; readonly offsetPx: number }
  /** The finger lifted after a drag: settle on `decision`. */
  | { readonly kind: 'release'; readonly offsetPx: number; readonly decision: SwipeDecision }
  /** The feed stopped following a drag (cancelled, or taken by the template): settle back. */
  | { readonly kind: 'abandon' };

/** Options of {@link SwipeTracker}. */
export interface SwipeTrackerOptions {
  /** Movement before a gesture is read as vertical or horizontal. Default 8. */
  readonly slopPx?: number;
  /** A release past this fraction of the feed's height moves to the neighbour. Default 0.2. */
  readonly distanceRatio?: number;
  /** A release faster than this (px/ms, over the last 100 ms) moves to the neighbour. Default 0.35. */
  readonly flickPxPerMs?: number;
}

type Mode = 'pending' | 'dragging' | 'ignored' | 'cancelled';

interface Gesture {
  readonly source: string;
  readonly identifier: number;
  readonly startX: number;
  readonly startY: number;
  mode: Mode;
  lastY: number;
  readonly samples: { t: number; y: number }[];
}

const VELOCITY_WINDOW_MS = 100;
/**
 * Most samples a gesture keeps. Real input brings a few dozen within the
 * velocity window; a forwarded gesture's times are the template's to choose,
 * and moves that all carry one time would otherwise stay, one per event, for as long as the finger is down.
 */
const MAX_SAMPLES = 64;

/** Follows vertical swipes; see the module comment. */
export class SwipeTracker {
  readonly #slopPx: number;
  readonly #distanceRatio: number;
  readonly #flick: number;
  #gesture: Gesture | null = null;

  constructor(options: SwipeTrackerOptions = {}) {
    this.#slopPx = options.slopPx ?? 8;
    this.#distanceRatio = options.distanceRatio ?? 0.2;
    this.#flick = options.flickPxPerMs ?? 0.35;
  }

  /** The source of the gesture in progress, or null. */
  get source(): string | null {
    return this.#gesture?.source ?? null;
  }

  /** True while the feed follows a finger. */
  get dragging(): boolean {
    return this.#gesture?.mode === 'dragging';
  }

  /**
   * Takes one event of `source` at `timeMs`; `heightPx` is the feed's
   * height (for the release decision).
   */
  handle(source: string, event: SwipeInput, timeMs: number, heightPx: number): SwipeUpdate {
    const gesture = this.#gesture;
    if (event.type === 'start') {
      if (!gesture) {
        const first = event.changedTouches[0];
        if (!first) return NONE;
        this.#gesture = {
          source,
          identifier: first.identifier,
          startX: first.x,
          startY: first.y,
          // Two fingers down at once is a pinch or a rotation: the template's.
          mode: event.touches.length > 1 ? 'ignored' : 'pending',
          lastY: first.y,
          samples: [{ t: timeMs, y: first.y }],
        };
        return NONE;
      }
      if (gesture.source === source && gesture.mode === 'pending') gesture.mode = 'ignored';
      return NONE;
    }
    if (!gesture || gesture.source !== source) return NONE;

    const tracked = find(event.changedTouches, gesture.identifier) ?? find(event.touches, gesture.identifier);
    if (event.type === 'move') {
      if (!tracked) return NONE;
      return this.#move(gesture, tracked, timeMs);
    }

    // end or cancel
    const ended = find(event.changedTouches, gesture.identifier) !== undefined || event.touches.length === 0;
    if (!ended) return NONE;
    this.#gesture = null;
    if (gesture.mode !== 'dragging') return gesture.mode === 'cancelled' ? { kind: 'abandon' } : NONE;
    if (event.type === 'cancel') return { kind: 'abandon' };
    if (tracked) this.#sample(gesture, tracked.y, timeMs);
    const offsetPx = gesture.lastY - gesture.startY;
    return { kind: 'release', offsetPx, decision: this.#decide(gesture, offsetPx, heightPx) };
  }

  /**
   * The template of `source` takes the current gesture (requestCancelTouch):
   * the feed stops following it. True when a drag was in progress (the feed
   * must settle back). A call from another source, or with no gesture, does nothing.
   */
  cancel(source: string): boolean {
    const gesture = this.#gesture;
    if (!gesture || gesture.source !== source) return false;
    const wasDragging = gesture.mode === 'dragging';
    gesture.mode = 'cancelled';
    return wasDragging;
  }

  /** Forgets the gesture in progress (the feed was reset or destroyed). */
  reset(): void {
    this.#gesture = null;
  }

  #move(gesture: Gesture, point: SwipePoint, timeMs: number): SwipeUpdate {
    if (gesture.mode === 'ignored' || gesture.mode === 'cancelled') return NONE;
    this.#sample(gesture, point.y, timeMs);
    const dx = point.x - gesture.startX;
    const dy = point.y - gesture.startY;
    if (gesture.mode === 'pending') {
      if (Math.max(Math.abs(dx), Math.abs(dy)) < this.#slopPx) return NONE;
      if (Math.abs(dx) > Math.abs(dy)) {
        gesture.mode = 'ignored';
        return NONE;
      }
      gesture.mode = 'dragging';
    }
    return { kind: 'drag', offsetPx: dy };
  }

  #sample(gesture: Gesture, y: number, timeMs: number): void {
    gesture.lastY = y;
    gesture.samples.push({ t: timeMs, y });
    while (gesture.samples.length > 2 && (gesture.samples[0]?.t ?? timeMs) < timeMs - VELOCITY_WINDOW_MS) gesture.samples.shift();
    if (gesture.samples.length > MAX_SAMPLES) gesture.samples.splice(0, gesture.samples.length - MAX_SAMPLES);
  }

  #decide(gesture: Gesture, offsetPx: number, heightPx: number): SwipeDecision {
    const first = gesture.samples[0];
    const last = gesture.samples[gesture.samples.length - 1];
    const elapsed = first && last ? last.t - first.t : 0;
    const velocity = first && last && elapsed > 0 ? (last.y - first.y) / elapsed : 0;
    const threshold = heightPx * this.#distanceRatio;
    // A flick counts only in the direction the finger travelled overall.
    if (offsetPx <= -threshold || (velocity <= -this.#flick && offsetPx < 0)) return 'next';
    if (offsetPx >= threshold || (velocity >= this.#flick && offsetPx > 0)) return 'previous';
    return 'stay';
  }
}

const NONE: SwipeUpdate = { kind: 'none' };

function find(points: readonly SwipePoint[], identifier: number): SwipePoint | undefined {
  return points.find((point) => point.identifier === identifier);
}
