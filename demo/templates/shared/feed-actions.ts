/**
 * Share and remix buttons for a template shown in the feed, on FeedSdk:
 * `share()` opens the feed's sharing menu and `createRemix()` asks the feed
 * to open the editor for this project. They appear once the feed has said
 * the template is in focus (onPlaybackStateChanged), so they never show in
 * the editor or when the template is opened on its own.
 */
import { FeedSdk, isPlatformError, type PlaybackStateHandler } from 'platform-kit/guest';

/** Options of {@link mountFeedActions}. */
export interface FeedActionsOptions {
  /** Called with every playback change, after the buttons were updated. */
  readonly onPlaybackStateChanged?: PlaybackStateHandler;
}

/** Adds the buttons to the page and returns the template's FeedSdk (call `load()` on it once drawn). */
export function mountFeedActions(options: FeedActionsOptions = {}): FeedSdk {
  const feed = new FeedSdk();
  const bar = document.createElement('nav');
  bar.className = 'pk-feed-actions';
  bar.setAttribute('aria-label', 'Feed actions');
  bar.hidden = true;
  const button = (label: string, icon: string, action: () => Promise<void>): HTMLButtonElement => {
    const element = document.createElement('button');
    element.type = 'button';
    element.dataset['action'] = label.toLowerCase();
    element.innerHTML = `<span aria-hidden="true">${icon}</span><span>${label}</span>`;
    element.addEventListener('click', (event) => {
      event.stopPropagation();
      action().catch((error: unknown) => {
        // FORBIDDEN: not in focus any more (the user swiped on); the feed said why.
        if (!isPlatformError(error) || error.code !== 'FORBIDDEN') console.warn('feed action failed', error);
      });
    });
    return element;
  };
  bar.append(
    button('Remix', '✎', () => feed.createRemix()),
    button('Share', '↗', () => feed.share()),
  );
  const style = document.createElement('style');
  style.textContent = `
    .pk-feed-actions { position: fixed; right: 12px; bottom: 84px; display: flex; flex-direction: column; gap: 14px; z-index: 10; }
    .pk-feed-actions[hidden] { display: none; }
    .pk-feed-actions button { display: flex; flex-direction: column; align-items: center; gap: 2px; border: 0; background: none;
      color: #fff; font: 600 12px system-ui, sans-serif; cursor: pointer; text-shadow: 0 1px 3px #0008; }
    .pk-feed-actions button span:first-child { display: grid; place-items: center; width: 46px; height: 46px; border-radius: 50%;
      background: #0006; font-size: 22px; backdrop-filter: blur(4px); }
    .pk-feed-actions button:focus-visible span:first-child { outline: 3px solid #fff; }`;
  document.head.append(style);
  document.body.append(bar);
  feed.onPlaybackStateChanged((isPlaying) => {
    bar.hidden = false;
    document.documentElement.dataset['playing'] = String(isPlaying);
    options.onPlaybackStateChanged?.(isPlaying);
  });
  return feed;
}
