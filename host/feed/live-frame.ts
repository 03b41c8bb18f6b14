/**
 * One live template of the feed: an item's (index ≥ 0) or the presented
 * sheet's (index -1), with its TemplateFrame, its status (loading, loaded,
 * unframeable), its load and frame-check timers, its rate buckets and its
 * touches' screen offsets. Apart from the window because the sheet's
 * template is one too, and its lifecycle (a load timeout, a reload, a
 * navigation that swaps its frame) is the same wherever it is shown; the
 * feed hears what happens through {@link LiveFrameHooks}.
 */
import type { PlatformError } from '../../protocol/errors.js';
import type { ValueOverrides } from '../../protocol/link.js';
import { TemplateFrame, type HostHandlers } from '../template-frame.js';
import { createOpenOffer } from './present-sheet.js';
import { TokenBucket, type RateLimit } from './rate-limiter.js';

/** What every live frame is made with. */
export interface LiveFrameSettings {
  readonly allowedOrigins: readonly string[];
  readonly templateProjectId: string | undefined;
  readonly callTimeoutMs: number;
  readonly loadTimeoutMs: number;
  readonly frameCheckTimeoutMs: number;
  readonly touchRate: RateLimit;
  readonly callRate: RateLimit;
}

/** What a live frame tells the feed. Each is called only while the frame is still live (`isLive`). */
export interface LiveFrameHooks {
  /** Whether `live` is still shown (an item's in the window, or the sheet's); a stale one's events are dropped. */
  isLive(live: LiveFrame): boolean;
  /** The template called load(). */
  loaded(live: LiveFrame): void;
  /** An item's template did not call load() within the load timeout. */
  loadTimedOut(live: LiveFrame): void;
  /** A navigate or present target did not say hello within the frame-check timeout. */
  unframeable(live: LiveFrame): void;
  /** The frame dropped its guest for good (over its limits). */
  unlinked(live: LiveFrame, error: PlatformError): void;
}

/** The view a sheet's live frame mirrors its status to (PresentSheet). */
export interface LiveFrameView {
  setState(state: 'loading' | 'loaded' | 'unframeable', url: string): void;
}

/** What a new frame of a live template loads, and what it answers with. */
export interface FrameSource {
  readonly src: string;
  readonly title: string | undefined;
  /** Offer to open the page in the browser when it does not say hello in time (navigate, present). */
  readonly checkFramable: boolean;
  /** The iframe's `allow`; undefined: TemplateFrame's default. */
  readonly allow: string | undefined;
  readonly handlers: HostHandlers;
  /** More to attach to the new frame (an item's values); returns what releases it. */
  readonly attachExtras?: (frame: TemplateFrame) => (() => void)[];
}

/** Gives `live` a new frame loading `src`, with the feed's handlers, permissions and values. */
export type AttachFrame = (
  live: LiveFrame,
  src: string,
  options: { readonly title?: string | undefined; readonly checkFramable: boolean; readonly values?: ValueOverrides | undefined },
) => void;

let nextSourceId = 1;

/**
 * The `allow` attribute of a frame loading `src`: the feed's (`feedAllow`)
 * for a page of the item's own origin (`itemUrl`; for the sheet, the
 * focused item's), else undefined (TemplateFrame's default). Why:
 * permissions such as camera are granted under the feed's name, so they
 * must not follow a template to an arbitrary URL.
 */
export function frameAllow(feedAllow: string | undefined, itemUrl: string | undefined, src: string): string | undefined {
  if (feedAllow === undefined || itemUrl === undefined) return undefined;
  return new URL(src).origin === new URL(itemUrl).origin ? feedAllow : undefined;
}

/** One live template; see the module comment. */
/**
 * How long after its page loaded a frame that has not said hello is given: a template's module
 * scripts run before the page's load event, and its hello goes out as the kit is imported.
 */
const NO_HELLO_AFTER_PAGE_LOAD_MS = 2_000;

export class LiveFrame {
  /** The swipe tracker's name for this template's touches. */
  readonly sourceId = `frame-${nextSourceId++}`;
  /** Set by {@link attach}, right after construction (its handlers need this object first). */
  frame!: TemplateFrame;
  src = '';
  status: 'loading' | 'loaded' | 'unframeable' = 'loading';
  /** Whether it was last told it plays (see FeedPlayback). */
  playing = false;
  lastLimitReportMs = -Infinity;
  /** Per touch identifier: screen → feed offset, fixed at the touch's start. */
  readonly screenOffsets = new Map<number, { x: number; y: number }>();
  readonly touchBucket: TokenBucket;
  readonly callBucket: TokenBucket;
  readonly #settings: LiveFrameSettings;
  readonly #hooks: LiveFrameHooks;
  readonly #view: LiveFrameView | null;
  /** Whether the iframe's page has loaded (its `load` event), with or without the kit. */
  pageLoaded = false;
  #loadTimer: ReturnType<typeof setTimeout> | undefined;
  /** performance.now() when the load timer of the current attach runs out. */
  #loadDeadline = 0;
  #checkTimer: ReturnType<typeof setTimeout> | undefined;
  #unsubscribe: (() => void)[] = [];

  /** `view`: the sheet this template is shown in (index -1), which mirrors its status. */
  constructor(
    readonly index: number,
    readonly element: HTMLElement,
    settings: LiveFrameSettings,
    hooks: LiveFrameHooks,
    view: LiveFrameView | null = null,
  ) {
    this.#settings = settings;
    this.#hooks = hooks;
    this.#view = view;
    this.touchBucket = new TokenBucket(settings.touchRate);
    this.callBucket = new TokenBucket(settings.callRate);
  }

