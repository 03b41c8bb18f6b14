/**
 * The gesture and input layer: what moves the feed. The page's own touches
 * (over a loading state), a template's forwarded touches (mapped into feed
 * pixels), the wheel and the keys, on the feed or forwarded by a template,
 * and a template's requestCancelTouch(). Apart from the controller because
 * turning input into "drag by this much" or "step once" is its own
 * concern (streams, rubber band, coordinate mapping); it moves the feed
 * only through {@link FeedGestureHost}.
 *
 * Why forwarded: the feed is a track moved by a transform, not a native
 * scroller, and a cross-origin template's touches, wheel and keys never
 * reach this page. The template forwards them after load() and the feed
 * follows them (a native scroller would move twice when the browser also
 * chains the template's scroll).
 */
import { PlatformError } from '../../protocol/errors.js';
import { unreachable } from '../../protocol/exhaustive.js';
import type { ForwardedTouchPoint } from '../../protocol/link.js';
import type { EmitFeedEvent } from './feed-events.js';
import type { FeedTrack } from './feed-track.js';
import { NAVIGATION_KEYS, parseForwardedKey, parseForwardedTouch, parseForwardedWheel } from './forwarded-input.js';
import type { LiveFrame } from './live-frame.js';
import { SwipeTracker, type SwipeInput, type SwipePoint, type SwipeTrackerOptions, type SwipeUpdate } from './swipe-tracker.js';

/** A wheel stream is events with gaps shorter than this; it moves the feed once. */
const WHEEL_STREAM_GAP_MS = 150;
/** Wheel travel (CSS px) that moves the feed. */
const WHEEL_THRESHOLD_PX = 40;
/**
 * How long after a wheel step the play it brings can still extend the
 * stream (see {@link FeedGestures.playHeard}).
 */
const WHEEL_PLAY_WAIT_MS = 1_000;
/**
 * How long a template that has left focus still moves the feed: after the
 * feed last took its input while it was in focus. Why: a key or wheel event
 * may be on its way as the feed moves away from it, and the user may touch
 * it again while the snap runs; a preloaded neighbour the user never looked
 * at must not move the feed at all.
 */
const LEFT_FOCUS_GRACE_MS = 1_000;
/** How far a drag past the first or last item goes, as a fraction of the finger's travel. */
const RUBBER_BAND = 0.3;

/** Which sheets are open (FeedSheets): while one is, input belongs to it. */
export interface SheetState {
  readonly sheetOpen: boolean;
  readonly shareSheetOpen: boolean;
}

/** What the gestures need of the feed. */
/** The feeds of each document, for the page's keys (one feed takes them; two, neither). */
const FEEDS_OF = new WeakMap<Document, Set<FeedGestures>>();

export interface FeedGestureHost {
  /** The feed's viewport: where the page's touches, wheel and keys are heard. */
  readonly viewport: HTMLElement;
  readonly track: FeedTrack;
  readonly snapMs: number;
  readonly sheets: SheetState;
  readonly emit: EmitFeedEvent;
  currentIndex(): number;
  /** Nearest item after (1) or before (-1) `index` that is not skipped. */
  nearest(index: number, direction: 1 | -1): number | null;
  /** Moves to item `index`, animated. */
  moveTo(index: number): void;
  /** Moves one item down (1) or up (-1). */
  step(direction: 1 | -1): void;
  /** Asks the loader for more items if few are left. */
  loadMore(): void;
  /** Whether `live` is still shown. */
  isLive(live: LiveFrame): boolean;
  /** Whether `live` is the template in focus. */
  isFocused(live: LiveFrame): boolean;
  /** Whether the current item's template has loaded (so a move to it sends its play at once). */
  currentLoaded(): boolean;
}

/** The gesture layer; see the module comment. */
export class FeedGestures {
  readonly #host: FeedGestureHost;
  readonly #swipe: SwipeTracker;
  #wheelAccumulated = 0;
  #wheelLastMs = -Infinity;
  #wheelStepped = false;
  #wheelStepMs = -Infinity;
  /** A wheel step moved to a loaded template: its play is on its way (see {@link playHeard}). */
  #wheelAwaitsPlay = false;
  /** The template (its sourceId: no reference to a frame that may go) whose input the feed last took while it was in focus, and when. */
  #lastFocusedInput: { readonly sourceId: string; readonly atMs: number } | null = null;

