import { expect } from '@esm-bundle/chai';
import { createDispatch, type BrowserDispatch } from '../../guest/dispatch/index.js';
import { TemplateFrame } from '../../host/index.js';
import { KIT_FRAME_NAME } from '../../protocol/link.js';
import type { ConnectedClient } from '../../protocol/signaling.js';
import { signalingUrl } from './support/dispatch-member.js';
import { FeedReports, feedFixtureUrl } from './support/feed.js';
import { waitUntil } from './support/probe.js';

// Presence that knows what is on screen, outside a feed (issue 27): a template in a frame that is
// not shown (its pane `display: none`, as the workbench's editor previews are while its Players
// tab is open; or scrolled out of the page) is away, and here again once it shows. A real
// cross-origin template that connect()s at once, a real server, the test page as a watcher.
describe('presence outside a feed: a frame not on screen is away', function () {
  this.timeout(60_000);
  let watcher: BrowserDispatch | null = null;
  let frame: TemplateFrame | null = null;
  let box: HTMLElement | null = null;
  let plainFrame: HTMLIFrameElement | null = null;
  const reports = new FeedReports();
  afterEach(async () => {
    frame?.destroy();
    box?.remove();
    plainFrame?.remove();
    plainFrame = null;
    await watcher?.disconnect();
    watcher = frame = box = null;
    reports.clear();
  });
  after(() => reports.dispose());

  const stateOf = (clientId: string): string | undefined => watcher?.session?.connectedClients.find((c: ConnectedClient) => c.clientId === clientId)?.state;

  it('is away while its pane is display: none or scrolled off the page, here while it shows', async () => {
    const server = await signalingUrl();
    const shard = `on-screen-${Math.random().toString(36).slice(2, 8)}`;
    watcher = createDispatch({ url: server, mesh: false });
    watcher.setProjectId('demo');
    await watcher.connect({ shardName: shard });
    box = document.createElement('div');
    box.style.cssText = 'position: absolute; left: 0; top: 0; width: 320px; height: 240px;';
    document.body.append(box);
    frame = new TemplateFrame({ src: feedFixtureUrl('players', { tag: 'e0', server, shard }), container: box, allow: 'camera; microphone' });
    const [connected] = await reports.waitFor('connected', 'e0', 1, 20_000);
    const member = connected!['clientId'] as string;
    await waitUntil(() => stateOf(member) === 'here', 'the preview on screen to be here', 10_000);

    // The pane hidden (a tab of the workbench that is not open): away.
    box.style.display = 'none';
    await waitUntil(() => stateOf(member) === 'away', 'the hidden preview to be away', 10_000);
    box.style.display = '';
    await waitUntil(() => stateOf(member) === 'here', 'the preview shown again to be here', 10_000);

    // Scrolled out of the page (far below the fold, the page not scrolled to it): away.
    box.style.top = `${window.innerHeight + 2_000}px`;
    await waitUntil(() => stateOf(member) === 'away', 'the preview below the fold to be away', 10_000);
    box.style.top = '0';
    await waitUntil(() => stateOf(member) === 'here', 'the preview back on screen to be here', 10_000);
    expect(stateOf(member)).to.equal('here');
  });

  // A template in a frame of a page with no kit (nobody answers its hello: its link stays
  // 'connecting' until the 5 s handshake timeout) is a page on its own from the start: it joins
  // here. Before, every frame waited LINK_WAIT_MS (1 s) as away first, in case a feed had
  // preloaded it; only frames a kit host made (named KIT_FRAME_NAME) wait now.
  it('in a plain iframe (no kit host), joins here at once; a kit host names its frames', async () => {
    const server = await signalingUrl();
    const shard = `plain-frame-${Math.random().toString(36).slice(2, 8)}`;
    watcher = createDispatch({ url: server, mesh: false });
    watcher.setProjectId('demo');
    const firstSeen = new Map<string, string>();
    watcher.onConnectedClientsChanged(
      (clients) => {
        for (const client of clients) if (!firstSeen.has(client.clientId)) firstSeen.set(client.clientId, client.state ?? 'here');
      },
      { includeAway: true },
    );
    await watcher.connect({ shardName: shard });
    plainFrame = document.createElement('iframe');
    plainFrame.style.cssText = 'position: absolute; left: 0; top: 0; width: 320px; height: 240px;';
    plainFrame.src = feedFixtureUrl('players', { tag: 'p0', server, shard });
    document.body.append(plainFrame);
    const [connected] = await reports.waitFor('connected', 'p0', 1, 20_000);
    const member = connected!['clientId'] as string;
    await waitUntil(() => stateOf(member) === 'here', 'the plain frame to be here', 10_000);
    expect(firstSeen.get(member), 'its first listing').to.equal('here');
    const link = await reports.command(plainFrame.contentWindow, 'link');
    expect(link.value, 'the link still waits for a host').to.equal('connecting');

    // The kit's own frames carry the name that makes a template wait for its host.
    box = document.createElement('div');
    document.body.append(box);
    frame = new TemplateFrame({ src: feedFixtureUrl('players', { tag: 'k0', server, shard }), container: box });
    expect(frame.iframe.name).to.equal(KIT_FRAME_NAME);
  });
});
