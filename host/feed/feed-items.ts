/**
 * What a feed shows: items, their checks, the viewing context that reaches
 * each template, and the feedDebug feed (one template ten times).
 */
import { isFeedDebug, withViewingContext, type ViewingContext } from '../../guest/context.js';
import { assertPlainData, assertVccPath, DEFAULT_MAX_VALUE_BYTES, isPrototypeKey } from '../../protocol/data.js';
import { isPlatformError, PlatformError, withoutPrefix } from '../../protocol/errors.js';
import type { ValueOverrides } from '../../protocol/link.js';

/** One template of a feed. */
export interface FeedItem {
  /** The template's URL (http or https). */
  readonly url: string;
  /** A stable id for this entry (default: its position). */
  readonly id?: string;
  /** The template's project: createRemix() without an id remixes this one. */
  readonly projectId?: string;
  /** Title for the iframe and for sharing. */
  readonly title?: string;
  /** URL shared by share() (default: `url`). */
  readonly shareUrl?: string;
  /** Viewing context the template is loaded in (the `context` query parameter); default none. */
  readonly context?: ViewingContext;
  /**
   * Values over the template's built ones, `{ scope: { key: value } }`: a
   * published remix is its template plus these. The template reads them
   * through InstantRemixing get() and onValueChanged as in a remix preview
   * (the feed attaches a RemixSession with `remixing: false` to the item's
   * frame). Only the item's own URL gets them, not a page it navigates to.
   */
  readonly values?: ValueOverrides;
}

/** Longest URL the feed frames or shares. */
export const MAX_FEED_URL_LENGTH = 4_096;
/** How many times the feedDebug feed repeats its template (spec: customization.md, limits). */
export const FEED_DEBUG_REPEAT = 10;

/**
 * Checks a URL the feed is to frame (an item's, or one a template asked for:
 * checkTargetUrl): an absolute http(s) URL of reasonable length. A
 * `javascript:`, `data:`, `blob:` or any other scheme is refused with
 * `INVALID_ARGUMENT`, because framing it would run code or content the feed
 * cannot vouch for.
 */
export function checkFeedUrl(value: unknown, what: string): URL {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FEED_URL_LENGTH) {
    throw new PlatformError('INVALID_ARGUMENT', `${what} needs a URL string of at most ${MAX_FEED_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    // No base: a guest resolves its URLs itself; a relative one here would resolve against the feed page.
    url = new URL(value);
  } catch {
    throw new PlatformError('INVALID_ARGUMENT', `${what} needs an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PlatformError('INVALID_ARGUMENT', `${what} accepts only http(s) URLs, not ${url.protocol}`);
  }
  return url;
}

/**
 * A page a template asks the feed to open (navigate, present): checkFeedUrl's
 * URL, never of the host page's own origin. A frame of that origin is
 * same-origin with the host page: it could reach into the page and act as
 * the viewer on the host's site, where the template asking for it is of
 * another origin, a site the host never vouched for. (The host's own items
 * may be anywhere.)
 */
export function checkTargetUrl(value: unknown, what: string): URL {
  const url = checkFeedUrl(value, what);
  if (url.origin === location.origin) throw new PlatformError('FORBIDDEN', `${what} cannot open a page of the host page's own origin`);
  return url;
}

/** Checks a feed item given by the host (its URL, optional strings, values); throws `INVALID_ARGUMENT`. */
export function checkFeedItem(item: unknown): FeedItem {
  if (typeof item !== 'object' || item === null) throw new PlatformError('INVALID_ARGUMENT', 'a feed item must be an object with a url');
  const { url, id, projectId, title, shareUrl, context, values } = item as Record<string, unknown>;
  checkFeedUrl(url, 'a feed item');
  for (const [name, value] of Object.entries({ id, projectId, title })) {
    if (value !== undefined && (typeof value !== 'string' || value.length > 1_024)) {
      throw new PlatformError('INVALID_ARGUMENT', `a feed item's ${name} must be a string`);
    }
  }
  if (shareUrl !== undefined) checkFeedUrl(shareUrl, "a feed item's shareUrl");
  if (context !== undefined && !['about', 'admin', 'remix', 'sticker', 'default'].includes(context as string)) {
    throw new PlatformError('INVALID_ARGUMENT', "a feed item's context must be about, admin, remix, sticker or default");
  }
  if (values !== undefined) checkValues(values);
  return item as FeedItem;
}

/**
 * Checks a feed item's values: `{ scope: { key: plain data } }` with valid
 * path segments, none named after a property of Object.prototype (`toString`,
 * `valueOf`…: the item's RemixSession refuses those), each value within the
 * remix session's size limit. Checked here, when the item is given, so a bad
 * one is refused with the item rather than failing later inside its frame
 * (where it left the feed on an item with no frame).
 */
function checkValues(values: unknown): void {
  const fail = (reason: string, cause?: unknown): never => {
    throw new PlatformError('INVALID_ARGUMENT', `a feed item's values ${reason}`, cause === undefined ? undefined : { cause });
  };
  if (typeof values !== 'object' || values === null || Array.isArray(values)) fail('must be an object of scopes');
  for (const [scope, entries] of Object.entries(values as object)) {
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) fail(`scope "${scope}" must be an object`);
    for (const [key, value] of Object.entries(entries as object)) {
      if (isPrototypeKey(scope) || isPrototypeKey(key)) fail(`at ${scope}.${key}: a scope or key cannot be named like a property of Object.prototype`);
      try {
        assertVccPath([scope, key]);
        assertPlainData(value, DEFAULT_MAX_VALUE_BYTES);
      } catch (error) {
        fail(`at ${scope}.${key}: ${isPlatformError(error) ? withoutPrefix(error.message) : String(error)}`, error);
      }
    }
  }
}

/** The URL a feed item's iframe loads: its url with its viewing context. */
export function feedItemSrc(item: FeedItem): string {
  return item.context === undefined ? item.url : withViewingContext(item.url, item.context);
}

/**
 * The feedDebug feed: when `templateUrl` has `feedDebug=true`, that template
 * {@link FEED_DEBUG_REPEAT} times (spec: swipe and scroll testing of play and
 * pause), else null. The items load the URL without `feedDebug`, so a
 * template that checks it does not open a feed of its own.
 */
export function feedDebugItems(templateUrl: string | URL): FeedItem[] | null {
  const base = typeof location === 'undefined' ? 'http://localhost/' : location.href;
  const url = new URL(templateUrl, base);
  if (!isFeedDebug(url)) return null;
  checkFeedUrl(url.toString(), 'a feedDebug template');
  url.searchParams.delete('feedDebug');
  return Array.from({ length: FEED_DEBUG_REPEAT }, (_, index) => ({ url: url.toString(), id: `feed-debug-${index + 1}` }));
}
