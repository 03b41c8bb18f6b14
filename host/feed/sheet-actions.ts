/**
 * The feed actions a template asks for, and the sheets they open:
 * navigate (replace its own page), present (a sheet over the feed with
 * another page), share (the system share or the feed's share sheet) and
 * createRemix (the 'createremix' event); and the same share and remix for
 * the feed's own buttons (`shareItem`, `createRemixOf`, from feed-actions.ts),
 * which need no focus check: the user pressed them. Apart from the window and the
 * gestures because these are the feed's answers to guests: checked for
 * focus (`FORBIDDEN`), with state of their own (the open sheets).
 *
 * Frame-ability of navigate and present targets: a page refused by
 * X-Frame-Options or CSP frame-ancestors still fires the iframe's 'load'
 * (with an error page), and a cross-origin window cannot be inspected, so
 * the load event proves nothing; reading the headers with fetch needs CORS
 * that exposes them, which almost no site does. So the rule is behavioural:
 * a target must say hello (be a template) within `frameCheckTimeoutMs`;
 * otherwise the user is offered to open it at browser level (LiveFrame's
 * frame check). A framable page that is not a template stays visible under
 * the offer.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { EmitFeedEvent } from './feed-events.js';
import type { FeedShareData } from './feed-options.js';
import type { FeedEntry } from './feed-window.js';
import type { AttachFrame, LiveFrame } from './live-frame.js';
import { PresentSheet } from './present-sheet.js';
import { ShareSheet } from './share-sheet.js';

/** What the sheet actions need of the feed. */
export interface SheetActionsHost {
  /** Where the sheets open. */
  readonly viewport: HTMLElement;
  readonly sheetMs: number;
  readonly share: ((data: FeedShareData) => Promise<void>) | null;
  readonly emit: EmitFeedEvent;
  currentIndex(): number;
  entry(index: number): FeedEntry | undefined;
  /** A new live template for a sheet, drawn in `view.body` and mirroring its status to `view`. */
  newSheetLive(view: PresentSheet): LiveFrame;
  attach: AttachFrame;
  isLive(live: LiveFrame): boolean;
  /** Whether `live` is the template in focus. */
  isFocused(live: LiveFrame): boolean;
  /** A navigated item's new frame: mark whether it is the current one (FeedWindow.markCurrent). */
  markCurrent(live: LiveFrame): void;
  /** A sheet opened: forget the gesture in progress (FeedGestures.abandon). */
  abandonGesture(): void;
  reconcilePlayback(): void;
  /** A live template is being removed (FeedPlayback.forget). */
  retiring(live: LiveFrame): void;
  isDestroyed(): boolean;
}

/** The actions and the sheets; see the module comment. */
export class SheetActions {
  readonly #host: SheetActionsHost;
  #sheet: { view: PresentSheet; live: LiveFrame } | null = null;
  #shareSheet: ShareSheet | null = null;

  constructor(host: SheetActionsHost) {
    this.#host = host;
  }

  /** True while a presented sheet is open. */
  get sheetOpen(): boolean {
    return this.#sheet !== null;
  }

  /** True while the share sheet is open. */
  get shareSheetOpen(): boolean {
    return this.#shareSheet !== null;
  }

  /** The presented sheet's template, or null. */
  get sheetLive(): LiveFrame | null {
    return this.#sheet?.live ?? null;
  }

  /** Closes the presented sheet (its template is paused, then removed). */
  closeSheet(): void {
    const sheet = this.#sheet;
    if (!sheet) return;
    this.#sheet = null;
    this.#host.retiring(sheet.live);
    sheet.live.destroy();
    void sheet.view.close();
    this.#host.reconcilePlayback();
    this.#host.emit('sheetclose', undefined);
    this.#host.viewport.focus({ preventScroll: true });
  }

  /** Closes the share sheet. */
  closeShareSheet(): void {
    this.#shareSheet?.close();
    this.#shareSheet = null;
  }

  /** Removes both sheets at once, with no events (the feed is destroyed). */
  destroy(): void {
    if (this.#sheet) {
      this.#sheet.live.destroy();
      this.#sheet.view.element.remove();
      this.#sheet = null;
    }
    this.closeShareSheet();
  }

