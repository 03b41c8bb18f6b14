/**
 * `FeedController`: a vertical feed of templates, each a cross-origin
 * iframe, without Lit (`<platform-feed>` is a thin element over it). This
 * file holds the feed's focus (which item is current, moving to another)
 * and its public API, and wires the pieces, each in its own file:
 *
 *   - `feed-window.ts`: the entries and the window of live frames (at most
 *     three: current, previous, next); `live-frame.ts`: one live template.
 *   - `feed-playback.ts`: who is told it plays (the template in focus).
 *   - `feed-gestures.ts` (with `forwarded-input.ts`, `swipe-tracker.ts`)
 *     and `feed-track.ts`: what moves the feed (touches, forwarded or not,
 *     the wheel, the keys), and how: a track moved by a transform, not a
 *     native scroller.
 *   - `guest-door.ts`: every call of a template, checked, rate limited and
 *     reported; `sheet-actions.ts`: navigate, present, share, createRemix;
 *     `remix-preview.ts`: an item's values, and onSetRemixing(false).
 *   - `infinite-loader.ts`: more items from the loader; `feed-message.ts`:
 *     what shows when there is no item to show.
 *   - `feed-actions.ts`: the feed's own Remix and Share buttons (the
 *     `actions` option), in a rail beside the items or over their corner,
 *     which the templates are told (insetsChanged).
 *
 * Model and rules:
 *   - Items are a list that only grows (append, or a loader callback for an
 *     infinite feed). One is current; it is the one template in focus unless
 *     a presented sheet covers it (then the sheet's template is). Focus moves
 *     when a swipe is released, not when the snap animation ends: the next
 *     template starts at once.
 *   - Load: an item shows a loading state until it calls load(); one that
 *     has not within `loadTimeoutMs` of its creation is skipped (reported
 *     with a 'skip' event) and the feed moves past it.
 *   - Guests are untrusted: every argument is checked at the door, calls are
 *     rate limited per frame (`RATE_LIMITED`), present, share and
 *     createRemix need the caller to be in focus (`FORBIDDEN`), and navigate
 *     and present accept only http(s) URLs (`INVALID_ARGUMENT`).
 */
import { PlatformError } from '../../protocol/errors.js';
import type { FeedInsets, ValueOverrides } from '../../protocol/link.js';
import { Emitter } from '../emitter.js';
import type { TemplateFrame } from '../template-frame.js';
import { FeedActions, type FeedAction } from './feed-actions.js';
import type { EmitFeedEvent, FeedControllerEvents, FeedItemStatus } from './feed-events.js';
import { FeedGestures } from './feed-gestures.js';
import { FeedMessage } from './feed-message.js';
import { checkFeedItem, type FeedItem } from './feed-items.js';
import { feedSettings, type FeedControllerOptions, type FeedLoader, type FeedSettings, type GetIdentityToken } from './feed-options.js';
import { FeedPlayback } from './feed-playback.js';
import { FEED_STYLES } from './feed-styles.js';
import { FeedTrack, keepUnscrolled } from './feed-track.js';
import { FeedWindow } from './feed-window.js';
import { GuestDoor, reportQuietly } from './guest-door.js';
import { InfiniteLoader } from './infinite-loader.js';
import { frameAllow, LiveFrame, type LiveFrameHooks } from './live-frame.js';
import { attachPreview } from './remix-preview.js';
import { SheetActions } from './sheet-actions.js';

export type { FeedControllerEvents, FeedItemStatus, SkipReason } from './feed-events.js';
export type { FeedControllerOptions, FeedLoader, FeedLoadRequest, FeedShareData, GetIdentityToken, RateLimit } from './feed-options.js';
export type { FeedAction } from './feed-actions.js';
export type { FeedInsets } from '../../protocol/link.js';

/** A vertical feed of templates; see the module comment. */
export class FeedController {
  readonly #container: HTMLElement;
  readonly #viewport: HTMLElement;
  readonly #style: HTMLStyleElement;
  readonly #status: HTMLElement;
  readonly #message = new FeedMessage();
  readonly #settings: FeedSettings;
  readonly #events = new Emitter<FeedControllerEvents>();
  readonly #emit: EmitFeedEvent = (name, payload) => this.#events.emit(name, payload);
  readonly #track: FeedTrack;
  readonly #window: FeedWindow;
  readonly #playback: FeedPlayback;
  readonly #gestures: FeedGestures;
  readonly #sheets: SheetActions;
  readonly #door: GuestDoor;
  readonly #loader: InfiniteLoader;
  readonly #actions: FeedActions;
  #getIdentityToken: GetIdentityToken | null;
  #index = -1;
  #direction: 1 | -1 = 1;
  #destroyed = false;

