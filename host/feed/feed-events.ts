/**
 * The events a FeedController emits (and `<platform-feed>` re-dispatches as
 * `feed-<name>`), and the item states they speak of. Apart so that every
 * piece of the feed that emits one types it against the same list.
 */
import type { PlatformError } from '../../protocol/errors.js';
import type { FeedItem } from './feed-items.js';
import type { FeedShareData } from './feed-options.js';
import type { SwipeInput, SwipePoint } from './swipe-tracker.js';

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

/** The named events of {@link FeedControllerEvents}, without its index signature. */
type NamedFeedEvent = keyof { [Name in keyof FeedControllerEvents as string extends Name ? never : Name]: true } & string;

/**
 * `<platform-feed>`'s DOM events: `feed-<name>` for each controller event, a
 * CustomEvent with the event's payload as `detail`. It augments
 * HTMLElementEventMap, so `feed.addEventListener('feed-createremix', (event) =>
 * event.detail.projectId)` type-checks without a cast.
 */
export type PlatformFeedEventMap = { [Name in NamedFeedEvent as `feed-${Name}`]: CustomEvent<FeedControllerEvents[Name]> };

/** How a piece of the feed emits: the controller's emitter, seen only by its `emit`. @internal */
export type EmitFeedEvent = <Name extends keyof FeedControllerEvents & string>(name: Name, payload: FeedControllerEvents[Name]) => void;
