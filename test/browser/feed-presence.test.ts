import { expect } from '@esm-bundle/chai';
import { createDispatch, type BrowserDispatch } from '../../guest/dispatch/index.js';
import type { ConnectedClient } from '../../protocol/signaling.js';
import { signalingUrl } from './support/dispatch-member.js';
import { feedFixtureUrl, feedSuite, swipe } from './support/feed.js';
import { waitUntil } from './support/probe.js';

type Member = { clientId: string; state: string };

// Feed-aware presence (issue 27) in a real feed of cross-origin templates that
// connect() at once, as the docs' sample does: the template in focus is here,
// the preloaded neighbour is away (connected, its data channels up, listed to
// nobody by default), a swipe makes the next one here and the one scrolled
// past away, and a hidden tab makes the one in focus away. The test page's own
// client is a player on its own page: here while the page is visible.
describe('feed: presence follows the viewer (here, away)', function () {
  this.timeout(90_000);
  // WebRTC between two renderer processes on a loaded 2-core machine: a data channel may take
  // longer than a test's patience once in a while; every assertion is on state, none on time.
  this.retries(1);
  const { reports, mount, windowOf } = feedSuite();
  let server = '';
  let watcher: BrowserDispatch | null = null;
  before(async () => {
    server = await signalingUrl();
  });
  afterEach(async () => {
    await watcher?.disconnect();
    watcher = null;
  });

  const lastOf = (kind: string, tag: string): Record<string, unknown> | undefined => reports.of(kind, tag).at(-1);
  const idsOf = (tag: string): string[] => ((lastOf('presence', tag)?.['ids'] as string[] | undefined) ?? []).slice().sort();
  const stateIn = (members: readonly (ConnectedClient | Member)[], clientId: string): string | undefined => members.find((m) => m.clientId === clientId)?.state;
  const sorted = (...ids: string[]): string[] => ids.slice().sort();

  it('the preloaded template is away, comes here on the swipe with its mesh up, the one scrolled past goes away, and a hidden tab makes it away', async () => {
    const shard = `feed-presence-${Math.random().toString(36).slice(2, 8)}`;
    watcher = createDispatch({ url: server, mesh: false });
    watcher.setProjectId('demo');
    const watcherLists: ConnectedClient[][] = [];
    watcher.onConnectedClientsChanged((list) => watcherLists.push(list));
    const { clientId: me } = await watcher.connect({ shardName: shard });

    const items = [0, 1, 2].map((i) => ({ url: feedFixtureUrl('players', { tag: `p${i}`, server, shard }), id: `p${i}` }));
    // Peer connections in a cross-origin iframe need these permissions (TESTING.md).
    const feed = mount({ items, allow: 'camera; microphone' });
    const [c0] = await reports.waitFor('connected', 'p0', 1, 15_000);
    const [c1] = await reports.waitFor('connected', 'p1', 1, 20_000);
    const p0 = c0!['clientId'] as string;
    const p1 = c1!['clientId'] as string;

    // Before the swipe: p0 here, the preloaded p1 away: listed by nobody but on request.
    await waitUntil(() => stateIn(watcher!.session!.connectedClients, p1) === 'away', 'p1 connected and away at the watcher', 10_000);
    await waitUntil(() => idsOf('p0').join() === sorted(me, p0).join(), 'p0 lists the watcher and itself, not the preloaded p1', 10_000);
    expect(
      watcherLists
        .at(-1)
        ?.map((c) => c.clientId)
        .sort(),
    ).to.deep.equal(sorted(me, p0));
    expect(idsOf('p1')).to.deep.equal(sorted(me, p0), 'the preloaded p1 sees the players here, not itself');
    expect(stateIn((lastOf('presence-all', 'p1')?.['members'] as Member[]) ?? [], p1)).to.equal('away');
    // Its P2P link to p0 got ready while it waited (the watcher relays: mesh false).
    await waitUntilAsync(
      async () => ((await reports.command(windowOf(1), 'paths')).value as Record<string, string>)[p0] === 'peer',
      'p1’s data channel to p0 open before the swipe',
      20_000,
    );

    // The swipe: p1 comes into focus, p0 is scrolled past.
    await swipe(feed.at(0.5, 0.8), feed.at(0.5, 0.2));
    await reports.waitFor('playback', 'p1');
    await waitUntil(() => idsOf('p1').join() === sorted(me, p1).join(), 'p1 lists itself and the watcher; p0 scrolled past is away', 10_000);
    await waitUntil(
      () =>
        watcherLists
          .at(-1)
          ?.map((c) => c.clientId)
          .sort()
          .join() === sorted(me, p1).join(),
      'the watcher lists p1, not p0',
      10_000,
    );
    expect(stateIn(watcher.session!.connectedClients, p0)).to.equal('away');
    expect(((await reports.command(windowOf(1), 'paths')).value as Record<string, string>)[p0]).to.equal('peer', 'the link to the away p0 stays up');

    // The tab hidden: the feed pauses p1 (away), and the watcher's own page is hidden too (away).
    const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, 'visibilityState');
    expect(descriptor).to.not.equal(undefined);
    try {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
      await waitUntil(() => stateIn((lastOf('presence-all', 'p0')?.['members'] as Member[]) ?? [], p1) === 'away', 'p1 away once the tab is hidden', 10_000);
      await waitUntil(() => stateIn((lastOf('presence-all', 'p0')?.['members'] as Member[]) ?? [], me) === 'away', 'the watcher’s page away once hidden', 10_000);
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
      document.dispatchEvent(new Event('visibilitychange'));
    }
    await waitUntil(() => stateIn((lastOf('presence-all', 'p0')?.['members'] as Member[]) ?? [], p1) === 'here', 'p1 here again once the tab shows', 10_000);
  });
});

async function waitUntilAsync(condition: () => Promise<boolean>, what: string, timeoutMs = 8_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
