/**
 * `FeedController`: a vertical feed of templates, each a cross-origin
 * iframe, without Lit (`<platform-feed>` is a thin element over it).
 *
 * Model and rules:
 *   - Items are a list that only grows (append, or a loader callback for an
 *     infinite feed). One is current; it is the one template in focus unless
 *     a presented sheet covers it (then the sheet's template is).
 *   - At most three items are live (current, previous, next): each has a
 *     {@link TemplateFrame}. Neighbours are created as soon as they are in
 *     the window, so they load before they come into view; an item that
 *     leaves the window is destroyed. The feed's length never changes that.
 *   - Playback: a live template plays when it is the focused one, has
 *     called load() and the tab is visible. Changes are sent as they happen,
 *     falses before trues, so a template out of focus never believes it
 *     plays. Focus moves when a swipe is released, not when the snap
 *     animation ends: the next template starts at once.
 *   - Load: an item shows a loading state until it calls load(); one that
 *     has not within `loadTimeoutMs` of its creation is skipped (reported
 *     with a 'skip' event) and the feed moves past it.
 *   - Moving: the feed is a track moved by a transform, not a native
 *     scroller. A cross-origin template's touches never reach this page: the
 *     template forwards them after load() and the feed follows them (a
 *     native scroller would move twice when the browser also chains the
 *     template's scroll). The page's own touches (over a loading state),
 *     the wheel and the keyboard (arrows, j/k, Page Up/Down) move it too;
 *     over a template, the template forwards its wheel and those keys after
 *     load() and they move the feed the same way.
 *   - Values: an item with `values` (a published remix) gets a RemixSession
 *     in preview (`remixing: false`) attached to its frame, so the template
 *     reads them through InstantRemixing as in an editor's preview. The
 *     session's handlers sit over the feed's (TemplateFrame.addHandlers) and
 *     go through the same door (rate limits, refusal reports).
 *   - Guests are untrusted: every argument is checked at the door, calls are
 *     rate limited per frame (token buckets; `RATE_LIMITED`), present, share
 *     and createRemix need the caller to be in focus (`FORBIDDEN`), and
 *     navigate and present accept only http(s) URLs (`INVALID_ARGUMENT`).
 *
 * Frame-ability of navigate and present targets: a page refused by
 * X-Frame-Options or CSP frame-ancestors still fires the iframe's 'load'
 * (with an error page), and a cross-origin window cannot be inspected, so
 * the load event proves nothing; reading the headers with fetch needs CORS
 * that exposes them, which almost no site does. So the rule is behavioural:
 * a target must say hello (be a template) within `frameCheckTimeoutMs`;
 * otherwise the user is offered to open it at browser level. A framable page
 * that is not a template stays visible under the offer.
 */
import { PlatformError, isPlatformError } from '../../protocol/errors.js';
import type { ForwardedKeyEvent, ForwardedTouchPoint, ForwardedWheelEvent, ValueOverrides } from '../../protocol/link.js';
import { Emitter } from '../emitter.js';
import { RemixSession, type RemixCall } from '../remix-session.js';
import { TemplateFrame, type HostHandlers } from '../template-frame.js';
import { FEED_STYLES } from './feed-styles.js';
import { checkFeedItem, checkFeedUrl, feedItemSrc, type FeedItem } from './feed-items.js';
import { createLoading, createOpenOffer, PresentSheet } from './present-sheet.js';
import { TokenBucket } from './rate-limiter.js';
import { ShareSheet } from './share-sheet.js';
import { SwipeTracker, type SwipeInput, type SwipePoint, type SwipeTrackerOptions, type SwipeUpdate } from './swipe-tracker.js';

/** What a loader is asked for: items after the `offset` ones the feed has. */
export interface FeedLoadRequest {
  /** How many items the feed holds now (the index of the first item wanted). */
  readonly offset: number;
  /** Aborted when the feed is destroyed or its items are replaced. */
  readonly signal: AbortSignal;
}

/** Gives more items for an infinite feed; an empty list means the feed has ended. */
export type FeedLoader = (request: FeedLoadRequest) => Promise<readonly FeedItem[]> | readonly FeedItem[];

/** A rate: `burst` calls at once, `perSecond` after that. */
export interface RateLimit {
  readonly burst: number;
  readonly perSecond: number;
}

/** What a share is: the link and title handed to the Web Share API or the share sheet. */
export interface FeedShareData {
  readonly url: string;
  readonly title?: string;
}

/** Options of {@link FeedController}. */
export interface FeedControllerOptions {
  /** The element the feed draws in (it fills it). The controller adds its own children only. */
  readonly container: HTMLElement;
  /** The first items. */
  readonly items?: readonly FeedItem[];
  /** Called for more items when few are left after the current one (an infinite feed). */
  readonly loader?: FeedLoader;
  /** Ask the loader when fewer than this many items follow the current one. Default 3. */
  readonly loadAhead?: number;
  /** A template that has not called load() this long after its frame was made is skipped. Default 10000. */
  readonly loadTimeoutMs?: number;
  /** A navigate or present target that has not said hello within this time gets the open-in-browser offer. Default 3000. */
  readonly frameCheckTimeoutMs?: number;
  /** Length of the snap after a swipe, a key or the wheel; 0 for none. Default 250 (0 with reduced motion). */
  readonly snapDurationMs?: number;
  /** Length of the present sheet's slide; 0 for none. Default 280 (0 with reduced motion). */
  readonly sheetAnimationMs?: number;
  /** More origins each template's hello is accepted from (see TemplateFrameOptions). */
  readonly allowedOrigins?: readonly string[];
  /**
   * The permissions policy of the items' iframes (their `allow` attribute),
   * e.g. `camera; microphone; autoplay` for templates that open peer
   * connections or use media. Default TemplateFrame's (`autoplay;
   * fullscreen; clipboard-write`). Given only to pages of an item's own
   * origin: a page a template navigates to or presents on another origin
   * can be any site, so it gets the default.
   */
  readonly allow?: string;
  /** Timeout of each host → guest call. Default 5000. */
  readonly callTimeoutMs?: number;
  /**
   * The system share: default the Web Share API when the browser has one.
   * `null`: always the feed's share sheet. When it rejects (other than the
   * user cancelling), the share sheet opens instead.
   */
  readonly share?: ((data: FeedShareData) => Promise<void>) | null;
  /** Forwarded input (touches, wheel, keys) and pointer reports a template may send. Default 240 at once, 240 per second. */
  readonly touchRateLimit?: RateLimit;
  /** Other calls (load, navigate, present, share, createRemix, requestCancelTouch). Default 20 at once, 5 per second. */
  readonly callRateLimit?: RateLimit;
  /** Thresholds of swipes. */
  readonly swipe?: SwipeTrackerOptions;
}

/** How an item stands. */
export type FeedItemStatus = 'idle' | 'loading' | 'loaded' | 'unframeable' | 'skipped';

/** Why an item was skipped. */
export type SkipReason = 'load-timeout';

