/**
 * The options of a FeedController and their defaults. Apart from the
 * controller so that the public option types read in one place, and so that
 * each piece of the feed is given the few settled values it needs
 * ({@link FeedSettings}), not the options object.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { GetIdentityToken } from '../identity.js';
import { checkFeedActions, type FeedAction } from './feed-actions.js';
import type { FeedItem } from './feed-items.js';
import type { RateLimit } from './rate-limiter.js';
import type { SwipeTrackerOptions } from './swipe-tracker.js';

export type { GetIdentityToken } from '../identity.js';
export type { RateLimit } from './rate-limiter.js';

/** What a loader is asked for: items after the `offset` ones the feed has. */
export interface FeedLoadRequest {
  /** How many items the feed holds now (the index of the first item wanted). */
  readonly offset: number;
  /** Aborted when the feed is destroyed or its items are replaced. */
  readonly signal: AbortSignal;
}

/** Gives more items for an infinite feed; an empty list means the feed has ended. */
export type FeedLoader = (request: FeedLoadRequest) => Promise<readonly FeedItem[]> | readonly FeedItem[];

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
  /** The platform project told to every item's template (TemplateFrameOptions.projectId): its Platform.dispatch joins it when built without one. */
  readonly templateProjectId?: string;
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
  /**
   * Buttons the feed draws for the current item: `'remix'` (the
   * 'createremix' event) and `'share'` (the system share or the share
   * sheet). Default none: templates may draw their own with FeedSdk. On a
   * feed at least `actionsRailMinWidth` wide they stand in a rail beside the
   * items; narrower, over the items' bottom right corner, which templates
   * are told (FeedSdk `insets`, CSS `--platform-feed-inset-right`/`-bottom`).
   */
  readonly actions?: readonly FeedAction[];
  /** Narrowest feed (CSS px) whose actions stand in a rail beside the items rather than over them. Default 480. */
  readonly actionsRailMinWidth?: number;
  /**
   * Answers the templates' `Platform.identity.getToken()`. Given to every
   * item's page and the presented sheet's, when the page is of the item's
   * own origin (a page a template navigates to elsewhere is refused with
   * `FORBIDDEN`). Without it, getToken() fails with `UNSUPPORTED`.
   */
  readonly getIdentityToken?: GetIdentityToken;
}

/** The options with their defaults applied and checked. @internal */
export interface FeedSettings {
  readonly loadTimeoutMs: number;
  readonly frameCheckTimeoutMs: number;
  readonly snapMs: number;
  readonly sheetMs: number;
  readonly callTimeoutMs: number;
  readonly allowedOrigins: readonly string[];
  readonly templateProjectId: string | undefined;
  readonly allow: string | undefined;
  readonly touchRate: RateLimit;
  readonly callRate: RateLimit;
  readonly loadAhead: number;
  readonly share: ((data: FeedShareData) => Promise<void>) | null;
  readonly actions: readonly FeedAction[];
  readonly actionsRailMinWidth: number;
}

const DEFAULT_TOUCH_RATE: RateLimit = { burst: 240, perSecond: 240 };
const DEFAULT_CALL_RATE: RateLimit = { burst: 20, perSecond: 5 };

/** Applies the defaults; a timeout that is not a positive number throws `INVALID_ARGUMENT`. @internal */
export function feedSettings(options: FeedControllerOptions): FeedSettings {
  const reducedMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  return {
    loadTimeoutMs: positive(options.loadTimeoutMs, 10_000, 'loadTimeoutMs'),
    frameCheckTimeoutMs: positive(options.frameCheckTimeoutMs, 3_000, 'frameCheckTimeoutMs'),
    snapMs: options.snapDurationMs ?? (reducedMotion ? 0 : 250),
    sheetMs: options.sheetAnimationMs ?? (reducedMotion ? 0 : 280),
    callTimeoutMs: options.callTimeoutMs ?? 5_000,
    allowedOrigins: options.allowedOrigins ?? [],
    templateProjectId: options.templateProjectId,
    allow: options.allow,
    touchRate: options.touchRateLimit ?? DEFAULT_TOUCH_RATE,
    callRate: options.callRateLimit ?? DEFAULT_CALL_RATE,
    loadAhead: options.loadAhead ?? 3,
    share: options.share === undefined ? (typeof navigator !== 'undefined' && typeof navigator.share === 'function' ? (data) => navigator.share(data) : null) : options.share,
    actions: checkFeedActions(options.actions ?? []),
    actionsRailMinWidth: nonNegative(options.actionsRailMinWidth, 480, 'actionsRailMinWidth'),
  };
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) throw new PlatformError('INVALID_ARGUMENT', `${name} must be a number of at least 0`);
  return value;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new PlatformError('INVALID_ARGUMENT', `${name} must be a positive number`);
  return value;
}