  constructor(options: FeedControllerOptions) {
    this.#container = options.container;
    const settings = (this.#settings = feedSettings(options));
    this.#getIdentityToken = options.getIdentityToken ?? null;
    const emit = this.#emit;
    const currentIndex = (): number => this.#index;
    const isLive = (live: LiveFrame): boolean => this.#isLive(live);
    const isFocused = (live: LiveFrame): boolean => this.#isFocused(live);

    this.#style = document.createElement('style');
    this.#style.textContent = FEED_STYLES;
    this.#viewport = document.createElement('div');
    this.#viewport.className = 'pk-feed-viewport';
    this.#viewport.setAttribute('role', 'feed');
    this.#viewport.tabIndex = 0;
    this.#track = new FeedTrack(currentIndex, () => {
      if (!this.#destroyed) emit('settle', { index: this.#index });
    });
    this.#status = document.createElement('div');
    this.#status.className = 'pk-visually-hidden';
    this.#status.setAttribute('role', 'status');
    this.#viewport.append(this.#track.element, this.#message.element, this.#status);
    this.#container.append(this.#style, this.#viewport);
    keepUnscrolled(this.#viewport);

    this.#playback = new FeedPlayback({
      allLive: () => [...this.#window.lives(), ...(this.#sheets.sheetLive ? [this.#sheets.sheetLive] : [])],
      isFocused,
      changed: (index, isPlaying) => emit('playbackchange', { index, isPlaying }),
      playHeard: () => {
        this.#window.update();
        this.#gestures.playHeard();
      },
    });
    const hooks: LiveFrameHooks = {
      isLive,
      loaded: (live) => {
        this.#window.loaded(live);
        this.#playback.reconcile();
        // The window waits for the current template's load before it preloads neighbours (FeedWindow.schedule).
        if (live.index === this.#index && this.#window.holds(live)) this.#window.schedule();
      },
      loadTimedOut: (live) => this.#skip(live),
      unframeable: (live) => emit('unframeable', { index: live.index, url: live.src }),
      unlinked: (live, error) => emit('error', { index: live.index, error }),
    };
    this.#window = new FeedWindow({
      track: this.#track.element,
      currentIndex,
      newLive: (index, element) => new LiveFrame(index, element, settings, hooks),
      attach: (live, src, attach) => this.#attach(live, src, attach),
      reconcilePlayback: () => this.#playback.reconcile(),
      playSettled: (live) => this.#playback.isSettled(live),
      retiring: (live) => this.#playback.forget(live),
    });
    this.#sheets = new SheetActions({
      viewport: this.#viewport,
      sheetMs: settings.sheetMs,
      share: settings.share,
      emit,
      currentIndex,
      entry: (index) => this.#window.entry(index),
      newSheetLive: (view) => new LiveFrame(-1, view.body, settings, hooks, view),
      attach: (live, src, attach) => this.#attach(live, src, attach),
      isLive,
      isFocused,
      markCurrent: (live) => this.#window.markCurrent(live),
      abandonGesture: () => this.#gestures.abandon(),
      reconcilePlayback: () => this.#playback.reconcile(),
      retiring: (live) => this.#playback.forget(live),
      isDestroyed: () => this.#destroyed,
    });
    this.#gestures = new FeedGestures(
      {
        viewport: this.#viewport,
        track: this.#track,
        snapMs: settings.snapMs,
        sheets: this.#sheets,
        emit,
        currentIndex,
        nearest: (index, direction) => this.#window.nearest(index, direction),
        moveTo: (index) => this.#moveTo(index, true),
        step: (direction) => void this.#step(direction),
        loadMore: () => this.#loader.maybeLoadMore(),
        isLive,
        currentLoaded: () => this.#window.live(this.#index)?.status === 'loaded',
      },
      options.swipe,
    );
    this.#door = new GuestDoor(
      { input: this.#gestures, actions: this.#sheets, identity: { getToken: (live) => this.#identityToken(live) } },
      (index, error) => emit('error', { index, error }),
    );
    // After the track in the viewport, under the sheets (z-index): a sheet covers them.
    this.#actions = new FeedActions(
      {
        viewport: this.#viewport,
        railMinWidth: settings.actionsRailMinWidth,
        run: (action) => (action === 'remix' ? this.#sheets.createRemixOf(this.#index) : this.#sheets.shareItem(this.#index)),
        insetsChanged: (insets) => {
          for (const live of this.#window.lives()) if (live.frame.state === 'linked' || live.frame.state === 'ready') this.#tellInsets(live, insets);
        },
      },
      settings.actions,
    );
    this.#track.element.after(this.#actions.element);
    this.#loader = new InfiniteLoader(
      {
        loadAhead: settings.loadAhead,
        emit,
        itemCount: () => this.#window.length,
        currentIndex,
        append: (items) => {
          this.#window.append(items);
          this.#sync();
        },
        changed: () => this.#showMessage(),
      },
      options.loader ?? null,
    );

    this.#window.append((options.items ?? []).map(checkFeedItem));
    this.#sync();
  }

  // ---------------------------------------------------------------- reading

  /** Every item given so far (skipped ones included). */
  get items(): readonly FeedItem[] {
    return this.#window.items;
  }

  /** Index of the current item; -1 while the feed is empty. */
  get index(): number {
    return this.#index;
  }

  /** The current item. */
  get current(): FeedItem | undefined {
    return this.#window.entry(this.#index)?.item;
  }

  /** The element the feed draws in, with role feed: focus it for the keyboard. */
  get viewport(): HTMLElement {
    return this.#viewport;
  }

  /** Template iframes alive now: the window's (at most 3) and the sheet's. */
  get liveFrameCount(): number {
    return this.#window.lives().length + (this.#sheets.sheetOpen ? 1 : 0);
  }

  /** Indices of the live items, ascending. */
  get liveIndices(): number[] {
    return this.#window.lives().map((live) => live.index).sort((a, b) => a - b);
  }

  /** The feed's own action buttons (the `actions` option). */
  get actions(): readonly FeedAction[] {
    return this.#actions.actions;
  }

  /** The corner of an item the feed's actions cover now, as told to the templates (0, 0 on a rail or without actions). */
  get insets(): FeedInsets {
    return this.#actions.insets;
  }

  /** True once the loader said there is nothing more. */
  get ended(): boolean {
    return this.#loader.ended;
  }

  /** True while a presented sheet is open. */
  get sheetOpen(): boolean {
    return this.#sheets.sheetOpen;
  }

  /** True while the share sheet is open. */
  get shareSheetOpen(): boolean {
    return this.#sheets.shareSheetOpen;
  }

  /** The frame of a live item, or null. */
  frameAt(index: number): TemplateFrame | null {
    return this.#window.live(index)?.frame ?? null;
  }

  /** The frame in the presented sheet, or null. */
  get sheetFrame(): TemplateFrame | null {
    return this.#sheets.sheetLive?.frame ?? null;
  }

  /** How the item at `index` stands. */
  statusAt(index: number): FeedItemStatus {
    const entry = this.#window.entry(index);
    if (!entry) throw new PlatformError('INVALID_ARGUMENT', `there is no item ${index}`);
    if (entry.skipped) return 'skipped';
    return this.#window.live(index)?.status ?? 'idle';
  }

  /** Whether the template at `index` (-1: the sheet's) was last told it plays. */
  isPlaying(index: number): boolean {
    return (index === -1 ? this.#sheets.sheetLive?.playing : this.#window.live(index)?.playing) ?? false;
  }

  /** Adds an event listener; returns its remover. */
  on<Name extends keyof FeedControllerEvents & string>(name: Name, listener: (payload: FeedControllerEvents[Name]) => void): () => void {
    return this.#events.on(name, listener);
  }

  // ---------------------------------------------------------------- changing

  /** Appends items (checked: an item without an http(s) url throws `INVALID_ARGUMENT` and none is added). */
  append(items: readonly FeedItem[]): void {
    this.#assertAlive();
    this.#window.append(items.map(checkFeedItem));
    this.#sync();
  }

  /** Replaces every item and starts again at the first; a loader in progress is abandoned. */
  setItems(items: readonly FeedItem[]): void {
    this.#assertAlive();
    const checked = items.map(checkFeedItem);
    this.#loader.restart();
    this.closeSheet();
    this.#window.clear();
    this.#index = -1;
    this.#gestures.reset();
    this.#track.dragPx = 0;
    this.#window.append(checked);
    this.#sync();
  }

  /** Replaces the feed's action buttons (checked: an unknown action throws `INVALID_ARGUMENT`); the templates are told the new insets. */
  setActions(actions: readonly FeedAction[]): void {
    this.#assertAlive();
    this.#actions.set(actions);
  }

  /** Replaces what answers the templates' `Platform.identity.getToken()` (null: nothing; they get `UNSUPPORTED`). */
  setGetIdentityToken(getIdentityToken: GetIdentityToken | null): void {
    this.#getIdentityToken = getIdentityToken;
  }

  /** Replaces the loader (null: no more loading). */
  setLoader(loader: FeedLoader | null): void {
    this.#loader.setLoader(loader);
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
    if (!Number.isInteger(index) || index < 0 || index >= this.#window.length) return false;
    const target = this.#window.entry(index)?.skipped ? this.#window.nearest(index, 1) : index;
    if (target === null) return false;
    this.#moveTo(target, options.animate ?? true);
    return true;
  }

  /**
   * Moves the feed by a wheel event the page heard outside it, e.g. over the
   * margins around a narrow feed: one step per wheel gesture, as over the
   * feed. It takes the event (preventDefault) unless a sheet is open or the
   * event was already taken.
   */
  handleWheel(event: WheelEvent): void {
    if (this.#destroyed || this.#index < 0) return;
    this.#gestures.pageWheel(event);
  }

  /** Closes the presented sheet (its template is paused, then removed). */
  closeSheet(): void {
    this.#sheets.closeSheet();
  }

  /** Closes the share sheet. */
  closeShareSheet(): void {
    this.#sheets.closeShareSheet();
  }

  /** Releases every frame, listener, timer and element the controller made. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#loader.stop();
    this.#actions.destroy();
    this.#playback.stop();
    this.#track.stop();
    this.#sheets.destroy();
    this.#window.destroy();
    this.#viewport.remove();
    this.#style.remove();
    this.#events.clear();
  }

  // ---------------------------------------------------------------- focus

  /** Brings the window, focus and playback in line with the current index. */
  #sync(): void {
    if (this.#destroyed) return;
    const currentEntry = this.#window.entry(this.#index);
    if (!currentEntry || currentEntry.skipped) {
      // The first item, or the current one was skipped: move on the way the user was going (else back).
      const first = this.#window.entry(0);
      const target =
        this.#index < 0
          ? first && !first.skipped
            ? 0
            : this.#window.nearest(0, 1)
          : (this.#window.nearest(this.#index, this.#direction) ?? this.#window.nearest(this.#index, this.#direction === 1 ? -1 : 1));
      if (target !== null) {
        const animate = this.#index >= 0;
        this.#index = target;
        this.#announce();
        this.#track.apply(animate ? this.#settings.snapMs : 0);
      }
    }
    // Pause before anything is removed or started, so a template leaving focus hears it first.
    this.#playback.reconcile();
    this.#window.showCurrent();
    this.#playback.reconcile();
    this.#window.schedule();
    this.#loader.maybeLoadMore();
    this.#showMessage();
  }

  /** With no item to show: loading while the loader is asked, else why there is none (announced too). */
  #showMessage(): void {
    const entry = this.#window.entry(this.#index);
    if (this.#destroyed) return;
    this.#actions.setShown(entry !== undefined && !entry.skipped);
    if (!this.#message.update(entry !== undefined && !entry.skipped, this.#loader)) return;
    if (this.#message.state !== 'none') this.#status.textContent = this.#message.element.textContent ?? '';
  }

  #step(direction: 1 | -1): boolean {
    this.#assertAlive();
    if (this.#index < 0) return false;
    const target = this.#window.nearest(this.#index, direction);
    if (target === null) {
      this.#loader.maybeLoadMore();
      return false;
    }
    this.#moveTo(target, true);
    return true;
  }

  #moveTo(index: number, animate: boolean): void {
    if (index !== this.#index) {
      this.#direction = index > this.#index ? 1 : -1;
      this.#index = index;
      this.#gestures.reset();
      this.#announce();
    }
    this.#track.dragPx = 0;
    this.#track.apply(animate ? this.#settings.snapMs : 0);
    this.#sync();
  }

  #announce(): void {
    const entry = this.#window.entry(this.#index);
    if (!entry) return;
    this.#status.textContent = `Item ${this.#index + 1} of ${this.#window.length}${entry.item.title ? `: ${entry.item.title}` : ''}`;
    this.#emit('focuschange', { index: this.#index, item: entry.item });
  }

  /** An item's template did not call load() in time: it is skipped and the feed moves past it. */
  #skip(live: LiveFrame): void {
    const error = new PlatformError('LOAD_TIMEOUT', `the template ${live.src} did not call load() within ${this.#settings.loadTimeoutMs} ms; it was skipped`);
    const entry = this.#window.skip(live.index);
    if (!entry) return;
    this.#emit('skip', { index: live.index, item: entry.item, reason: 'load-timeout', error });
    this.#sync();
  }

  #isLive(live: LiveFrame): boolean {
    return live.index === -1 ? this.#sheets.sheetLive === live : this.#window.holds(live);
  }

  /** The template in focus: the sheet's when one is open, else the current item's. */
  #isFocused(live: LiveFrame): boolean {
    if (live.index === -1) return this.#sheets.sheetLive === live;
    return !this.#sheets.sheetOpen && live.index === this.#index && this.#window.holds(live);
  }

  // ---------------------------------------------------------------- frames

  /** Gives `live` a frame loading `src`: the door's handlers, the feed's permissions, the item's values. */
  #attach(live: LiveFrame, src: string, options: { readonly title?: string | undefined; readonly checkFramable: boolean; readonly values?: ValueOverrides | undefined }): void {
    const values = options.values;
    live.attach({
      src,
      title: options.title,
      checkFramable: options.checkFramable,
      // The sheet's page is judged against the focused item's origin.
      allow: frameAllow(this.#settings.allow, this.#window.entry(live.index === -1 ? this.#index : live.index)?.item.url, src),
      handlers: this.#door.handlersFor(live),
      attachExtras: (frame: TemplateFrame) => [
        // A preview, never a remix: every template hears so after its ready() (see remix-preview.ts).
        ...attachPreview(frame, values, (name, handler) => this.#door.guarded(live, name === 'reportPointer' ? 'touch' : 'call', handler)),
        ...this.#attachInsets(live, frame),
      ],
    });
  }

  /**
   * Tells an item's template the corner the feed's actions cover: at every
   * (re)link, so it can lay out before it is shown, and again at its load()
   * (a FeedSdk made after the link had no listener yet). Changes reach every
   * linked item's template (FeedActions' insetsChanged). Only when something
   * is covered: a template told nothing reads 0. The sheet's template is
   * never covered (the sheet is over the actions).
   */
  #attachInsets(live: LiveFrame, frame: TemplateFrame): (() => void)[] {
    if (live.index === -1) return [];
    const tell = (): void => {
      const insets = this.#actions.insets;
      if (insets.right > 0 || insets.bottom > 0) this.#tellInsets(live, insets);
    };
    return [frame.on('link', tell), frame.on('load', tell)];
  }

  #tellInsets(live: LiveFrame, insets: FeedInsets): void {
    live.frame.request('insetsChanged', insets).catch((error: unknown) => reportQuietly(error));
  }

  /** A template's getIdentityToken(), through the door: the feed's getIdentityToken, for a page of the item's own origin. */
  #identityToken(live: LiveFrame): unknown {
    const getToken = this.#getIdentityToken;
    if (!getToken) throw new PlatformError('UNSUPPORTED', 'this feed gives no identity (its getIdentityToken is not set)');
    // The sheet's page is judged against the focused item's origin, as for `allow` (frameAllow).
    const itemUrl = this.#window.entry(live.index === -1 ? this.#index : live.index)?.item.url;
    if (itemUrl === undefined || new URL(live.src).origin !== new URL(itemUrl).origin) {
      throw new PlatformError('FORBIDDEN', "the viewer's identity is given only to pages of the item's own origin");
    }
    return getToken();
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new PlatformError('LINK_CLOSED', 'the feed was destroyed');
  }
}
