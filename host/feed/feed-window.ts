/**
 * The window of live frames: the feed's entries (every item given, with
 * what its frame loads and whether it was skipped) and the at most three
 * items that have a live template (current, previous, next). Neighbours
 * are made once the current template has loaded, so they load before they
 * come into view; an item that leaves it is destroyed. Apart from the controller
 * because which frames exist, and when they are made, is its own rule
 * (preloading waits for the current template's play; see {@link schedule}).
 *
 * A preloaded neighbour, once loaded (it called load()), is drawn once under
 * the current item, then put back in its place (see {@link FeedWindow.loaded}):
 * the browser does not render a cross-origin frame that is out of view at
 * all, so a neighbour kept off screen was drawn for the first time when a
 * swipe brought it into view, 50 to 90 ms (3 frames) of black following the
 * finger (issue 18, bench/demo-start). Drawn once, the browser shows its
 * last frame as it comes into view, while it renders the next. Only after
 * load(), and only for {@link WARM_FRAMES} frames: a neighbour shares the
 * current template's renderer (one per site), whose main thread should not
 * draw a page still being built, frame after frame.
 */
import { PlatformError } from '../../protocol/errors.js';
import { feedItemSrc, type FeedItem } from './feed-items.js';
import type { AttachFrame, LiveFrame } from './live-frame.js';
import { createLoading } from './present-sheet.js';

/** Longest the window waits for the current template's play before preloading (see {@link FeedWindow.schedule}). */
const WINDOW_WAIT_MS = 300;
/** Host frames a loaded neighbour is drawn under the current item (see {@link FeedWindow.loaded}). */
const WARM_FRAMES = 3;

/** One item of the feed. */
export interface FeedEntry {
  readonly item: FeedItem;
  /** What the item's frame loads: the item's URL with its context, or where it navigated. */
  src: string;
  skipped: boolean;
}

/** What the window needs of the feed. */
export interface FeedWindowHost {
  /** The element items are placed in (the track). */
  readonly track: HTMLElement;
  /** The current item's index (-1: none yet). */
  currentIndex(): number;
  /** A new live template for item `index`, drawn in `element` (no frame yet). */
  newLive(index: number, element: HTMLElement): LiveFrame;
  attach: AttachFrame;
  /** Tells the live templates whether they play (FeedPlayback.reconcile). */
  reconcilePlayback(): void;
  /** Whether `live` plays and its play was heard (FeedPlayback.isSettled). */
  playSettled(live: LiveFrame): boolean;
  /** A live template is being removed (FeedPlayback.forget). */
  retiring(live: LiveFrame): void;
}