  /** Makes a frame loading `source.src` in the element, and starts its load (and frame-check) timer. */
  attach(source: FrameSource): void {
    const settings = this.#settings;
    const frame = new TemplateFrame({
      src: source.src,
      allowedOrigins: settings.allowedOrigins,
      ...(settings.templateProjectId === undefined ? {} : { projectId: settings.templateProjectId }),
      callTimeoutMs: settings.callTimeoutMs,
      // A feed says who is in front of the viewer by playback: a preloaded template is away until it plays.
      focusByPlayback: true,
      // Our own load timer decides; the frame's handshake timer only has to outlast it.
      handshakeTimeoutMs: settings.loadTimeoutMs + 1_000,
      handlers: source.handlers,
      title: source.title ?? 'Template',
      ...(source.allow === undefined ? {} : { allow: source.allow }),
    });
    frame.iframe.className = 'pk-feed-frame';
    this.frame = frame;
    this.src = source.src;
    this.status = 'loading';
    this.playing = false;
    this.element.classList.remove('is-loaded', 'is-unframeable');
    this.element.querySelector('.pk-feed-offer')?.remove();
    this.#unsubscribe = [
      frame.on('load', () => this.#onLoaded()),
      frame.on('link', ({ relinked }) => {
        clearTimeout(this.#checkTimer);
        // Linked after all: the whole load timer again, not the short wait of a page without a hello.
        if (!relinked) this.#armLoadTimer(Math.max(0, this.#loadDeadline - performance.now()));
        if (this.status === 'unframeable') {
          this.status = 'loading';
          this.element.classList.remove('is-unframeable');
          this.element.querySelector('.pk-feed-offer')?.remove();
        }
        // A template that reloaded starts over: not playing, loading until it calls load() again.
        if (relinked) this.#onReloaded();
      }),
      // A template over the frame's limits is dropped for good (RATE_LIMITED): always reported, never throttled.
      frame.on('unlinked', ({ error }) => this.#hooks.unlinked(this, error)),
    ];
    if (source.attachExtras) this.#unsubscribe.push(...source.attachExtras(frame));
    // The iframe's own load: its page (a 404 too) is in, and a page with the kit says hello as it
    // runs. No hello soon after is a page without the kit, told apart and skipped in seconds, not
    // left "Loading…" for the whole load timer.
    const onPageLoad = (): void => {
      this.pageLoaded = true;
      if (frame.state === 'loading' && this.status === 'loading') this.#armLoadTimer(Math.min(NO_HELLO_AFTER_PAGE_LOAD_MS, Math.max(0, this.#loadDeadline - performance.now())));
    };
    frame.iframe.addEventListener('load', onPageLoad);
    this.#unsubscribe.push(() => frame.iframe.removeEventListener('load', onPageLoad));
    this.element.append(frame.iframe);
    this.pageLoaded = false;
    this.#loadDeadline = performance.now() + settings.loadTimeoutMs;
    this.#armLoadTimer(settings.loadTimeoutMs);
    if (source.checkFramable) this.#checkTimer = setTimeout(() => this.#onUnframeable(), settings.frameCheckTimeoutMs);
  }

  /**
   * Lets go of the frame without destroying it (a navigation replaces it):
   * its listeners and timers stop. Returns it; the caller destroys it.
   */
  detachFrame(): TemplateFrame {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    clearTimeout(this.#loadTimer);
    clearTimeout(this.#checkTimer);
    return this.frame;
  }

  /** Destroys the frame, its listeners and timers; an item's element leaves the track. */
  destroy(): void {
    this.detachFrame().destroy();
    if (this.index !== -1) this.element.remove();
  }

  #armLoadTimer(ms: number): void {
    clearTimeout(this.#loadTimer);
    this.#loadTimer = setTimeout(() => this.#onLoadTimeout(), ms);
  }

  #onLoaded(): void {
    if (!this.#hooks.isLive(this)) return;
    clearTimeout(this.#loadTimer);
    clearTimeout(this.#checkTimer);
    this.status = 'loaded';
    this.element.classList.add('is-loaded');
    this.element.classList.remove('is-unframeable');
    this.element.querySelector('.pk-feed-offer')?.remove();
    this.#view?.setState('loaded', this.src);
    this.#hooks.loaded(this);
  }

  #onReloaded(): void {
    if (!this.#hooks.isLive(this)) return;
    this.playing = false;
    this.status = 'loading';
    this.element.classList.remove('is-loaded');
    this.#view?.setState('loading', this.src);
    this.#loadDeadline = performance.now() + this.#settings.loadTimeoutMs;
    this.#armLoadTimer(this.#settings.loadTimeoutMs);
  }

  #onLoadTimeout(): void {
    if (!this.#hooks.isLive(this) || this.status !== 'loading') return;
    if (this.index === -1) {
      // A sheet the user opened is not skipped: show what there is.
      this.element.classList.add('is-loaded');
      return;
    }
    this.#hooks.loadTimedOut(this);
  }

  #onUnframeable(): void {
    if (!this.#hooks.isLive(this) || this.frame.state !== 'loading') return;
    clearTimeout(this.#loadTimer);
    this.status = 'unframeable';
    this.element.classList.add('is-unframeable');
    if (this.#view) this.#view.setState('unframeable', this.src);
    else if (!this.element.querySelector('.pk-feed-offer')) this.element.append(createOpenOffer(this.src));
    this.#hooks.unframeable(this);
  }
}