/** Events of a {@link FeedController}. */
export interface FeedControllerEvents {
  [name: string]: unknown;
  /** The current item changed (also for the first one). */
  focuschange: { readonly index: number; readonly item: FeedItem };
  /** A template was told it plays or pauses. `index` is -1 for the presented sheet. */
  playbackchange: { readonly index: number; readonly isPlaying: boolean };
  /** An item did not call load() in time and was skipped. */
  skip: { readonly index: number; readonly item: FeedItem; readonly reason: SkipReason; readonly error: PlatformError };
  /** The snap after a move ended. */
  settle: { readonly index: number };
  /** A template forwarded a touch (points in feed CSS pixels). */
  touch: { readonly index: number; readonly type: SwipeInput['type']; readonly touches: readonly SwipePoint[] };
  /** A template took the current gesture with requestCancelTouch(). */
  canceltouch: { readonly index: number; readonly wasDragging: boolean };
  /** A template replaced its content. `index` is -1 in the sheet. */
  navigate: { readonly index: number; readonly url: string };
  /** A sheet opened, or its view was replaced. */
  present: { readonly url: string; readonly replaced: boolean };
  /** The sheet closed. */
  sheetclose: undefined;
  /** A navigate or present target did not say hello: the user was offered to open it in the browser. */
  unframeable: { readonly index: number; readonly url: string };
  /** share(): which way it went. */
  share: { readonly index: number; readonly data: FeedShareData; readonly method: 'web-share' | 'sheet' };
  /** createRemix(): open the editor for `projectId` (null when neither the call nor the item names one). */
  createremix: { readonly index: number; readonly item: FeedItem | undefined; readonly projectId: string | null };
  /** The loader said the feed has ended. */
  end: undefined;
  /** A template's call was refused (the template got the same error), or the loader failed. `index` -1: the sheet or the loader. */
  error: { readonly index: number; readonly error: PlatformError };
}

interface Entry {
  item: FeedItem;
  /** What the item's frame loads: the item's URL with its context, or where it navigated. */
  src: string;
  skipped: boolean;
}

/** One live template: an item's (index ≥ 0) or the sheet's (index -1). */
class Live {
  readonly sourceId = `frame-${nextSourceId++}`;
  /** Set right after construction by attachFrame (its handlers need this object first). */
  frame!: TemplateFrame;
  src = '';
  status: 'loading' | 'loaded' | 'unframeable' = 'loading';
  playing = false;
  loadTimer: ReturnType<typeof setTimeout> | undefined;
  checkTimer: ReturnType<typeof setTimeout> | undefined;
  lastLimitReportMs = -Infinity;
  /** Per touch identifier: screen → feed offset, fixed at the touch's start. */
  readonly screenOffsets = new Map<number, { x: number; y: number }>();
  unsubscribe: (() => void)[] = [];
  readonly touchBucket: TokenBucket;
  readonly callBucket: TokenBucket;

  constructor(
    readonly index: number,
    readonly element: HTMLElement,
    touchRate: RateLimit,
    callRate: RateLimit,
  ) {
    this.touchBucket = new TokenBucket(touchRate);
    this.callBucket = new TokenBucket(callRate);
  }
}

const DEFAULT_TOUCH_RATE: RateLimit = { burst: 240, perSecond: 240 };
const DEFAULT_CALL_RATE: RateLimit = { burst: 20, perSecond: 5 };
/** Most touch points one forwarded event may carry. */
const MAX_TOUCH_POINTS = 10;
/** A wheel stream is events with gaps shorter than this; it moves the feed once. */
const WHEEL_STREAM_GAP_MS = 150;
/** Wheel travel (CSS px) that moves the feed. */
const WHEEL_THRESHOLD_PX = 40;
/** How far a drag past the first or last item goes, as a fraction of the finger's travel. */
const RUBBER_BAND = 0.3;
/** Longest the window waits for the current template's play before preloading (see #scheduleWindow). */
const WINDOW_WAIT_MS = 300;
/** Longest a play waits for the pause of the template leaving focus. */
const PAUSE_WAIT_MS = 100;
const SNAP_EASING = 'cubic-bezier(0.2, 0.8, 0.2, 1)';

let nextSourceId = 1;

/** A vertical feed of templates; see the module comment. */
export class FeedController {
  readonly #container: HTMLElement;
  readonly #viewport: HTMLElement;
  readonly #track: HTMLElement;
  readonly #style: HTMLStyleElement;
  readonly #status: HTMLElement;
  readonly #events = new Emitter<FeedControllerEvents>();
  readonly #entries: Entry[] = [];
  readonly #live = new Map<number, Live>();
  readonly #swipe: SwipeTracker;
  readonly #loadTimeoutMs: number;
  readonly #frameCheckTimeoutMs: number;
  readonly #snapMs: number;
  readonly #sheetMs: number;
  readonly #callTimeoutMs: number;
  readonly #allowedOrigins: readonly string[];
  readonly #allow: string | undefined;
  readonly #touchRate: RateLimit;
  readonly #callRate: RateLimit;
  readonly #share: ((data: FeedShareData) => Promise<void>) | null;
  readonly #loadAhead: number;
  #loader: FeedLoader | null;
  #loaderAbort = new AbortController();
  #loaderBusy = false;
  #loaderRetryAtMs = 0;
  #ended = false;
  #index = -1;
  #direction: 1 | -1 = 1;
  #dragPx = 0;
  #settleTimer: ReturnType<typeof setTimeout> | undefined;
  #sheet: { view: PresentSheet; live: Live } | null = null;
  #shareSheet: ShareSheet | null = null;
  #wheelAccumulated = 0;
  #wheelLastMs = -Infinity;
  #wheelStepped = false;
  #destroyed = false;
  #windowDue = false;
  #windowTimer: ReturnType<typeof setTimeout> | undefined;
  #playInFlight = false;
  /** Set while pauses are on their way: plays wait for it (see #reconcilePlayback). */
  #pauseBarrier: Promise<unknown> | null = null;

