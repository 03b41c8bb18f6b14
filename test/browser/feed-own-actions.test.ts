import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import { createIdentityHandler, defineHostElements, type PlatformFeed } from '../../host/index.js';
import type { IdentityTokenResult } from '../../protocol/link.js';
import { feedFixtureUrl, feedSuite, templateItems } from './support/feed.js';
import { sleep, THIRD_ORIGIN, waitUntil } from './support/probe.js';

/** Does rectangle `a` overlap `b` (by more than a hair)? */
function overlaps(a: DOMRect, b: DOMRect): boolean {
  return a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
}

describe("feed: the feed's own Remix and Share actions, and the insets templates are told", function () {
  // Real frames on a loaded 2-core machine: a resize reaches the template a few frames later.
  this.retries(1);
  const { reports, mount, windowOf, collect } = feedSuite();

  const buttons = (box: HTMLElement): HTMLButtonElement[] => [...box.querySelectorAll<HTMLButtonElement>('.pk-feed-action')];
  const rail = (box: HTMLElement): HTMLElement => box.querySelector<HTMLElement>('.pk-feed-actions')!;

  it('on a wide feed stands in a rail beside the item, outside its iframe; nothing is covered, nothing is told', async () => {
    const feed = mount({ items: templateItems(2), actions: ['remix', 'share'] });
    feed.box.style.width = '640px';
    await reports.waitFor('playback', 't0');
    await waitUntil(() => feed.controller.viewport.classList.contains('pk-actions-rail'), 'the rail');
    const frame = feed.controller.frameAt(0)!.iframe.getBoundingClientRect();
    const actions = rail(feed.box).getBoundingClientRect();
    expect(buttons(feed.box).map((button) => button.textContent)).to.deep.equal(['Remix', 'Share']);
    for (const button of buttons(feed.box)) expect(overlaps(button.getBoundingClientRect(), frame), `${button.textContent} over the iframe`).to.equal(false);
    expect(frame.right).to.be.at.most(actions.left + 0.5);
    // The item keeps the rest of the width, and the rail is inside the feed.
    expect(frame.width).to.be.closeTo(640 - actions.width, 1);
    expect(actions.right).to.be.closeTo(feed.box.getBoundingClientRect().right, 1);
    expect(feed.controller.insets).to.deep.equal({ right: 0, bottom: 0 });
    const seen = await reports.command(windowOf(0), 'insets');
    expect(seen.value).to.include({ right: 0, bottom: 0, cssRight: '' });
    expect(reports.of('insets')).to.deep.equal([]);
  });

  it('on a narrow feed stands over the corner, and every template is told that corner (FeedSdk.insets and CSS variables) before it is shown', async () => {
    const feed = mount({ items: templateItems(2), actions: ['remix', 'share'] });
    await reports.waitFor('playback', 't0');
    expect(feed.controller.viewport.classList.contains('pk-actions-overlay')).to.equal(true);
    const { right, bottom } = feed.controller.insets;
    const viewport = feed.controller.viewport.getBoundingClientRect();
    const actions = rail(feed.box).getBoundingClientRect();
    // The corner told covers the buttons, with a little room, and no more than a thumb's column and two buttons.
    expect(right).to.be.within(actions.width, 100);
    expect(bottom).to.be.within(actions.height, 220);
    expect(viewport.right - right).to.be.at.most(actions.left);
    expect(viewport.bottom - bottom).to.be.at.most(actions.top);
    // Each button is big enough for a thumb.
    for (const button of buttons(feed.box)) {
      const rect = button.getBoundingClientRect();
      expect(rect.width, button.textContent ?? '').to.be.at.least(44);
      expect(rect.height, button.textContent ?? '').to.be.at.least(44);
    }
    // The current template and its preloaded neighbour heard it, first before their load() resolved.
    for (const tag of ['t0', 't1']) {
      const [first] = await reports.waitFor('insets', tag);
      expect(first).to.deep.equal({ right, bottom, cssRight: `${right}px`, cssBottom: `${bottom}px`, loaded: false });
    }
    expect((await reports.command(windowOf(0), 'insets')).value).to.include({ right, bottom, cssRight: `${right}px`, cssBottom: `${bottom}px` });
  });

  it('tells the templates again when a resize moves the actions to a rail and back', async () => {
    const feed = mount({ items: templateItems(2), actions: ['remix', 'share'] });
    await reports.waitFor('insets', 't0');
    const narrow = feed.controller.insets;
    feed.box.style.width = '640px';
    const [, wide] = await reports.waitFor('insets', 't0', 2);
    expect(wide).to.include({ right: 0, bottom: 0, cssRight: '0px', cssBottom: '0px' });
    feed.box.style.width = '360px';
    const [, , back] = await reports.waitFor('insets', 't0', 3);
    expect(back).to.include({ right: narrow.right, bottom: narrow.bottom, cssRight: `${narrow.right}px` });
  });

  it('Remix fires createremix for the current item; Share opens the share sheet with its link; both by keyboard too', async () => {
    const feed = mount({ items: templateItems(2).map((item) => ({ ...item, shareUrl: `https://share.example/${item.id}` })), actions: ['remix', 'share'], share: null });
    const remixes = collect('createremix');
    const shares = collect('share');
    await reports.waitFor('playback', 't0');
    const [remix, share] = buttons(feed.box);
    remix!.click();
    expect(remixes).to.have.length(1);
    expect(remixes[0]).to.deep.include({ index: 0, projectId: 'project-0' });
    expect(remixes[0]!.item?.id).to.equal('t0');
    share!.click();
    await waitUntil(() => shares.length === 1, 'the share sheet');
    expect(shares[0]).to.deep.equal({ index: 0, data: { url: 'https://share.example/t0', title: 'Template 0' }, method: 'sheet' });
    expect(feed.box.querySelector<HTMLInputElement>('.pk-share input')?.value).to.equal('https://share.example/t0');
    feed.controller.closeShareSheet();

    // The next item: the buttons act on it. By keyboard: Tab to a button, Enter and Space.
    feed.controller.next();
    await reports.waitFor('playback', 't1');
    remix!.focus();
    expect(remix!.matches(':focus')).to.equal(true);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => remixes.length === 2, 'Enter on Remix');
    expect(remixes[1]).to.deep.include({ index: 1, projectId: 'project-1' });
    await sendKeys({ press: 'Tab' });
    expect(share!.matches(':focus')).to.equal(true);
    await sendKeys({ press: 'Space' });
    await waitUntil(() => shares.length === 2, 'Space on Share');
    expect(shares[1]!.data.url).to.equal('https://share.example/t1');
    // The share sheet lies over the actions (they stay under it).
    const sheet = feed.box.querySelector<HTMLElement>('.pk-share')!;
    expect(Number(getComputedStyle(sheet).zIndex)).to.be.above(Number(getComputedStyle(rail(feed.box)).zIndex));
  });

  it('draws nothing and tells nothing without actions; setActions adds them', async () => {
    const feed = mount({ items: templateItems(1) });
    await reports.waitFor('playback', 't0');
    expect(rail(feed.box).hidden).to.equal(true);
    expect(buttons(feed.box)).to.have.length(0);
    await sleep(100);
    expect(reports.of('insets')).to.deep.equal([]);
    feed.controller.setActions(['share']);
    expect(buttons(feed.box).map((button) => button.dataset['action'])).to.deep.equal(['share']);
    const [told] = await reports.waitFor('insets', 't0');
    expect(told!['right']).to.be.above(0);
    expect(() => feed.controller.setActions(['like' as never])).to.throw(/unknown feed action/);
  });

  it('<platform-feed actions="remix share"> draws them; its getIdentityToken answers Platform.identity.getToken()', async () => {
    defineHostElements();
    const token: IdentityTokenResult = { userToken: 'header.payload.signature', presumedRole: 'user', presumedAttributes: { username: 'Guest 1234' } };
    let fetched = 0;
    const element: PlatformFeed = document.createElement('platform-feed');
    element.setAttribute('actions', 'remix share');
    element.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px; z-index: 1000;';
    element.getIdentityToken = createIdentityHandler({
      fetchToken: async () => {
        fetched++;
        return token;
      },
    });
    element.items = templateItems(1);
    document.body.append(element);
    try {
      await reports.waitFor('playback', 't0');
      const controller = element.controller!;
      expect(controller.actions).to.deep.equal(['remix', 'share']);
      const target = controller.frameAt(0)!.iframe.contentWindow;
      const reply = await reports.command(target, 'getToken');
      expect(reply.ok, JSON.stringify(reply.value)).to.equal(true);
      expect(reply.value).to.deep.equal(token);
      expect(fetched).to.equal(1);
      // Taken away: the template is told the feed gives no identity.
      element.getIdentityToken = null;
      await element.updateComplete;
      const refused = await reports.command(target, 'getToken');
      expect(refused.ok).to.equal(false);
      expect(refused.value).to.include({ code: 'UNSUPPORTED' });
    } finally {
      element.remove();
    }
  });

  it("gives the viewer's identity to pages of the item's own origin only: a page the template navigated to elsewhere hears FORBIDDEN", async () => {
    defineHostElements();
    let fetched = 0;
    const element: PlatformFeed = document.createElement('platform-feed');
    element.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px; z-index: 1000;';
    element.getIdentityToken = createIdentityHandler({
      fetchToken: async () => {
        fetched++;
        return { userToken: 'header.payload.signature', presumedRole: 'user', presumedAttributes: { username: 'Guest 1234' } };
      },
    });
    element.items = templateItems(1);
    document.body.append(element);
    try {
      await reports.waitFor('playback', 't0');
      const controller = element.controller!;
      const own = await reports.command(controller.frameAt(0)!.iframe.contentWindow, 'getToken');
      expect(own.ok, JSON.stringify(own.value)).to.equal(true);
      expect(fetched).to.equal(1);
      // The same template page, served from another origin: any site, to the feed.
      const elsewhere = new URL(feedFixtureUrl('template', { tag: 'elsewhere' }));
      elsewhere.host = new URL(THIRD_ORIGIN).host;
      expect((await reports.command(controller.frameAt(0)!.iframe.contentWindow, 'navigate', elsewhere.toString())).ok).to.equal(true);
      await reports.waitFor('load-called', 'elsewhere');
      const frame = controller.frameAt(0)!;
      expect(new URL(frame.iframe.src).origin).to.equal(THIRD_ORIGIN);
      const refused = await reports.commandAt(THIRD_ORIGIN, frame.iframe.contentWindow, 'getToken');
      expect(refused.ok).to.equal(false);
      expect(refused.value).to.include({ code: 'FORBIDDEN' });
      expect(fetched, 'the host was not asked for a token').to.equal(1);
    } finally {
      element.remove();
    }
  });
});