/** The entries and the window; see the module comment. */
export class FeedWindow {
  readonly #host: FeedWindowHost;
  readonly #entries: FeedEntry[] = [];
  readonly #live = new Map<number, LiveFrame>();
  /** Neighbours drawn under the current item (class `is-warming`), with the animation frame that counts. */
  readonly #warming = new Map<LiveFrame, number>();
  #due = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(host: FeedWindowHost) {
    this.#host = host;
  }

  /** Every item given so far (skipped ones included). */
  get items(): FeedItem[] {
    return this.#entries.map((entry) => entry.item);
  }

  get length(): number {
    return this.#entries.length;
  }

  entry(index: number): FeedEntry | undefined {
    return this.#entries[index];
  }

  /** The live template of item `index`, if any. */
  live(index: number): LiveFrame | undefined {
    return this.#live.get(index);
  }

  /** The live templates of the window. */
  lives(): LiveFrame[] {
    return [...this.#live.values()];
  }

  /** Whether `live` is the live template of its item. */
  holds(live: LiveFrame): boolean {
    return this.#live.get(live.index) === live;
  }

  /** Appends checked items. */
  append(items: readonly FeedItem[]): void {
    for (const item of items) this.#entries.push({ item, src: feedItemSrc(item), skipped: false });
    for (const live of this.#live.values()) live.element.setAttribute('aria-setsize', String(this.#entries.length));
  }

  /** Removes every item and its live template. */
  clear(): void {
    for (const index of [...this.#live.keys()]) this.retire(index);
    this.#entries.length = 0;
  }

  /** Nearest item after (`direction` 1) or before (-1) `index` that is not skipped. */
  nearest(index: number, direction: 1 | -1): number | null {
    for (let i = index + direction; i >= 0 && i < this.#entries.length; i += direction) {
      if (!this.#entries[i]?.skipped) return i;
    }
    return null;
  }

  /**
   * Makes the current item live at once if it is not (a jump past the
   * preloaded neighbours: it is needed now), retiring what is not wanted
   * first so the window stays ≤ 3; marks which one is current.
   */
  showCurrent(): void {
    const index = this.#host.currentIndex();
    const current = this.#entries[index];
    if (current && !current.skipped && !this.#live.has(index)) {
      const wanted = this.#wanted();
      for (const other of [...this.#live.keys()]) if (!wanted.has(other)) this.retire(other);
      this.#live.set(index, this.#createLive(index));
    }
    for (const live of this.#live.values()) this.markCurrent(live);
  }

  /**
   * Brings the window in line soon: retire what left it, preload what
   * entered. Why not at once: templates of one site share one renderer
   * process and main thread, so a neighbour starting to load (or one being
   * torn down) right at a swipe's end delays the pause and play the user is
   * waiting for by tens of milliseconds. So it waits until the current
   * template acknowledged its play, or it is clear none is coming (hidden
   * tab), at most {@link WINDOW_WAIT_MS}. A current template still loading
   * is waited for until it loads (the feed calls this again then) or is
   * skipped, not a fixed time: at the feed's start, neighbours made at
   * 300 ms loaded in the same renderer process as the first template while
   * it was still loading, and it was shown later (issue 18).
   */
  schedule(): void {
    this.#due = true;
    const current = this.#live.get(this.#host.currentIndex());
    if (!current || this.#host.playSettled(current)) {
      this.update();
      return;
    }
    clearTimeout(this.#timer);
    if (current.status === 'loading') return;
    this.#timer = setTimeout(() => this.update(), WINDOW_WAIT_MS);
  }

  /** Brings the window in line now, if it is due (see {@link schedule}). */
  update(): void {
    clearTimeout(this.#timer);
    if (!this.#due || this.#stopped) return;
    this.#due = false;
    const index = this.#host.currentIndex();
    const wanted = this.#wanted();
    for (const other of [...this.#live.keys()]) if (!wanted.has(other)) this.retire(other);
    // The current item first: it is the one the user waits for.
    for (const next of [...wanted].sort((a, b) => Math.abs(a - index) - Math.abs(b - index))) {
      if (!this.#live.has(next)) this.#live.set(next, this.#createLive(next));
    }
    for (const live of this.#live.values()) this.markCurrent(live);
    this.#host.reconcilePlayback();
  }

  /** Marks item `index` skipped and removes its template; returns its entry (undefined: no such item). */
  skip(index: number): FeedEntry | undefined {
    const entry = this.#entries[index];
    if (!entry) return undefined;
    entry.skipped = true;
    this.retire(index);
    return entry;
  }

  /** Removes item `index`'s template from the window. */
  retire(index: number): void {
    const live = this.#live.get(index);
    if (!live) return;
    this.#live.delete(index);
    this.#unwarm(live);
    this.#host.retiring(live);
    live.destroy();
  }

  /**
   * A template called load() (its first render is done): a neighbour is
   * drawn under the current item for {@link WARM_FRAMES} frames of this page
   * (the browser renders it once it is in view, and its frame follows within
   * them), then goes back to its place.
   */
  loaded(live: LiveFrame): void {
    const index = this.#host.currentIndex();
    if (!this.holds(live) || live.index === index || index < 0 || this.#warming.has(live) || document.visibilityState === 'hidden') return;
    live.element.classList.add('is-warming');
    live.element.style.top = `${index * 100}%`;
    let frames = WARM_FRAMES;
    const tick = (): void => {
      if (!this.#warming.has(live)) return;
      if (--frames > 0) this.#warming.set(live, requestAnimationFrame(tick));
      else this.#unwarm(live);
    };
    this.#warming.set(live, requestAnimationFrame(tick));
  }

  /** Shows whether `live` is the current item's: only it is visible to assistive technology and in the tab order. */
  markCurrent(live: LiveFrame): void {
    const isCurrent = live.index === this.#host.currentIndex();
    // The current item is always at its own place; a neighbour being drawn stays under it.
    if (isCurrent) this.#unwarm(live);
    else if (this.#warming.has(live)) live.element.style.top = `${this.#host.currentIndex() * 100}%`;
    live.element.setAttribute('aria-hidden', String(!isCurrent));
    // Neighbours are off screen: keep them out of the tab order.
    live.frame.iframe.tabIndex = isCurrent ? 0 : -1;
  }

  /** Destroys every live template, with no events; the window does nothing after. */
  destroy(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const frame of this.#warming.values()) cancelAnimationFrame(frame);
    this.#warming.clear();
    for (const live of this.#live.values()) live.destroy();
    this.#live.clear();
  }

  /** Puts a neighbour drawn under the current item back in its place. */
  #unwarm(live: LiveFrame): void {
    const frame = this.#warming.get(live);
    if (frame === undefined) return;
    cancelAnimationFrame(frame);
    this.#warming.delete(live);
    live.element.classList.remove('is-warming');
    live.element.style.top = `${live.index * 100}%`;
  }

  /** The current item and its nearest neighbours that are not skipped. */
  #wanted(): Set<number> {
    const index = this.#host.currentIndex();
    const wanted = new Set<number>();
    if (this.#entries[index] && !this.#entries[index]?.skipped) {
      wanted.add(index);
      const before = this.nearest(index, -1);
      const after = this.nearest(index, 1);
      if (before !== null) wanted.add(before);
      if (after !== null) wanted.add(after);
    }
    return wanted;
  }

  #createLive(index: number): LiveFrame {
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
    this.#host.track.append(element);
    const live = this.#host.newLive(index, element);
    // The item's values belong to its own template, not to a page it navigated to.
    const values = entry.src === feedItemSrc(entry.item) ? entry.item.values : undefined;
    this.#host.attach(live, entry.src, { title: entry.item.title, checkFramable: false, values });
    return live;
  }
}