  constructor(options: FeedControllerOptions) {
    const reducedMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.#container = options.container;
    this.#loadTimeoutMs = positive(options.loadTimeoutMs, 10_000, 'loadTimeoutMs');
    this.#frameCheckTimeoutMs = positive(options.frameCheckTimeoutMs, 3_000, 'frameCheckTimeoutMs');
    this.#snapMs = options.snapDurationMs ?? (reducedMotion ? 0 : 250);
    this.#sheetMs = options.sheetAnimationMs ?? (reducedMotion ? 0 : 280);
    this.#callTimeoutMs = options.callTimeoutMs ?? 5_000;
    this.#allowedOrigins = options.allowedOrigins ?? [];
    this.#allow = options.allow;
    this.#touchRate = options.touchRateLimit ?? DEFAULT_TOUCH_RATE;
    this.#callRate = options.callRateLimit ?? DEFAULT_CALL_RATE;
    this.#loadAhead = options.loadAhead ?? 3;
    this.#loader = options.loader ?? null;
    this.#swipe = new SwipeTracker(options.swipe);
    this.#share =
      options.share === undefined
        ? typeof navigator !== 'undefined' && typeof navigator.share === 'function'
          ? (data) => navigator.share(data)
          : null
        : options.share;

    this.#style = document.createElement('style');
    this.#style.textContent = FEED_STYLES;
    this.#viewport = document.createElement('div');
    this.#viewport.className = 'pk-feed-viewport';
    this.#viewport.setAttribute('role', 'feed');
    this.#viewport.tabIndex = 0;
    this.#track = document.createElement('div');
    this.#track.className = 'pk-feed-track';
    this.#status = document.createElement('div');
    this.#status.className = 'pk-visually-hidden';
    this.#status.setAttribute('role', 'status');
    this.#viewport.append(this.#track, this.#status);
    this.#container.append(this.#style, this.#viewport);

    for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel'] as const) {
      this.#viewport.addEventListener(type, this.#onHostTouch, { passive: true });
    }
    // Not passive: a wheel over the feed moves the feed, not the page around it.
    this.#viewport.addEventListener('wheel', this.#onWheel, { passive: false });
    this.#viewport.addEventListener('keydown', this.#onKeyDown);
    document.addEventListener('visibilitychange', this.#onVisibilityChange);

    this.#appendChecked((options.items ?? []).map(checkFeedItem));
    this.#sync();
  }

  // ---------------------------------------------------------------- reading

  /** Every item given so far (skipped ones included). */
  get items(): readonly FeedItem[] {
    return this.#entries.map((entry) => entry.item);
  }

  /** Index of the current item; -1 while the feed is empty. */
  get index(): number {
    return this.#index;
  }

  /** The current item. */
  get current(): FeedItem | undefined {
    return this.#entries[this.#index]?.item;
  }

  /** The element the feed draws in, with role feed: focus it for the keyboard. */
  get viewport(): HTMLElement {
    return this.#viewport;
  }

  /** Template iframes alive now: the window's (at most 3) and the sheet's. */
  get liveFrameCount(): number {
    return this.#live.size + (this.#sheet ? 1 : 0);
  }