  /** navigate(): the caller's page is replaced by `url` in the same place (item or sheet). */
  navigate(live: LiveFrame, url: URL): void {
    const host = this.#host;
    if (!host.isLive(live)) throw new PlatformError('LINK_CLOSED', 'this template is no longer in the feed');
    const src = url.toString();
    const wasPlaying = live.playing;
    // The caller's page is replaced at once (its answer may not arrive: it is being removed).
    const old = live.detachFrame();
    setTimeout(() => old.destroy(), 0);
    if (live.index >= 0) {
      const entry = host.entry(live.index);
      if (entry) entry.src = src;
    }
    host.attach(live, src, { checkFramable: true });
    if (live.index >= 0) host.markCurrent(live);
    if (wasPlaying) host.emit('playbackchange', { index: live.index, isPlaying: false });
    if (live.index === -1) this.#sheet?.view.setState('loading', src);
    host.emit('navigate', { index: live.index, url: src });
  }

  /** present(): a sheet over the feed showing `url`; from inside the sheet, its view is replaced. */
  present(live: LiveFrame, url: URL): void {
    this.#assertFocused(live, 'present()');
    const host = this.#host;
    const src = url.toString();
    if (this.#sheet && live.index === -1) {
      // A present from inside the sheet replaces the sheet's view.
      this.navigate(live, url);
      host.emit('present', { url: src, replaced: true });
      return;
    }
    const view = new PresentSheet({
      container: host.viewport,
      animationMs: host.sheetMs,
      onCloseRequest: () => this.closeSheet(),
    });
    const sheetLive = host.newSheetLive(view);
    host.attach(sheetLive, src, { checkFramable: true });
    this.#sheet = { view, live: sheetLive };
    host.abandonGesture();
    host.reconcilePlayback();
    host.emit('present', { url: src, replaced: false });
  }

  /** share(): the system share, else (or when it is refused) the feed's share sheet. */
  share(live: LiveFrame): void {
    this.#assertFocused(live, 'share()');
    const entry = live.index >= 0 ? this.#host.entry(live.index) : undefined;
    const url = live.index === -1 ? live.src : (entry?.item.shareUrl ?? entry?.item.url ?? live.src);
    this.#share(live.index, entry?.item.title === undefined ? { url } : { url, title: entry.item.title });
  }

  /** The feed's own Share button: item `index` (its shareUrl, else its url). */
  shareItem(index: number): void {
    const item = this.#host.entry(index)?.item;
    if (!item) return;
    const url = item.shareUrl ?? item.url;
    this.#share(index, item.title === undefined ? { url } : { url, title: item.title });
  }

  #share(index: number, data: FeedShareData): void {
    const host = this.#host;
    const { url } = data;
    const openSheet = (): void => {
      if (host.isDestroyed()) return;
      this.closeShareSheet();
      const sheetOptions = { container: host.viewport, url, onClose: () => this.closeShareSheet() };
      this.#shareSheet = new ShareSheet(data.title === undefined ? sheetOptions : { ...sheetOptions, title: data.title });
      host.emit('share', { index, data, method: 'sheet' });
    };
    const share = host.share;
    if (!share) {
      openSheet();
      return;
    }
    // Not awaited: the system sheet settles when the user is done, long after the guest's call timeout.
    share(data).then(
      () => host.emit('share', { index, data, method: 'web-share' }),
      (error: unknown) => {
        // The user closed the system sheet: done. Refused (no user activation, unsupported data): our sheet.
        if (error instanceof DOMException && error.name === 'AbortError') return;
        openSheet();
      },
    );
  }

  /** createRemix(): asks the host page to open the editor (the 'createremix' event). */
  createRemix(live: LiveFrame, options: unknown): void {
    this.#assertFocused(live, 'createRemix()');
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new PlatformError('INVALID_ARGUMENT', 'createRemix() needs an options object');
    }
    const { id } = options as { id?: unknown };
    if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > 256)) {
      throw new PlatformError('INVALID_ARGUMENT', 'createRemix() id must be a non-empty string of at most 256 characters');
    }
    // From the sheet, "the current project" is the feed item's that presented it.
    const item = this.#host.entry(live.index === -1 ? this.#host.currentIndex() : live.index)?.item;
    this.#host.emit('createremix', { index: live.index, item, projectId: id ?? item?.projectId ?? null });
  }

  /** The feed's own Remix button: asks the host page to open the editor for item `index`. */
  createRemixOf(index: number): void {
    const item = this.#host.entry(index)?.item;
    if (!item) return;
    this.#host.emit('createremix', { index, item, projectId: item.projectId ?? null });
  }

  #assertFocused(live: LiveFrame, what: string): void {
    if (!this.#host.isFocused(live)) throw new PlatformError('FORBIDDEN', `${what} is allowed only to the template in focus`);
  }
}
