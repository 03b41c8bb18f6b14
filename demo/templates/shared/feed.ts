/**
 * A demo template's part in the feed, on FeedSdk: its playback (in focus or
 * not, mirrored to `<html data-playing>` for the tests and for styles). The
 * feed draws Remix and Share itself (`<platform-feed actions="remix share">`);
 * where they cover a corner of the template, FeedSdk sets
 * `--platform-feed-inset-right` and `--platform-feed-inset-bottom` on the
 * root element, and each template's stylesheet keeps its text clear of it.
 */
import { FeedSdk, type PlaybackStateHandler } from 'platform-kit/guest';

/** Options of {@link joinFeed}. */
export interface JoinFeedOptions {
  /** Called with every playback change, after `<html data-playing>` was updated. */
  readonly onPlaybackStateChanged?: PlaybackStateHandler;
}

/** Makes the template's FeedSdk (at start, so the feed's insets are heard before load()); call `load()` on it once drawn. */
export function joinFeed(options: JoinFeedOptions = {}): FeedSdk {
  const feed = new FeedSdk();
  feed.onPlaybackStateChanged((isPlaying) => {
    document.documentElement.dataset['playing'] = String(isPlaying);
    options.onPlaybackStateChanged?.(isPlaying);
  });
  return feed;
}
