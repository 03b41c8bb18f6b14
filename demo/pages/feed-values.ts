/**
 * Gives each feed item's template the values of its remix.
 *
 * A published remix is its template plus values. FeedItem has no field for
 * values, and RemixSession.attach() would replace the feed's own handlers
 * (load, share, createRemix, touches) on the frame, so this does the one
 * thing needed: when an item's TemplateFrame links, it sends the guest the
 * remix's values with the same `sync` call a RemixSession makes, before the
 * guest's ready() resolves. The frames are found as the feed creates them
 * (a MutationObserver on the feed's shadow root sees each new iframe in a
 * microtask, long before the template says hello).
 */
import type { FeedItem, PlatformFeed, TemplateFrame, ValueOverrides } from 'platform-kit/host';

/** Starts watching `feed`; `valuesOf` gives an item's values (or undefined for the template's own). Returns the stop function. */
export function syncFeedValues(feed: PlatformFeed, valuesOf: (item: FeedItem) => ValueOverrides | undefined): () => void {
  const seen = new WeakSet<TemplateFrame>();
  const visit = (): void => {
    const controller = feed.controller;
    if (!controller) return;
    for (const index of controller.liveIndices) {
      const frame = controller.frameAt(index);
      const item = controller.items[index];
      if (!frame || !item || seen.has(frame)) continue;
      seen.add(frame);
      const values = valuesOf(item);
      if (!values) continue;
      const send = (): void => {
        frame.request('sync', { values }).catch((error: unknown) => console.warn('feed: values not delivered', error));
      };
      frame.on('link', send);
      if (frame.state === 'linked' || frame.state === 'ready') send();
    }
  };
  const observer = new MutationObserver(visit);
  observer.observe(feed.renderRoot, { childList: true, subtree: true });
  visit();
  return () => observer.disconnect();
}
