/**
 * `FeedController`: a vertical feed of templates, each a cross-origin
 * iframe, without Lit (`<platform-feed>` is a thin element over it). This
 * file holds the feed's public API and wires the pieces, each in its own
 * file:
 *
 *   - `feed-focus.ts`: which item is current, moving to another (and past
 *     a skipped one), announcing it.
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
 *   - `feed-identity.ts`: the viewer's identity token, for pages of the
 *     item's own origin only.
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
import { FeedFocus } from './feed-focus.js';
import { FeedGestures } from './feed-gestures.js';
import { FeedIdentity } from './feed-identity.js';
import { FeedMessage } from './feed-message.js';
import { checkFeedItem, type FeedItem } from './feed-items.js';
import { feedSettings, type FeedControllerOptions, type FeedLoader, type FeedSettings, type GetIdentityToken } from './feed-options.js';
import { FeedPlayback } from './feed-playback.js';
import { FEED_STYLES } from './feed-styles.js';
import { FeedTrack, keepUnscrolled } from './feed-track.js';
import { FeedWindow } from './feed-window.js';
import { GuestDoor } from './guest-door.js';
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
  readonly #focus: FeedFocus;
  readonly #identity: FeedIdentity;
  #destroyed = false;

  constructor(options: FeedControllerOptions) {
    this.#container = options.container;
    const settings = (this.#settings = feedSettings(options));
    this.#identity = new FeedIdentity(options.getIdentityToken ?? null, (live) => this.#itemUrlOf(live));
    const emit = this.#emit;
    const currentIndex = (): number => this.#focus.index;
    const isLive = (live: LiveFrame): boolean => this.#isLive(live);
    const isFocused = (live: LiveFrame): boolean => this.#isFocused(live);

    this.#style = document.createElement('style');
    this.#style.textContent = FEED_STYLES;
    this.#viewport = document.createElement('div');
    this.#viewport.className = 'pk-feed-viewport';
    this.#viewport.setAttribute('role', 'feed');
    this.#viewport.tabIndex = 0;
    this.#track = new FeedTrack(currentIndex, () => {
      if (!this.#destroyed) emit('settle', { index: this.#focus.index });
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
        if (live.index === this.#focus.index && this.#window.holds(live)) this.#window.schedule();
      },
      loadTimedOut: (live) => this.#focus.skip(live),
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
    this.#focus = new FeedFocus({
      window: this.#window,
      track: this.#track,
      status: this.#status,
      message: this.#message,
      snapMs: settings.snapMs,
      loadTimeoutMs: settings.loadTimeoutMs,
      emit,
      isDestroyed: () => this.#destroyed,
      assertAlive: () => this.#assertAlive(),
      reconcilePlayback: () => this.#playback.reconcile(),
      loadMore: () => this.#loader.maybeLoadMore(),
      loaderState: () => this.#loader,
      resetGesture: () => this.#gestures.reset(),
      setActionsShown: (shown) => this.#actions.setShown(shown),
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
        moveTo: (index) => this.#focus.moveTo(index, true),
        step: (direction) => void this.#focus.step(direction),
        loadMore: () => this.#loader.maybeLoadMore(),
        isLive,
        isFocused,
        currentLoaded: () => this.#window.live(this.#focus.index)?.status === 'loaded',
      },
      options.swipe,
    );
    this.#door = new GuestDoor({ input: this.#gestures, actions: this.#sheets, identity: this.#identity }, (index, error) => emit('error', { index, error }));
    // After the track in the viewport, under the sheets (z-index): a sheet covers them.
    this.#actions = new FeedActions(
      {
        viewport: this.#viewport,
        railMinWidth: settings.actionsRailMinWidth,
        run: (action) => (action === 'remix' ? this.#sheets.createRemixOf(this.#focus.index) : this.#sheets.shareItem(this.#focus.index)),
        itemFrames: () => this.#window.lives().map((live) => live.frame),
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
          this.#focus.sync();
        },
        changed: () => this.#focus.showMessage(),
      },
      options.loader ?? null,
    );

    this.#window.append((options.items ?? []).map(checkFeedItem));
    this.#focus.sync();
  }

  // ---------------------------------------------------------------- reading

  /** Every item given so far (skipped ones included). */
  get items(): readonly FeedItem[] {
    return this.#window.items;
  }

  /** Index of the current item; -1 while the feed is empty. */
  get index(): number {
    return this.#focus.index;
  }

  /** The current item. */
  get current(): FeedItem | undefined {
    return this.#window.entry(this.#focus.index)?.item;
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
    return this.#window
      .lives()
      .map((live) => live.index)
      .sort((a, b) => a - b);
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
    this.#focus.sync();
  }

  /** Replaces every item and starts again at the first; a loader in progress is abandoned. */
  setItems(items: readonly FeedItem[]): void {
    this.#assertAlive();
    const checked = items.map(checkFeedItem);
    this.#loader.restart();
    this.closeSheet();
    this.#window.clear();
    this.#focus.reset();
    this.#gestures.reset();
    this.#track.dragPx = 0;
    this.#window.append(checked);
    this.#focus.sync();
  }

  /** Replaces the feed's action buttons (checked: an unknown action throws `INVALID_ARGUMENT`); the templates are told the new insets. */
  setActions(actions: readonly FeedAction[]): void {
    this.#assertAlive();
    this.#actions.set(actions);
  }

  /** Replaces what answers the templates' `Platform.identity.getToken()` (null: nothing; they get `UNSUPPORTED`). */
  setGetIdentityToken(getIdentityToken: GetIdentityToken | null): void {
    this.#identity.set(getIdentityToken);
  }

  /** Replaces the loader (null: no more loading). */
  setLoader(loader: FeedLoader | null): void {
    this.#loader.setLoader(loader);
    this.#focus.sync();
  }

  /** Moves to the next item that is not skipped. False when there is none. */
  next(): boolean {
    return this.#focus.step(1);
  }

  /** Moves to the previous item that is not skipped. False when there is none. */
  previous(): boolean {
    return this.#focus.step(-1);
  }

  /** Moves to item `index` (or the nearest one after it that is not skipped). False when there is none. */
  goTo(index: number, options: { readonly animate?: boolean } = {}): boolean {
    this.#assertAlive();
    if (!Number.isInteger(index) || index < 0 || index >= this.#window.length) return false;
    const target = this.#window.entry(index)?.skipped ? this.#window.nearest(index, 1) : index;
    if (target === null) return false;
    this.#focus.moveTo(target, options.animate ?? true);
    return true;
  }

  /**
   * Moves the feed by a wheel event the page heard outside it, e.g. over the
   * margins around a narrow feed: one step per wheel gesture, as over the
   * feed. It takes the event (preventDefault) unless a sheet is open or the
   * event was already taken.
   */
  handleWheel(event: WheelEvent): void {
    if (this.#destroyed || this.#focus.index < 0) return;
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
    this.#gestures.destroy();
    this.#actions.destroy();
    this.#playback.stop();
    this.#track.stop();
    this.#sheets.destroy();
    this.#window.destroy();
    this.#viewport.remove();
    this.#style.remove();
    this.#events.clear();
  }

  // ---------------------------------------------------------------- frames

  #isLive(live: LiveFrame): boolean {
    return live.index === -1 ? this.#sheets.sheetLive === live : this.#window.holds(live);
  }

  /** The template in focus: the sheet's when one is open, else the current item's. */
  #isFocused(live: LiveFrame): boolean {
    if (live.index === -1) return this.#sheets.sheetLive === live;
    return !this.#sheets.sheetOpen && live.index === this.#focus.index && this.#window.holds(live);
  }

  /** The url of the item `live` stands for; the sheet's page is judged against the focused item's (for `allow` and the identity). */
  #itemUrlOf(live: LiveFrame): string | undefined {
    return this.#window.entry(live.index === -1 ? this.#focus.index : live.index)?.item.url;
  }

  /** Gives `live` a frame loading `src`: the door's handlers, the feed's permissions, the item's values. */
  #attach(live: LiveFrame, src: string, options: { readonly title?: string | undefined; readonly checkFramable: boolean; readonly values?: ValueOverrides | undefined }): void {
    const values = options.values;
    live.attach({
      src,
      title: options.title,
      checkFramable: options.checkFramable,
      allow: frameAllow(this.#settings.allow, this.#itemUrlOf(live), src),
      handlers: this.#door.handlersFor(live),
      attachExtras: (frame: TemplateFrame) => [
        // A preview, never a remix: every template hears so after its ready() (see remix-preview.ts).
        ...attachPreview(frame, values, (name, handler) => this.#door.guarded(live, name === 'reportPointer' ? 'touch' : 'call', handler)),
        // The sheet is over the feed's actions: its template is never told insets.
        ...(live.index === -1 ? [] : this.#actions.tellOnLink(frame)),
      ],
    });
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new PlatformError('LINK_CLOSED', 'the feed was destroyed');
  }
}