  /** Indices of the live items, ascending. */
  get liveIndices(): number[] {
    return [...this.#live.keys()].sort((a, b) => a - b);
  }

  /** True once the loader said there is nothing more. */
  get ended(): boolean {
    return this.#ended;
  }

  /** True while a presented sheet is open. */
  get sheetOpen(): boolean {
    return this.#sheet !== null;
  }

  /** True while the share sheet is open. */
  get shareSheetOpen(): boolean {
    return this.#shareSheet !== null;
  }

  /** The frame of a live item, or null. */
  frameAt(index: number): TemplateFrame | null {
    return this.#live.get(index)?.frame ?? null;
  }

  /** The frame in the presented sheet, or null. */
  get sheetFrame(): TemplateFrame | null {
    return this.#sheet?.live.frame ?? null;
  }

  /** How the item at `index` stands. */
  statusAt(index: number): FeedItemStatus {
    const entry = this.#entries[index];
    if (!entry) throw new PlatformError('INVALID_ARGUMENT', `there is no item ${index}`);
    if (entry.skipped) return 'skipped';
    return this.#live.get(index)?.status ?? 'idle';
  }

  /** Whether the template at `index` (-1: the sheet's) was last told it plays. */
  isPlaying(index: number): boolean {
    return (index === -1 ? this.#sheet?.live.playing : this.#live.get(index)?.playing) ?? false;
  }

  /** Adds an event listener; returns its remover. */
  on<Name extends keyof FeedControllerEvents & string>(name: Name, listener: (payload: FeedControllerEvents[Name]) => void): () => void {
    return this.#events.on(name, listener);
  }

  // ---------------------------------------------------------------- changing

  /** Appends items (checked: an item without an http(s) url throws `INVALID_ARGUMENT` and none is added). */
  append(items: readonly FeedItem[]): void {
    this.#assertAlive();
    this.#appendChecked(items.map(checkFeedItem));
    this.#sync();
  }

  /** Replaces every item and starts again at the first; a loader in progress is abandoned. */
  setItems(items: readonly FeedItem[]): void {
    this.#assertAlive();
    const checked = items.map(checkFeedItem);
    this.#loaderAbort.abort();
    this.#loaderAbort = new AbortController();
    this.#loaderBusy = false;
    this.#ended = false;
    this.closeSheet();
    for (const index of [...this.#live.keys()]) this.#retire(index);
    this.#entries.length = 0;
    this.#index = -1;
    this.#swipe.reset();
    this.#dragPx = 0;
    this.#appendChecked(checked);
    this.#sync();
  }

  /** Replaces the loader (null: no more loading). */
  setLoader(loader: FeedLoader | null): void {
    this.#loader = loader;
    this.#ended = false;
    this.#sync();
  }

  /** Moves to the next item that is not skipped. False when there is none. */
  next(): boolean {
    return this.#step(1);
  }

  /** Moves to the previous item that is not skipped. False when there is none. */
  previous(): boolean {
    return this.#step(-1);
  }

  /** Moves to item `index` (or the nearest one after it that is not skipped). False when there is none. */
  goTo(index: number, options: { readonly animate?: boolean } = {}): boolean {
    this.#assertAlive();
    if (!Number.isInteger(index) || index < 0 || index >= this.#entries.length) return false;
    const target = this.#entries[index]?.skipped ? this.#nearest(index, 1) : index;
    if (target === null) return false;
    this.#moveTo(target, options.animate ?? true);
    return true;
  }

  /** Closes the presented sheet (its template is paused, then removed). */
  closeSheet(): void {
    const sheet = this.#sheet;
    if (!sheet) return;
    this.#sheet = null;
    this.#retireLive(sheet.live);
    void sheet.view.close();
    this.#reconcilePlayback();
    this.#events.emit('sheetclose', undefined);
    this.#viewport.focus({ preventScroll: true });
  }

  /** Closes the share sheet. */
  closeShareSheet(): void {
    this.#shareSheet?.close();
    this.#shareSheet = null;
  }

  /** Releases every frame, listener, timer and element the controller made. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#loaderAbort.abort();
    clearTimeout(this.#settleTimer);
    clearTimeout(this.#windowTimer);
    document.removeEventListener('visibilitychange', this.#onVisibilityChange);
    if (this.#sheet) {
      this.#destroyLive(this.#sheet.live);
      this.#sheet.view.element.remove();
      this.#sheet = null;
    }
    this.closeShareSheet();
    for (const live of this.#live.values()) this.#destroyLive(live);
    this.#live.clear();
    this.#viewport.remove();
    this.#style.remove();
    this.#events.clear();
  }

  // ---------------------------------------------------------------- the window

  #appendChecked(items: readonly FeedItem[]): void {
    for (const item of items) this.#entries.push({ item, src: feedItemSrc(item), skipped: false });
    for (const live of this.#live.values()) live.element.setAttribute('aria-setsize', String(this.#entries.length));
  }

  /** Brings the window, focus and playback in line with the current index. */
  #sync(): void {
    if (this.#destroyed) return;
    const currentEntry = this.#entries[this.#index];
    if (!currentEntry || currentEntry.skipped) {
      // The first item, or the current one was skipped: move on the way the user was going (else back).
      const first = this.#entries[0];
      const target =
        this.#index < 0
          ? first && !first.skipped
            ? 0
            : this.#nearest(0, 1)
          : (this.#nearest(this.#index, this.#direction) ?? this.#nearest(this.#index, this.#direction === 1 ? -1 : 1));
      if (target !== null) {
        const animate = this.#index >= 0;
        this.#index = target;
        this.#announce();
        this.#applyOffset(animate ? this.#snapMs : 0);
      }
    }
    // Pause before anything is removed or started, so a template leaving focus hears it first.
    this.#reconcilePlayback();
    const current = this.#entries[this.#index];
    if (current && !current.skipped && !this.#live.has(this.#index)) {
      // A jump past the preloaded neighbours: the current one is needed now (and the window must stay ≤ 3).
      const wanted = this.#wantedWindow();
      for (const index of [...this.#live.keys()]) if (!wanted.has(index)) this.#retire(index);
      this.#live.set(this.#index, this.#createItemLive(this.#index));
    }
    for (const live of this.#live.values()) this.#markCurrent(live);
    this.#reconcilePlayback();
    this.#scheduleWindow();
    this.#maybeLoadMore();
  }

  /** The current item and its nearest neighbours that are not skipped. */
  #wantedWindow(): Set<number> {
    const wanted = new Set<number>();
    if (this.#entries[this.#index] && !this.#entries[this.#index]?.skipped) {
      wanted.add(this.#index);
      const before = this.#nearest(this.#index, -1);
      const after = this.#nearest(this.#index, 1);
      if (before !== null) wanted.add(before);
      if (after !== null) wanted.add(after);
    }
    return wanted;
  }

  /**
   * Brings the window in line soon: retire what left it, preload what
   * entered. Why not at once: templates of one site share one renderer
   * process and main thread, so a neighbour starting to load (or one being
   * torn down) right at a swipe's end delays the pause and play the user is
   * waiting for by tens of milliseconds. So it waits until the current
   * template acknowledged its play, or it is clear none is coming
   * (loading, hidden tab), at most {@link WINDOW_WAIT_MS}.
   */
  #scheduleWindow(): void {
    this.#windowDue = true;
    const current = this.#live.get(this.#index);
    const playSettled = current !== undefined && current.playing && this.#pauseBarrier === null && !this.#playInFlight;
    if (!current || playSettled) {
      this.#updateWindow();
      return;
    }
    clearTimeout(this.#windowTimer);
    this.#windowTimer = setTimeout(() => this.#updateWindow(), WINDOW_WAIT_MS);
  }

  #updateWindow(): void {
    clearTimeout(this.#windowTimer);
    if (!this.#windowDue || this.#destroyed) return;
    this.#windowDue = false;
    const wanted = this.#wantedWindow();
    for (const index of [...this.#live.keys()]) if (!wanted.has(index)) this.#retire(index);
    // The current item first: it is the one the user waits for.
    for (const index of [...wanted].sort((a, b) => Math.abs(a - this.#index) - Math.abs(b - this.#index))) {
      if (!this.#live.has(index)) this.#live.set(index, this.#createItemLive(index));
    }
    for (const live of this.#live.values()) this.#markCurrent(live);
    this.#reconcilePlayback();
  }

  /** Nearest item after (`direction` 1) or before (-1) `index` that is not skipped. */
  #nearest(index: number, direction: 1 | -1): number | null {
    for (let i = index + direction; i >= 0 && i < this.#entries.length; i += direction) {
      if (!this.#entries[i]?.skipped) return i;
    }
    return null;
  }

  #step(direction: 1 | -1): boolean {
    this.#assertAlive();
    if (this.#index < 0) return false;
    const target = this.#nearest(this.#index, direction);
    if (target === null) {
      this.#maybeLoadMore();
      return false;
    }
    this.#moveTo(target, true);
    return true;
  }

  #moveTo(index: number, animate: boolean): void {
    if (index !== this.#index) {
      this.#direction = index > this.#index ? 1 : -1;
      this.#index = index;
      this.#swipe.reset();
      this.#announce();
    }
    this.#dragPx = 0;
    this.#applyOffset(animate ? this.#snapMs : 0);
    this.#sync();
  }

  #announce(): void {
    const entry = this.#entries[this.#index];
    if (!entry) return;
    this.#status.textContent = `Item ${this.#index + 1} of ${this.#entries.length}${entry.item.title ? `: ${entry.item.title}` : ''}`;
    this.#events.emit('focuschange', { index: this.#index, item: entry.item });
  }

  /** Moves the track to the current item plus the drag; animated over `durationMs` (0: at once). */
  #applyOffset(durationMs: number): void {
    clearTimeout(this.#settleTimer);
    this.#track.style.transition = durationMs > 0 ? `transform ${durationMs}ms ${SNAP_EASING}` : 'none';
    // Percentages of the track's own height (the viewport's): no measuring, and a resize needs nothing.
    this.#track.style.transform = `translate3d(0, calc(${-this.#index * 100}% + ${this.#dragPx}px), 0)`;
    this.#track.removeEventListener('transitionend', this.#onSettled);
    if (this.#dragPx !== 0) return;
    if (durationMs <= 0) {
      this.#settleTimer = setTimeout(() => this.#onSettled(), 0);
      return;
    }
    // The transition's own end, or a little after its length when it never runs (a hidden tab).
    this.#track.addEventListener('transitionend', this.#onSettled);
    this.#settleTimer = setTimeout(() => this.#onSettled(), durationMs + 100);
  }

  readonly #onSettled = (event?: Event): void => {
    // transitionend bubbles: a template's iframe fading in is not the track settling.
    if (event && (event.target !== this.#track || (event as TransitionEvent).propertyName !== 'transform')) return;
    clearTimeout(this.#settleTimer);
    this.#track.removeEventListener('transitionend', this.#onSettled);
    if (!this.#destroyed) this.#events.emit('settle', { index: this.#index });
  };

  #markCurrent(live: Live): void {
    const isCurrent = live.index === this.#index;
    live.element.setAttribute('aria-hidden', String(!isCurrent));
    // Neighbours are off screen: keep them out of the tab order.
    live.frame.iframe.tabIndex = isCurrent ? 0 : -1;
  }

  // ---------------------------------------------------------------- live templates

  #createItemLive(index: number): Live {
    const entry = this.#entries[index];
    if (!entry) throw new PlatformError('INTERNAL', `no item ${index}`);
    const element = document.createElement('div');
    element.className = 'pk-feed-item';
    element.setAttribute('role', 'article');
    element.setAttribute('aria-posinset', String(index + 1));
    element.setAttribute('aria-setsize', String(this.#entries.length));
    element.style.top = `${index * 100}%`;
    element.dataset['index'] = String(index);
    element.append(createLoading());
    this.#track.append(element);
    // The item's values belong to its own template, not to a page it navigated to.
    const values = entry.src === feedItemSrc(entry.item) ? entry.item.values : undefined;
    return this.#makeLive(index, element, entry.src, entry.item.title, false, values);
  }

  /** Makes a live template in `element` loading `src`, with its timers and handlers. */
  #makeLive(index: number, element: HTMLElement, src: string, title: string | undefined, checkFramable = false, values?: ValueOverrides): Live {
    const live = new Live(index, element, this.#touchRate, this.#callRate);
    this.#attachFrame(live, src, title, checkFramable, values);
    return live;
  }

  #attachFrame(live: Live, src: string, title: string | undefined, checkFramable: boolean, values?: ValueOverrides): void {
    const allow = this.#allowFor(live, src);
    const frame = new TemplateFrame({
      src,
      allowedOrigins: this.#allowedOrigins,
      callTimeoutMs: this.#callTimeoutMs,
      // Our own load timer decides; the frame's handshake timer only has to outlast it.
      handshakeTimeoutMs: this.#loadTimeoutMs + 1_000,
      handlers: this.#handlersFor(live),
      title: title ?? 'Template',
      ...(allow === undefined ? {} : { allow }),
    });
    frame.iframe.className = 'pk-feed-frame';
    live.frame = frame;
    live.src = src;
    live.status = 'loading';
    live.playing = false;
    live.element.classList.remove('is-loaded', 'is-unframeable');
    live.element.querySelector('.pk-feed-offer')?.remove();
    live.unsubscribe = [
      frame.on('load', () => this.#onLoaded(live)),
      frame.on('link', ({ relinked }) => {
        clearTimeout(live.checkTimer);
        if (live.status === 'unframeable') {
          live.status = 'loading';
          live.element.classList.remove('is-unframeable');
          live.element.querySelector('.pk-feed-offer')?.remove();
        }
        // A template that reloaded starts over: not playing, loading until it calls load() again.
        if (relinked) this.#onReloaded(live);
      }),
      // A template over the frame's limits is dropped for good (RATE_LIMITED): always reported, never throttled.
      frame.on('unlinked', ({ error }) => this.#events.emit('error', { index: live.index, error })),
    ];
    if (values) live.unsubscribe.push(...this.#attachValues(live, frame, values));
    live.element.append(frame.iframe);
    live.loadTimer = setTimeout(() => this.#onLoadTimeout(live), this.#loadTimeoutMs);
    if (checkFramable) live.checkTimer = setTimeout(() => this.#onUnframeable(live), this.#frameCheckTimeoutMs);
  }

  /**
   * Gives the item's template its values as a remix preview does: a
   * RemixSession (not remixing) attached to the frame re-sends them at every
   * (re)link, before the guest's ready(). Its handlers (setValue,
   * presentControl, finish, reportPointer) go through the feed's door.
   * Returns what releases it.
   */
  #attachValues(live: Live, frame: TemplateFrame, values: ValueOverrides): (() => void)[] {
    const session = new RemixSession({ values, remixing: false });
    const detach = session.attach(frame, {
      wrapHandler: (name: RemixCall, handler) => this.#guarded(live, name === 'reportPointer' ? 'touch' : 'call', handler),
    });
    // A template without InstantRemixing cannot describe itself: nothing for the feed's user to see.
    const stopErrors = session.on('error', (error) => this.#reportQuietly(error));
    return [detach, stopErrors];
  }

  /**
   * The `allow` attribute of a frame: the feed's for a page of the item's own
   * origin (the sheet: the focused item's), else undefined (TemplateFrame's
   * default). Why: permissions such as camera are granted under the feed's
   * name, so they must not follow a template to an arbitrary URL.
   */
  #allowFor(live: Live, src: string): string | undefined {
    if (this.#allow === undefined) return undefined;
    const entry = this.#entries[live.index === -1 ? this.#index : live.index];
    if (!entry) return undefined;
    return new URL(src).origin === new URL(entry.item.url).origin ? this.#allow : undefined;
  }

  #onLoaded(live: Live): void {
    if (!this.#isLive(live)) return;
    clearTimeout(live.loadTimer);
    clearTimeout(live.checkTimer);
    live.status = 'loaded';
    live.element.classList.add('is-loaded');
    live.element.classList.remove('is-unframeable');
    live.element.querySelector('.pk-feed-offer')?.remove();
    if (live.index === -1) this.#sheet?.view.setState('loaded', live.src);
    this.#reconcilePlayback();
  }

  #onReloaded(live: Live): void {
    if (!this.#isLive(live)) return;
    live.playing = false;
    live.status = 'loading';
    live.element.classList.remove('is-loaded');
    if (live.index === -1) this.#sheet?.view.setState('loading', live.src);
    clearTimeout(live.loadTimer);
    live.loadTimer = setTimeout(() => this.#onLoadTimeout(live), this.#loadTimeoutMs);
  }

  #onLoadTimeout(live: Live): void {
    if (!this.#isLive(live) || live.status !== 'loading') return;
    if (live.index === -1) {
      // A sheet the user opened is not skipped: show what there is.
      live.element.classList.add('is-loaded');
      return;
    }
    const entry = this.#entries[live.index];
    if (!entry) return;
    const error = new PlatformError('LOAD_TIMEOUT', `the template ${live.src} did not call load() within ${this.#loadTimeoutMs} ms; it was skipped`);
    entry.skipped = true;
    this.#retire(live.index);
    this.#events.emit('skip', { index: live.index, item: entry.item, reason: 'load-timeout', error });
    this.#sync();
  }

  #onUnframeable(live: Live): void {
    if (!this.#isLive(live) || live.frame.state !== 'loading') return;
    clearTimeout(live.loadTimer);
    live.status = 'unframeable';
    live.element.classList.add('is-unframeable');
    if (live.index === -1) this.#sheet?.view.setState('unframeable', live.src);
    else if (!live.element.querySelector('.pk-feed-offer')) live.element.append(createOpenOffer(live.src));
    this.#events.emit('unframeable', { index: live.index, url: live.src });
  }

  #isLive(live: Live): boolean {
    return live.index === -1 ? this.#sheet?.live === live : this.#live.get(live.index) === live;
  }

  /** Removes an item from the window. */
  #retire(index: number): void {
    const live = this.#live.get(index);
    if (!live) return;
    this.#live.delete(index);
    this.#retireLive(live);
  }

  /**
   * Removes a live template. Its document is discarded with its iframe, so
   * nothing is left that could believe it still plays; the pause a focus
   * change sent before is already on its way.
   */
  #retireLive(live: Live): void {
    if (live.playing) {
      live.playing = false;
      this.#events.emit('playbackchange', { index: live.index, isPlaying: false });
    }
    this.#destroyLive(live);
  }

  #destroyLive(live: Live): void {
    clearTimeout(live.loadTimer);
    clearTimeout(live.checkTimer);
    for (const unsubscribe of live.unsubscribe.splice(0)) unsubscribe();
    live.frame.destroy();
    if (live.index !== -1) live.element.remove();
  }

  /**
   * Tells each live template whether it plays. Falses go first: the template
   * leaving focus hears it before the next one starts.
   */
  #reconcilePlayback(): void {
    if (this.#destroyed) return;
    const pauses: Promise<void>[] = [];
    for (const live of this.#allLive()) {
      if (!live.playing || this.#wantsPlay(live)) continue;
      live.playing = false;
      this.#events.emit('playbackchange', { index: live.index, isPlaying: false });
      pauses.push(live.frame.notify('playbackStateChanged', false).catch((error: unknown) => this.#reportQuietly(error)));
    }
    if (pauses.length > 0) {
      // Two templates in two processes: "sent first" is not "heard first". The
      // next one plays once the one leaving focus has answered (its handler
      // ran), or after PAUSE_WAIT_MS when it is too busy to answer.
      const barrier: Promise<unknown> = Promise.race([Promise.all(pauses), new Promise((resolve) => setTimeout(resolve, PAUSE_WAIT_MS))]);
      this.#pauseBarrier = barrier;
      void barrier.then(() => {
        if (this.#pauseBarrier !== barrier) return;
        this.#pauseBarrier = null;
        this.#sendPlays();
      });
      return;
    }
    if (!this.#pauseBarrier) this.#sendPlays();
  }

  #sendPlays(): void {
    if (this.#destroyed) return;
    for (const live of this.#allLive()) {
      if (live.playing || !this.#wantsPlay(live)) continue;
      live.playing = true;
      this.#events.emit('playbackchange', { index: live.index, isPlaying: true });
      this.#playInFlight = true;
      const settled = (): void => {
        this.#playInFlight = false;
        // The play is heard: now the window may preload and retire (see #scheduleWindow).
        if (this.#windowDue) this.#updateWindow();
      };
      live.frame.notify('playbackStateChanged', true).then(settled, (error: unknown) => {
        this.#reportQuietly(error);
        settled();
      });
    }
  }

  #wantsPlay(live: Live): boolean {
    if (document.visibilityState === 'hidden' || live.status !== 'loaded') return false;
    if (live.index === -1) return this.#sheet?.live === live;
    return !this.#sheet && live.index === this.#index && this.#live.get(live.index) === live;
  }

  #allLive(): Live[] {
    return [...this.#live.values(), ...(this.#sheet ? [this.#sheet.live] : [])];
  }

  /** A notification lost to a reload or a destroyed frame: the next link re-sends state, so it is only logged. */
  #reportQuietly(error: unknown): void {
    if (isPlatformError(error) && (error.code === 'LINK_RESET' || error.code === 'LINK_CLOSED')) return;
    console.debug('platform-kit: a feed notification was not delivered', error);
  }

  // ---------------------------------------------------------------- guest calls

  /**
   * The door of a guest call: takes a token of `bucket` (`RATE_LIMITED`
   * without one), runs the handler and reports a refusal as an 'error' event.
   */
  #guarded(live: Live, bucket: 'touch' | 'call', run: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
    return (...args: unknown[]): unknown => {
      try {
        if (!(bucket === 'touch' ? live.touchBucket : live.callBucket).take()) {
          throw new PlatformError('RATE_LIMITED', `too many ${bucket === 'touch' ? 'input events' : 'calls'} from this template; slow down`);
        }
        return run(...args);
      } catch (error) {
        if (isPlatformError(error)) this.#reportRefusal(live, error);
        throw error;
      }
    };
  }

  #handlersFor(live: Live): HostHandlers {
    const guarded = (bucket: 'touch' | 'call', run: (...args: unknown[]) => unknown): ((...args: unknown[]) => unknown) => this.#guarded(live, bucket, run);
    const refuseOther = (name: string) => (): never => {
      throw new PlatformError('UNSUPPORTED', `the feed does not handle ${name}()`);
    };
    return {
      load: () => undefined,
      requestCancelTouch: guarded('call', () => this.#onCancelTouch(live)),
      navigate: guarded('call', (url) => this.#onNavigate(live, checkFeedUrl(url, 'navigate()'))),
      present: guarded('call', (url) => this.#onPresent(live, checkFeedUrl(url, 'present()'))),
      share: guarded('call', () => this.#onShare(live)),
      createRemix: guarded('call', (options) => this.#onCreateRemix(live, options)),
      touch: guarded('touch', (event) => this.#onGuestTouch(live, event)),
      wheel: guarded('touch', (event) => this.#onGuestWheel(live, event)),
      key: guarded('touch', (event) => this.#onGuestKey(live, event)),
      // InstantRemixing in a feed template reports clicks: harmless, and the feed opens no controls.
      // (An item with values has a RemixSession whose handlers sit over these four.)
      reportPointer: guarded('touch', () => undefined),
      setValue: refuseOther('setValue'),
      presentControl: refuseOther('presentControl'),
      finish: refuseOther('finish'),
    };
  }

  /** Reports a refused call as an 'error' event; a flood is reported at most once a second. */
  #reportRefusal(live: Live, error: PlatformError): void {
    if (error.code === 'RATE_LIMITED') {
      const now = performance.now();
      if (now - live.lastLimitReportMs < 1_000) return;
      live.lastLimitReportMs = now;
    }
    this.#events.emit('error', { index: live.index, error });
  }

  #assertFocused(live: Live, what: string): void {
    const focused = live.index === -1 ? this.#sheet?.live === live : !this.#sheet && live.index === this.#index;
    if (!focused || !this.#isLive(live)) throw new PlatformError('FORBIDDEN', `${what} is allowed only to the template in focus`);
  }

  #onCancelTouch(live: Live): void {
    if (live.index === -1) return; // a sheet's template already owns its touches
    const wasDragging = this.#swipe.cancel(live.sourceId);
    if (wasDragging) {
      this.#dragPx = 0;
      this.#applyOffset(this.#snapMs);
    }
    this.#events.emit('canceltouch', { index: live.index, wasDragging });
  }

  #onNavigate(live: Live, url: URL): void {
    if (!this.#isLive(live)) throw new PlatformError('LINK_CLOSED', 'this template is no longer in the feed');
    const src = url.toString();
    const wasPlaying = live.playing;
    for (const unsubscribe of live.unsubscribe.splice(0)) unsubscribe();
    clearTimeout(live.loadTimer);
    clearTimeout(live.checkTimer);
    // The caller's page is replaced at once (its answer may not arrive: it is being removed).
    const old = live.frame;
    setTimeout(() => old.destroy(), 0);
    if (live.index >= 0) {
      const entry = this.#entries[live.index];
      if (entry) entry.src = src;
    }
    this.#attachFrame(live, src, undefined, true);
    if (live.index >= 0) this.#markCurrent(live);
    if (wasPlaying) this.#events.emit('playbackchange', { index: live.index, isPlaying: false });
    if (live.index === -1) this.#sheet?.view.setState('loading', src);
    this.#events.emit('navigate', { index: live.index, url: src });
  }

  #onPresent(live: Live, url: URL): void {
    this.#assertFocused(live, 'present()');
    const src = url.toString();
    if (this.#sheet && live.index === -1) {
      // A present from inside the sheet replaces the sheet's view.
      this.#onNavigate(live, url);
      this.#events.emit('present', { url: src, replaced: true });
      return;
    }
    const view = new PresentSheet({
      container: this.#viewport,
      animationMs: this.#sheetMs,
      onCloseRequest: () => this.closeSheet(),
    });
    const sheetLive = this.#makeLive(-1, view.body, src, undefined, true);
    this.#sheet = { view, live: sheetLive };
    this.#swipe.reset();
    if (this.#dragPx !== 0) {
      this.#dragPx = 0;
      this.#applyOffset(this.#snapMs);
    }
    this.#reconcilePlayback();
    this.#events.emit('present', { url: src, replaced: false });
  }

  #onShare(live: Live): void {
    this.#assertFocused(live, 'share()');
    const entry = live.index >= 0 ? this.#entries[live.index] : undefined;
    const url = live.index === -1 ? live.src : (entry?.item.shareUrl ?? entry?.item.url ?? live.src);
    const data: FeedShareData = entry?.item.title === undefined ? { url } : { url, title: entry.item.title };
    const openSheet = (): void => {
      if (this.#destroyed) return;
      this.closeShareSheet();
      const sheetOptions = { container: this.#viewport, url, onClose: () => this.closeShareSheet() };
      this.#shareSheet = new ShareSheet(data.title === undefined ? sheetOptions : { ...sheetOptions, title: data.title });
      this.#events.emit('share', { index: live.index, data, method: 'sheet' });
    };
    const share = this.#share;
    if (!share) {
      openSheet();
      return;
    }
    // Not awaited: the system sheet settles when the user is done, long after the guest's call timeout.
    share(data).then(
      () => this.#events.emit('share', { index: live.index, data, method: 'web-share' }),
      (error: unknown) => {
        // The user closed the system sheet: done. Refused (no user activation, unsupported data): our sheet.
        if (error instanceof DOMException && error.name === 'AbortError') return;
        openSheet();
      },
    );
  }

  #onCreateRemix(live: Live, options: unknown): void {
    this.#assertFocused(live, 'createRemix()');
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new PlatformError('INVALID_ARGUMENT', 'createRemix() needs an options object');
    }
    const { id } = options as { id?: unknown };
    if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > 256)) {
      throw new PlatformError('INVALID_ARGUMENT', 'createRemix() id must be a non-empty string of at most 256 characters');
    }
    // From the sheet, "the current project" is the feed item's that presented it.
    const item = this.#entries[live.index === -1 ? this.#index : live.index]?.item;
    this.#events.emit('createremix', { index: live.index, item, projectId: (id as string | undefined) ?? item?.projectId ?? null });
  }

  // ---------------------------------------------------------------- moving

  #onGuestTouch(live: Live, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'touches are forwarded only after load()');
    const event = parseForwardedTouch(raw);
    if (live.index === -1 || !this.#isLive(live)) return;
    // Template CSS pixels → feed pixels, through where the iframe is now.
    const frameRect = live.frame.iframe.getBoundingClientRect();
    const viewportRect = this.#viewport.getBoundingClientRect();
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
        const mapped =
          offset && point.screenX !== undefined && point.screenY !== undefined
            ? { x: point.screenX + offset.x, y: point.screenY + offset.y }
            : fromClient(point);
        return { identifier: point.identifier, ...mapped };
      });
    if (event.touches.length === 0) live.screenOffsets.clear();
    const input: SwipeInput = { type: event.type, touches: map(event.touches), changedTouches: map(event.changedTouches) };
    this.#events.emit('touch', { index: live.index, type: input.type, touches: input.type === 'end' || input.type === 'cancel' ? input.changedTouches : input.touches });
    // The template's own event time: delivery comes in bursts (the browser hands touch moves over with
    // frames), and a finger that stopped before lifting must not read as a flick.
    this.#follow(live.sourceId, input, event.timeStamp ?? performance.now());
  }

  readonly #onHostTouch = (event: TouchEvent): void => {
    // Touches on the sheets belong to them.
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest('.pk-sheet, .pk-share')) return;
    const rect = this.#viewport.getBoundingClientRect();
    const map = (list: TouchList): SwipePoint[] =>
      Array.from(list, (touch) => ({ identifier: touch.identifier, x: touch.clientX - rect.left, y: touch.clientY - rect.top }));
    const type = ({ touchstart: 'start', touchmove: 'move', touchend: 'end', touchcancel: 'cancel' } as const)[event.type as 'touchstart'];
    this.#follow('host', { type, touches: map(event.touches), changedTouches: map(event.changedTouches) }, event.timeStamp);
  };

  /** Feeds one touch event of `source` (event time `timeMs` on that source's clock) to the swipe tracker and moves the feed. */
  #follow(source: string, input: SwipeInput, timeMs: number): void {
    if (this.#sheet || this.#index < 0) return;
    const update: SwipeUpdate = this.#swipe.handle(source, input, timeMs, this.#viewport.clientHeight);
    switch (update.kind) {
      case 'none':
        return;
      case 'drag': {
        const hasNeighbour = update.offsetPx > 0 ? this.#nearest(this.#index, -1) !== null : this.#nearest(this.#index, 1) !== null;
        const height = this.#viewport.clientHeight;
        const offset = hasNeighbour ? update.offsetPx : update.offsetPx * RUBBER_BAND;
        this.#dragPx = Math.max(-height, Math.min(height, offset));
        this.#applyOffset(0);
        return;
      }
      case 'release': {
        const direction = update.decision === 'next' ? 1 : update.decision === 'previous' ? -1 : 0;
        const target = direction === 0 ? null : this.#nearest(this.#index, direction);
        this.#dragPx = 0;
        if (target !== null) this.#moveTo(target, true);
        else {
          this.#applyOffset(this.#snapMs);
          if (direction === 1) this.#maybeLoadMore();
        }
        return;
      }
      case 'abandon':
        this.#dragPx = 0;
        this.#applyOffset(this.#snapMs);
        return;
    }
  }

  readonly #onWheel = (event: WheelEvent): void => {
    if (this.#sheet || this.#shareSheet) return;
    event.preventDefault();
    this.#wheel(event.deltaY, event.deltaMode);
  };

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
    const unit = deltaMode === WheelEvent.DOM_DELTA_LINE ? 16 : deltaMode === WheelEvent.DOM_DELTA_PAGE ? this.#viewport.clientHeight : 1;
    this.#wheelAccumulated += deltaY * unit;
    if (Math.abs(this.#wheelAccumulated) < WHEEL_THRESHOLD_PX) return;
    this.#wheelStepped = true;
    this.#step(this.#wheelAccumulated > 0 ? 1 : -1);
  }

  /**
   * A wheel event a template forwarded: it moves the feed like one over the
   * feed itself. Any live item's counts (not only the focused one's): a
   * trackpad's inertia goes on over the template the feed is leaving while
   * the snap runs, and must stay part of the same stream.
   */
  #onGuestWheel(live: Live, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'wheel events are forwarded only after load()');
    const event = parseForwardedWheel(raw);
    if (live.index === -1 || !this.#isLive(live) || this.#sheet || this.#shareSheet || this.#index < 0) return;
    this.#wheel(event.deltaY, event.deltaMode);
  }

  /**
   * A navigation key a template forwarded: it moves the feed like the key on
   * the feed itself. The feed then takes the keyboard focus, so the next key
   * moves it again instead of going to the template that left; a second key
   * already on its way from that template still counts (any live item's, as
   * for the wheel).
   */
  #onGuestKey(live: Live, raw: unknown): void {
    if (!live.frame.loaded) throw new PlatformError('INVALID_ARGUMENT', 'keys are forwarded only after load()');
    const event = parseForwardedKey(raw);
    if (live.index === -1 || !this.#isLive(live) || this.#sheet || this.#shareSheet || this.#index < 0) return;
    const direction = KEYS[event.key];
    if (direction === undefined) return;
    this.#step(direction);
    this.#viewport.focus({ preventScroll: true });
  }

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (this.#sheet || this.#shareSheet) return;
    const direction = KEYS[event.key];
    if (direction === undefined) return;
    event.preventDefault();
    this.#step(direction);
  };

  readonly #onVisibilityChange = (): void => {
    // A hidden tab pauses the focused template; showing it again resumes it.
    this.#reconcilePlayback();
  };

  // ---------------------------------------------------------------- loading more

  #maybeLoadMore(): void {
    const loader = this.#loader;
    if (!loader || this.#loaderBusy || this.#ended || this.#destroyed) return;
    if (this.#entries.length - 1 - Math.max(this.#index, 0) >= this.#loadAhead) return;
    if (performance.now() < this.#loaderRetryAtMs) return;
    this.#loaderBusy = true;
    const abort = this.#loaderAbort;
    const offset = this.#entries.length;
    Promise.resolve()
      .then(() => loader({ offset, signal: abort.signal }))
      .then(
        (items) => {
          if (abort.signal.aborted || this.#destroyed) return;
          this.#loaderBusy = false;
          if (!Array.isArray(items)) throw new PlatformError('INVALID_ARGUMENT', 'a feed loader must return a list of items');
          if (items.length === 0) {
            this.#ended = true;
            this.#events.emit('end', undefined);
            return;
          }
          const good: FeedItem[] = [];
          for (const item of items as unknown[]) {
            try {
              good.push(checkFeedItem(item));
            } catch (error) {
              // One bad item from a loader must not lose the good ones.
              this.#events.emit('error', { index: -1, error: error as PlatformError });
            }
          }
          this.#appendChecked(good);
          this.#sync();
        },
      )
      .catch((error: unknown) => {
        if (abort.signal.aborted || this.#destroyed) return;
        this.#loaderBusy = false;
        this.#loaderRetryAtMs = performance.now() + 1_000;
        const coded = isPlatformError(error) ? error : new PlatformError('INTERNAL', `the feed loader failed: ${String(error)}`, { cause: error });
        this.#events.emit('error', { index: -1, error: coded });
      });
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new PlatformError('LINK_CLOSED', 'the feed was destroyed');
  }
}

const KEYS: { readonly [key: string]: 1 | -1 } = {
  ArrowDown: 1,
  PageDown: 1,
  j: 1,
  ArrowUp: -1,
  PageUp: -1,
  k: -1,
};

/** The keys a template may forward: exactly the feed's navigation keys. */
const FORWARDED_KEYS: ReadonlySet<string> = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'j', 'k'] satisfies ForwardedKeyEvent['key'][]);

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new PlatformError('INVALID_ARGUMENT', `${name} must be a positive number`);
  return value;
}

/** Guard for a forwarded touch event: the type, at most {@link MAX_TOUCH_POINTS} points of finite numbers. */
function parseForwardedTouch(value: unknown): {
  type: SwipeInput['type'];
  touches: ForwardedTouchPoint[];
  changedTouches: ForwardedTouchPoint[];
  timeStamp: number | undefined;
} {
  if (typeof value !== 'object' || value === null) throw new PlatformError('INVALID_ARGUMENT', 'touch() needs an event object');
  const { type, touches, changedTouches, timeStamp } = value as Record<string, unknown>;
  if (type !== 'start' && type !== 'move' && type !== 'end' && type !== 'cancel') throw new PlatformError('INVALID_ARGUMENT', 'touch() type must be start, move, end or cancel');
  return { type, touches: parsePoints(touches), changedTouches: parsePoints(changedTouches), timeStamp: isFiniteNumber(timeStamp) ? timeStamp : undefined };
}

function parsePoints(value: unknown): ForwardedTouchPoint[] {
  if (!Array.isArray(value) || value.length > MAX_TOUCH_POINTS) throw new PlatformError('INVALID_ARGUMENT', `touch points must be a list of at most ${MAX_TOUCH_POINTS}`);
  return value.map((point: unknown) => {
    const { identifier, clientX, clientY, screenX, screenY } = (typeof point === 'object' && point !== null ? point : {}) as Record<string, unknown>;
    if (!Number.isSafeInteger(identifier) || !isFiniteNumber(clientX) || !isFiniteNumber(clientY)) {
      throw new PlatformError('INVALID_ARGUMENT', 'a touch point needs an integer identifier and finite clientX, clientY');
    }
    const parsed: ForwardedTouchPoint = { identifier: identifier as number, clientX, clientY };
    // Screen coordinates are optional, but only as a pair.
    return isFiniteNumber(screenX) && isFiniteNumber(screenY) ? { ...parsed, screenX, screenY } : parsed;
  });
}

/** Guard for a forwarded wheel event: finite deltas, a deltaMode of 0, 1 or 2, a finite timeStamp. */
function parseForwardedWheel(value: unknown): ForwardedWheelEvent {
  if (typeof value !== 'object' || value === null) throw new PlatformError('INVALID_ARGUMENT', 'wheel() needs an event object');
  const { deltaX, deltaY, deltaMode, timeStamp } = value as Record<string, unknown>;
  if (!isFiniteNumber(deltaX) || !isFiniteNumber(deltaY) || !isFiniteNumber(timeStamp)) {
    throw new PlatformError('INVALID_ARGUMENT', 'wheel() needs finite deltaX, deltaY and timeStamp');
  }
  if (deltaMode !== 0 && deltaMode !== 1 && deltaMode !== 2) throw new PlatformError('INVALID_ARGUMENT', 'wheel() deltaMode must be 0, 1 or 2');
  return { deltaX, deltaY, deltaMode, timeStamp };
}

/** Guard for a forwarded key: one of the feed's navigation keys. */
function parseForwardedKey(value: unknown): ForwardedKeyEvent {
  const key = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['key'] : undefined;
  if (typeof key !== 'string' || !FORWARDED_KEYS.has(key)) {
    throw new PlatformError('INVALID_ARGUMENT', 'key() needs {key} of ArrowUp, ArrowDown, PageUp, PageDown, j or k');
  }
  return { key: key as ForwardedKeyEvent['key'] };
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
