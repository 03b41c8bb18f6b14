// A feed template for the feed-swipe benchmark: calls load() at once and
// reports, in wall-clock milliseconds (comparable across frames), when its
// touches end and when it is told it plays.
import { FeedSdk } from '../../guest/index.js';

const params = new URLSearchParams(location.search);
const host = params.get('host') ?? 'http://localhost';
const tag = params.get('tag') ?? '';
document.body.textContent = tag;
const wall = (timeStamp: number): number => performance.timeOrigin + timeStamp;
const report = (kind: string, at: number): void => window.parent.postMessage({ feedBench: kind, tag, at }, host);

const feed = new FeedSdk();
feed.onPlaybackStateChanged((isPlaying) => {
  if (isPlaying) report('play', wall(performance.now()));
});
document.addEventListener(
  'touchend',
  (event) => {
    report('touchend', wall(event.timeStamp));
    // When this page's code ran: the gap to timeStamp is the browser's input delivery, before any of ours.
    report('touchend-handled', wall(performance.now()));
  },
  { passive: true },
);
void feed.load();