  constructor(host: FeedGestureHost, swipe: SwipeTrackerOptions | undefined) {
    this.#host = host;
    this.#swipe = new SwipeTracker(swipe);
    const viewport = host.viewport;
    for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel'] as const) {
      viewport.addEventListener(type, this.#onHostTouch, { passive: true });
    }
    // Not passive: a wheel over the feed moves the feed, not the page around it.
    viewport.addEventListener('wheel', this.#onWheel, { passive: false });
    viewport.addEventListener('keydown', this.#onKeyDown);
    // The page's keys too, when nothing on it has focus: a feed that is the page's content moves with
    // ↑ ↓ from the first key, without a click or the host calling focus() first.
    const doc = viewport.ownerDocument;
    let feeds = FEEDS_OF.get(doc);
    if (!feeds) FEEDS_OF.set(doc, (feeds = new Set()));
    feeds.add(this);
    doc.addEventListener('keydown', this.#onPageKeyDown);
  }

  /** Stops listening to the page. */
  destroy(): void {
    const doc = this.#host.viewport.ownerDocument;
    FEEDS_OF.get(doc)?.delete(this);
    doc.removeEventListener('keydown', this.#onPageKeyDown);
  }

  /**
   * A key the page heard with nothing focused (the document's body has it). The feed takes it when it
   * is the page's one feed and at least half of it is in view: its inputs, buttons and links keep
   * their keys, a page with two feeds or with the feed scrolled away keeps its own scrolling.
   */
  readonly #onPageKeyDown = (event: KeyboardEvent): void => {
    const viewport = this.#host.viewport;
    const doc = viewport.ownerDocument;
    const active = doc.activeElement;
    if (active !== null && active !== doc.body && active !== doc.documentElement) return;
    if (FEEDS_OF.get(doc)?.size !== 1) return;
    const box = viewport.getBoundingClientRect();
    const window = doc.defaultView;
    if (!window || box.height <= 0) return;
    const seen = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
    if (seen < box.height / 2) return;
    this.#onKeyDown(event);
  };

  /** Forgets the gesture in progress (the feed moved, a sheet opened, the items changed). */
  reset(): void {
    this.#swipe.reset();
  }

  /** Forgets the gesture in progress and puts back a track the finger had dragged. */
  abandon(): void {
    this.#swipe.reset();
    if (this.#host.track.dragPx !== 0) this.#host.track.snapBack(this.#host.snapMs);
  }

  /**
   * A template answered its play. When it is the play a wheel step sent (to
   * a template that had loaded), the stream's quiet starts again now: a template that works hard as it starts
   * playing holds its renderer (shared by the templates of its site), the
   * wheel events of the same flick queue up behind that work and arrive
   * together after a gap longer than a stream's; they must not move the feed
   * again. The answer comes before them (it is sent when the template's
   * handler returns), so they find the stream still going.
   */
  playHeard(): void {
    const now = performance.now();
    if (!this.#wheelAwaitsPlay) return;
    this.#wheelAwaitsPlay = false;
    if (this.#wheelStepped && now - this.#wheelStepMs < WHEEL_PLAY_WAIT_MS) this.#wheelLastMs = now;
  }

  /** A template took the current gesture (requestCancelTouch()): the feed lets go of it. */
  cancelTouch(live: LiveFrame): void {
    if (live.index === -1) return; // a sheet's template already owns its touches
    const wasDragging = this.#swipe.cancel(live.sourceId);
    if (wasDragging) this.#host.track.snapBack(this.#host.snapMs);
    this.#host.emit('canceltouch', { index: live.index, wasDragging });
  }

  /** A touch event a template forwarded (template CSS pixels): the feed follows it. */
  guestTouch(live: LiveFrame, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'touches are forwarded only after load()');
    const event = parseForwardedTouch(raw);
    if (live.index === -1 || !this.#host.isLive(live)) return;
    // Only a template in focus (or just out of it) starts a gesture; the swipe tracker takes the rest of a gesture from its source only.
    if (!this.#inFocusOrJustLeft(live) && event.type === 'start') return;
    // Template CSS pixels → feed pixels, through where the iframe is now.
    const frameRect = live.frame.iframe.getBoundingClientRect();
    const viewportRect = this.#host.viewport.getBoundingClientRect();
    const scale = live.frame.iframe.offsetHeight > 0 ? frameRect.height / live.frame.iframe.offsetHeight : 1;
    const fromClient = (point: ForwardedTouchPoint): { x: number; y: number } => ({
      x: frameRect.left - viewportRect.left + point.clientX * scale,
      y: frameRect.top - viewportRect.top + point.clientY * scale,
    });
    // The iframe moves while the feed follows the finger, and the browser
    // computes a template's client coordinates against where it last drew
    // the iframe (a frame or more behind): mapping them through the
    // iframe's current place makes the feed under-follow. Screen coordinates
    // do not move with the iframe, so when the template sends them, each
    // point's screen → feed offset is fixed at its touch start and reused.
    if (event.type === 'start') {
      for (const point of event.changedTouches) {
        if (point.screenX === undefined || point.screenY === undefined) continue;
        const mapped = fromClient(point);
        live.screenOffsets.set(point.identifier, { x: mapped.x - point.screenX, y: mapped.y - point.screenY });
      }
    }
    const map = (points: readonly ForwardedTouchPoint[]): SwipePoint[] =>
      points.map((point) => {
        const offset = live.screenOffsets.get(point.identifier);
        const mapped = offset && point.screenX !== undefined && point.screenY !== undefined ? { x: point.screenX + offset.x, y: point.screenY + offset.y } : fromClient(point);
        return { identifier: point.identifier, ...mapped };
      });
    const input: SwipeInput = { type: event.type, touches: map(event.touches), changedTouches: map(event.changedTouches) };
    // Only the fingers still down keep an offset: identifiers are the template's to invent, so an offset kept per identifier would grow without end.
    for (const identifier of live.screenOffsets.keys()) if (!event.touches.some((point) => point.identifier === identifier)) live.screenOffsets.delete(identifier);
    this.#host.emit('touch', { index: live.index, type: input.type, touches: input.type === 'end' || input.type === 'cancel' ? input.changedTouches : input.touches });
    // The template's own event time: delivery comes in bursts (the browser hands touch moves over with
    // frames), and a finger that stopped before lifting must not read as a flick.
    this.#follow(live.sourceId, input, event.timeStamp ?? performance.now());
  }

  /**
   * A wheel event a template forwarded: it moves the feed like one over the
   * feed itself. Any live item's counts (not only the focused one's): a
   * trackpad's inertia goes on over the template the feed is leaving while
   * the snap runs, and must stay part of the same stream.
   */
  guestWheel(live: LiveFrame, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'wheel events are forwarded only after load()');
    const event = parseForwardedWheel(raw);
    if (!this.#takesGuestInput(live)) return;
    this.#wheel(event.deltaY, event.deltaMode);
  }

  /**
   * A navigation key a template forwarded: it moves the feed like the key on
   * the feed itself. The feed then takes the keyboard focus, so the next key
   * moves it again instead of going to the template that left; a second key
   * already on its way from that template still counts (any live item's, as
   * for the wheel).
   */
  guestKey(live: LiveFrame, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'keys are forwarded only after load()');
    const event = parseForwardedKey(raw);
    if (!this.#takesGuestInput(live)) return;
    const direction = NAVIGATION_KEYS[event.key];
    if (direction === undefined) return;
    this.#host.step(direction);
    this.#host.viewport.focus({ preventScroll: true });
  }

  #takesGuestInput(live: LiveFrame): boolean {
    const { sheets } = this.#host;
    if (live.index === -1 || !this.#host.isLive(live) || sheets.sheetOpen || sheets.shareSheetOpen || this.#host.currentIndex() < 0) return false;
    return this.#inFocusOrJustLeft(live);
  }

  /** Whether `live`'s forwarded input may move the feed: it is in focus, or was until {@link LEFT_FOCUS_GRACE_MS} ago. */
  #inFocusOrJustLeft(live: LiveFrame): boolean {
    const now = performance.now();
    if (this.#host.isFocused(live)) {
      this.#lastFocusedInput = { sourceId: live.sourceId, atMs: now };
      return true;
    }
    const last = this.#lastFocusedInput;
    return last !== null && last.sourceId === live.sourceId && now - last.atMs < LEFT_FOCUS_GRACE_MS;
  }

  readonly #onHostTouch = (event: TouchEvent): void => {
    // Touches on the sheets belong to them.
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest('.pk-sheet, .pk-share')) return;
    const rect = this.#host.viewport.getBoundingClientRect();
    const map = (list: TouchList): SwipePoint[] => Array.from(list, (touch) => ({ identifier: touch.identifier, x: touch.clientX - rect.left, y: touch.clientY - rect.top }));
    const type = ({ touchstart: 'start', touchmove: 'move', touchend: 'end', touchcancel: 'cancel' } as const)[event.type as 'touchstart'];
    this.#follow('host', { type, touches: map(event.touches), changedTouches: map(event.changedTouches) }, event.timeStamp);
  };

  /** Feeds one touch event of `source` (event time `timeMs` on that source's clock) to the swipe tracker and moves the feed. */
  #follow(source: string, input: SwipeInput, timeMs: number): void {
    const host = this.#host;
    const index = host.currentIndex();
    if (host.sheets.sheetOpen || index < 0) return;
    const update: SwipeUpdate = this.#swipe.handle(source, input, timeMs, host.viewport.clientHeight);
    switch (update.kind) {
      case 'none':
        return;
      case 'drag': {
        const hasNeighbour = update.offsetPx > 0 ? host.nearest(index, -1) !== null : host.nearest(index, 1) !== null;
        const height = host.viewport.clientHeight;
        const offset = hasNeighbour ? update.offsetPx : update.offsetPx * RUBBER_BAND;
        host.track.dragPx = Math.max(-height, Math.min(height, offset));
        host.track.apply(0);
        return;
      }
      case 'release': {
        const direction = update.decision === 'next' ? 1 : update.decision === 'previous' ? -1 : 0;
        const target = direction === 0 ? null : host.nearest(index, direction);
        host.track.dragPx = 0;
        if (target !== null) host.moveTo(target);
        else {
          host.track.apply(host.snapMs);
          if (direction === 1) host.loadMore();
        }
        return;
      }
      case 'abandon':
        host.track.snapBack(host.snapMs);
        return;
      default:
        unreachable(update, 'swipe update');
    }
  }

  /**
   * A wheel event of the page: over the feed's viewport, or one the page
   * hands over (FeedController.handleWheel). The feed takes it (prevents its
   * default, so the page does not scroll too) unless a sheet is open.
   */
  pageWheel(event: WheelEvent): void {
    const { sheets } = this.#host;
    if (sheets.sheetOpen || sheets.shareSheetOpen || event.defaultPrevented) return;
    event.preventDefault();
    this.#wheel(event.deltaY, event.deltaMode);
  }

  readonly #onWheel = (event: WheelEvent): void => this.pageWheel(event);

  /** A wheel event over a template or the feed: one step per stream once it travelled {@link WHEEL_THRESHOLD_PX}. */
  #wheel(deltaY: number, deltaMode: number): void {
    const now = performance.now();
    if (now - this.#wheelLastMs > WHEEL_STREAM_GAP_MS) {
      // A new stream: a trackpad's inertia after a step is one stream and must not move the feed again.
      this.#wheelAccumulated = 0;
      this.#wheelStepped = false;
    }
    this.#wheelLastMs = now;
    if (this.#wheelStepped) return;
    const unit = deltaMode === WheelEvent.DOM_DELTA_LINE ? 16 : deltaMode === WheelEvent.DOM_DELTA_PAGE ? this.#host.viewport.clientHeight : 1;
    this.#wheelAccumulated += deltaY * unit;
    if (Math.abs(this.#wheelAccumulated) < WHEEL_THRESHOLD_PX) return;
    this.#wheelStepped = true;
    this.#wheelStepMs = now;
    this.#host.step(this.#wheelAccumulated > 0 ? 1 : -1);
    // Only the play the step itself sends: a template that loads later is not part of this gesture.
    this.#wheelAwaitsPlay = this.#host.currentLoaded();
  }

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const { sheets } = this.#host;
    if (sheets.sheetOpen || sheets.shareSheetOpen) return;
    const direction = NAVIGATION_KEYS[event.key];
    if (direction === undefined) return;
    event.preventDefault();
    this.#host.step(direction);
  };
}
