// The feed and templates that never made a FeedSdk (issue 24): such a template (one of the
// original SDK) cannot know load(), so the feed shows it once its page has loaded (the guest's link
// says pageLoaded(false)); a template that made a FeedSdk and never calls load() is skipped as
// before, and the skip says so.
import { expect } from '@esm-bundle/chai';
import type { FeedItem } from '../../host/index.js';
import { feedFixtureUrl, mountFeed, type MountedFeed } from './support/feed.js';
import { waitUntil } from './support/probe.js';

describe('feed: a template without a FeedSdk (issue 24)', () => {
  let feed: MountedFeed | null = null;
  afterEach(() => {
    feed?.dispose();
    feed = null;
  });

  it('shows one that never made a FeedSdk once its page loaded, and skips one that made a FeedSdk and never called load(), saying why', async () => {
    const items: FeedItem[] = [
      { url: feedFixtureUrl('no-feed-sdk', { tag: 'plain-original' }), id: 'plain-original' },
      { url: feedFixtureUrl('template', { tag: 'silent', load: 'never' }), id: 'silent' },
    ];
    feed = mountFeed({ items, loadTimeoutMs: 1_500 });
    const { controller } = feed;
    const skips: { index: number; message: string }[] = [];
    controller.on('skip', ({ index, error }) => skips.push({ index, message: error.message }));
    await waitUntil(() => controller.statusAt(0) === 'loaded', 'the template without a FeedSdk to be shown', 5_000);
    expect(controller.index).to.equal(0);
    await waitUntil(() => controller.statusAt(1) === 'skipped', 'the template with a silent FeedSdk to be skipped', 5_000);
    expect(controller.statusAt(0)).to.equal('loaded');
    expect(skips).to.have.length(1);
    expect(skips[0]?.index).to.equal(1);
    expect(skips[0]?.message).to.match(/made a FeedSdk and did not call load\(\) within 1500 ms; it was skipped$/);
  });

  it('skips a template URL that answers 404 (a page that never says hello) within seconds of its page loading, and says so, not "did not call load()"', async () => {
    const items: FeedItem[] = [
      { url: feedFixtureUrl('there-is-no-such-template', { tag: 'missing' }), id: 'missing' },
      { url: feedFixtureUrl('template', { tag: 'after' }), id: 'after' },
    ];
    // A load timer longer than this test's own timeout: only the page's load without a hello can skip it in time.
    feed = mountFeed({ items, loadTimeoutMs: 60_000 });
    const { controller } = feed;
    const skips: { index: number; message: string }[] = [];
    controller.on('skip', ({ index, error }) => skips.push({ index, message: error.message }));
    await waitUntil(() => controller.statusAt(0) === 'skipped', 'the 404 to be skipped', 12_000);
    expect(skips).to.have.length(1);
    expect(skips[0]?.message).to.match(/there-is-no-such-template.* loaded a page that never said hello \(not found, or a page without the kit\); it was skipped$/);
    await waitUntil(() => controller.statusAt(1) === 'loaded', 'the next template to be shown', 12_000);
  });
});
