// The feed-swipe bench page (http://localhost:PORT/bench/feed-swipe.html): a
// FeedController of `count` bench templates on the other origin, in a
// 360×640 box at the page's top left. The Node side swipes with real touch
// events and reads what happened through window.__feedBench.
import { FeedController } from '../../host/index.js';

declare global {
  interface Window {
    __feedBench?: FeedBenchPage;
  }
}

/** What the Node side of bench/feed-swipe.bench.ts reads. */
export interface FeedBenchPage {
  index(): number;
  settledIndex(): number;
  loaded(index: number): boolean;
  liveFrameCount(): number;
  iframeCount(): number;
  /** Wall-clock time template `tag` last reported for `kind` (touchend, play), or null. */
  last(kind: string, tag: string): number | null;
}

const query = new URLSearchParams(location.search);
const count = Number(query.get('count') ?? 200);
const templateOrigin = `http://127.0.0.1:${location.port}`;
const box = document.createElement('div');
box.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px;';
document.body.append(box);

const items = Array.from({ length: count }, (_, index) => {
  const url = new URL('/bench/pages/feed-template.html', templateOrigin);
  url.searchParams.set('host', location.origin);
  url.searchParams.set('tag', `b${index}`);
  return { url: url.toString(), id: `b${index}` };
});
const controller = new FeedController({ container: box, items });
const reports = new Map<string, number>();
let settled = 0;
controller.on('settle', ({ index }) => (settled = index));
// Host-side marks for the breakdown: when the feed got the forwarded touch end, and when it decided the play.
const wallNow = (): number => performance.timeOrigin + performance.now();
controller.on('touch', ({ index, type }) => {
  if (type === 'end') reports.set(`host-end:b${index}`, wallNow());
});
controller.on('playbackchange', ({ index, isPlaying }) => {
  if (isPlaying && index >= 0) reports.set(`host-play:b${index}`, wallNow());
});

window.addEventListener('message', (event: MessageEvent) => {
  if (event.origin !== templateOrigin) return;
  const data = event.data as { feedBench?: unknown; tag?: unknown; at?: unknown };
  if (typeof data?.feedBench === 'string' && typeof data.tag === 'string' && typeof data.at === 'number') reports.set(`${data.feedBench}:${data.tag}`, data.at);
});

window.__feedBench = {
  index: () => controller.index,
  settledIndex: () => settled,
  loaded: (index) => controller.statusAt(index) === 'loaded',
  liveFrameCount: () => controller.liveFrameCount,
  iframeCount: () => box.querySelectorAll('iframe').length,
  last: (kind, tag) => reports.get(`${kind}:${tag}`) ?? null,
};
