import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { defineHostElements, feedDebugItems, type FeedShareData, type PlatformFeed } from '../../host/index.js';
import { countIframes, feedFixtureUrl, feedSuite, templateItems } from './support/feed.js';
import { HOST_ORIGIN, sleep, TEMPLATE_ORIGIN, THIRD_ORIGIN, waitUntil } from './support/probe.js';

describe('feed: navigate, present, share, createRemix, bad input, context', function () {
  const { reports, mount, windowOf, collect, playback } = feedSuite();

  it('navigate(url) replaces the item in place, without a browser navigation', async () => {
    const feed = mount({ items: templateItems(3) });
    const navigations = collect('navigate');
    await reports.waitFor('playback', 't0');
    const historyLength = history.length;
    const pageUrl = location.href;
    const target = feedFixtureUrl('template', { tag: 'replaced' });
    expect((await reports.command(windowOf(0), 'navigate', target)).ok).to.equal(true);
    await reports.waitFor('playback', 'replaced');
    expect(navigations).to.deep.equal([{ index: 0, url: target }]);
    expect(feed.controller.index).to.equal(0);
    expect(feed.controller.frameAt(0)?.iframe.src).to.equal(target);
    expect(countIframes(feed.box)).to.equal(2);
    expect(history.length).to.equal(historyLength);
    expect(location.href).to.equal(pageUrl);
    // The replacement stays when the user comes back to it.
    feed.controller.next();
    feed.controller.previous();
    await reports.waitFor('playback', 'replaced', 3);
    expect(playback('replaced')).to.deep.equal([true, false, true]);
  });

  it('present(url) opens a sheet from the bottom that takes focus; a present inside it replaces its view', async () => {
    const feed = mount({ items: templateItems(2), sheetAnimationMs: 600 });
    const presents = collect('present');
    await reports.waitFor('playback', 't0');
    const first = feedFixtureUrl('template', { tag: 'sheet1' });
    expect((await reports.command(windowOf(0), 'present', first)).ok).to.equal(true);
    const panel = feed.box.querySelector<HTMLElement>('.pk-sheet .pk-sheet-panel');
    expect(panel).to.not.equal(null);
    // It slides up: sample the panel on every frame (a fixed sleep is too coarse on a busy machine)
    // and compare the lowest place seen with where it comes to rest.
    const tops: number[] = [];
    let sampling = true;
    const sample = (): void => {
      tops.push(panel!.getBoundingClientRect().top);
      if (sampling) requestAnimationFrame(sample);
    };
    sample();
    await reports.waitFor('playback', 'sheet1');
    await sleep(700);
    sampling = false;
    const rest = panel!.getBoundingClientRect().top;
    expect(Math.max(...tops)).to.be.above(rest + 20);
    expect(tops[tops.length - 1]).to.be.closeTo(rest, 1);
    // The sheet's template is the one in focus now.
    expect(playback('t0')).to.deep.equal([true, false]);
    expect(playback('sheet1')).to.deep.equal([true]);
    expect(feed.controller.sheetOpen).to.equal(true);

    // A present from inside the sheet replaces the sheet's view: still one sheet.
    const second = feedFixtureUrl('template', { tag: 'sheet2' });
    expect((await reports.command(feed.controller.sheetFrame!.iframe.contentWindow, 'present', second)).ok).to.equal(true);
    await reports.waitFor('playback', 'sheet2');
    expect(feed.box.querySelectorAll('.pk-sheet').length).to.equal(1);
    expect(presents).to.deep.equal([
      { url: first, replaced: false },
      { url: second, replaced: true },
    ]);
    // A template under the sheet is not in focus: it may not present.
    const refused = await reports.command(windowOf(0), 'present', first);
    expect(refused.value).to.deep.include({ code: 'FORBIDDEN' });

    feed.box.querySelector<HTMLButtonElement>('.pk-sheet-close')!.click();
    await reports.waitFor('playback', 't0', 3);
    expect(playback('t0')).to.deep.equal([true, false, true]);
    await waitUntil(() => feed.box.querySelector('.pk-sheet') === null, 'the sheet to slide out');
    expect(countIframes(feed.box)).to.equal(2);
  });

  it('offers to open a target that cannot be framed (X-Frame-Options, frame-ancestors) at browser level', async () => {
    const feed = mount({ items: templateItems(2), frameCheckTimeoutMs: 500 });
    const unframeable = collect('unframeable');
    await reports.waitFor('playback', 't0');
    // The fixture server really sends the headers (test/wtr/feed.mjs).
    const response = await fetch(new URL('/test/fixtures/feed/deny.html', HOST_ORIGIN));
    expect(response.headers.get('x-frame-options')).to.equal('DENY');
    const denied = feedFixtureUrl('deny');
    expect((await reports.command(windowOf(0), 'present', denied)).ok).to.equal(true);
    await waitUntil(() => unframeable.length === 1, 'the unframeable report');
    const offer = feed.box.querySelector<HTMLAnchorElement>('.pk-sheet .pk-feed-offer a');
    expect(offer?.href).to.equal(denied);
    expect(offer?.target).to.equal('_blank');
    expect(offer?.rel).to.equal('noopener noreferrer');
    feed.controller.closeSheet();

    // navigate() to a page that is not a template: the item keeps the page and gets the offer.
    const plain = feedFixtureUrl('plain');
    expect((await reports.command(windowOf(0), 'navigate', plain)).ok).to.equal(true);
    await waitUntil(() => unframeable.length === 2, 'the second unframeable report');
    expect(unframeable[1]).to.deep.equal({ index: 0, url: plain });
    expect(feed.box.querySelector<HTMLAnchorElement>('[data-index="0"] .pk-feed-offer a')?.href).to.equal(plain);
    expect(feed.controller.statusAt(0)).to.equal('unframeable');
    // The feed keeps working.
    feed.controller.next();
    await reports.waitFor('playback', 't1');
  });

  it('refuses javascript:, data: and other schemes, and a template out of focus, with clear errors', async () => {
    const feed = mount({ items: templateItems(2) });
    const errors = collect('error');
    await reports.waitFor('playback', 't0');
    for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'blob:http://x/1', 'file:///etc/passwd', 'ftp://example.com/']) {
      for (const method of ['navigate', 'present']) {
        const reply = await reports.command(windowOf(0), method, url);
        expect(reply.ok, `${method} ${url}`).to.equal(false);
        expect(reply.value).to.deep.include({ code: 'INVALID_ARGUMENT', name: 'PlatformError' });
        expect((reply.value as { message: string }).message).to.match(/^platform-kit: (navigate|present)\(\) accepts only http\(s\) URLs/);
      }
    }
    // The guest refused those before sending; the host refuses them too, at its own door
    // (a hostile template talks straight over the link, without FeedSdk's checks).
    for (const [method, url] of [
      ['navigate', 'javascript:alert(1)'],
      ['present', 'data:text/html,hi'],
      ['present', '/relative'],
    ] as const) {
      const reply = await reports.command(windowOf(0), 'raw', method, [url]);
      expect(reply.value, `${method} ${url}`).to.deep.include({ code: 'INVALID_ARGUMENT' });
    }
    expect(errors.filter(({ error }) => error.code === 'INVALID_ARGUMENT').length).to.equal(3);
    expect((await reports.command(windowOf(0), 'raw', 'touch', [{ type: 'move', touches: 'x', changedTouches: [] }])).value).to.deep.include({
      code: 'INVALID_ARGUMENT',
    });
    // A neighbour (preloading, out of focus) may not present, share or remix.
    await waitUntil(() => feed.controller.statusAt(1) === 'loaded', 't1 loaded');
    for (const [method, ...args] of [['present', feedFixtureUrl('plain')], ['share'], ['createRemix']]) {
      const reply = await reports.command(windowOf(1), method!, ...args);
      expect(reply.value, method).to.deep.include({ code: 'FORBIDDEN' });
    }
    expect(errors.filter(({ error }) => error.code === 'FORBIDDEN').length).to.equal(3);
    expect(feed.controller.sheetOpen).to.equal(false);
    // The feed keeps working.
    feed.controller.next();
    await reports.waitFor('playback', 't1');
  });

  it("refuses to open a page of the host page's own origin (it would be same-origin with the host) with FORBIDDEN; another site is fine", async () => {
    const feed = mount({ items: templateItems(1) });
    const errors = collect('error');
    await reports.waitFor('playback', 't0');
    const hostPage = new URL('/test/fixtures/feed/plain.html', HOST_ORIGIN).toString();
    for (const method of ['navigate', 'present']) {
      const reply = await reports.command(windowOf(0), method, hostPage);
      expect(reply.ok, method).to.equal(false);
      expect(reply.value, method).to.deep.include({ code: 'FORBIDDEN' });
      expect((reply.value as { message: string }).message).to.match(/cannot open a page of the host page's own origin/);
    }
    expect(errors.filter(({ error }) => error.code === 'FORBIDDEN').length).to.equal(2);
    expect(feed.controller.sheetOpen).to.equal(false);
    expect(new URL(feed.controller.frameAt(0)!.iframe.src).origin).to.equal(TEMPLATE_ORIGIN);
    // A third site is any site: allowed.
    const elsewhere = new URL(feedFixtureUrl('template', { tag: 'third' }));
    elsewhere.host = new URL(THIRD_ORIGIN).host;
    expect((await reports.command(windowOf(0), 'navigate', elsewhere.toString())).ok).to.equal(true);
    await reports.waitFor('load-called', 'third');
  });

  it('refuses a template that floods calls with RATE_LIMITED and keeps working', async () => {
    const feed = mount({ items: templateItems(2) });
    const errors = collect('error');
    await reports.waitFor('playback', 't0');
    const touches = (await reports.command(windowOf(0), 'flood', 'touch', 2_000)).value as Record<string, number>;
    expect(touches['RATE_LIMITED']).to.be.above(1_000);
    expect(touches['ok']).to.be.within(200, 600);
    const calls = (await reports.command(windowOf(0), 'flood', 'cancel', 500)).value as Record<string, number>;
    expect(calls['RATE_LIMITED']).to.be.above(400);
    // Reported, but not 2000 times: at most once a second per template.
    const limited = errors.filter(({ error }) => error.code === 'RATE_LIMITED');
    expect(limited.length).to.be.within(1, 3);
    expect(limited[0]?.error.message).to.match(/^platform-kit: too many/);
    // The feed keeps working.
    feed.controller.next();
    await reports.waitFor('playback', 't1');
    expect(feed.controller.index).to.equal(1);
  });

  it('share() uses the Web Share API where there is one', async () => {
    const shared: FeedShareData[] = [];
    const feed = mount({
      items: [{ url: feedFixtureUrl('template', { tag: 's0' }), title: 'Shared', shareUrl: 'https://feed.example/t/s0' }],
      share: async (data) => {
        shared.push(data);
      },
    });
    const shares = collect('share');
    await reports.waitFor('playback', 's0');
    expect((await reports.command(windowOf(0), 'share')).ok).to.equal(true);
    await waitUntil(() => shares.length === 1, 'the share');
    expect(shared).to.deep.equal([{ url: 'https://feed.example/t/s0', title: 'Shared' }]);
    expect(shares[0]?.method).to.equal('web-share');
    expect(feed.controller.shareSheetOpen).to.equal(false);
  });

  it('share() opens a share sheet with copy-link without the Web Share API, or when it refuses', async () => {
    await executeServerCommand('feed-grant-clipboard', { origin: HOST_ORIGIN });
    const feed = mount({
      items: templateItems(1),
      share: () => Promise.reject(new DOMException('no user activation', 'NotAllowedError')),
    });
    const shares = collect('share');
    await reports.waitFor('playback', 't0');
    expect((await reports.command(windowOf(0), 'share')).ok).to.equal(true);
    await waitUntil(() => shares.length === 1, 'the share sheet');
    expect(shares[0]?.method).to.equal('sheet');
    const sheet = feed.box.querySelector('.pk-share')!;
    const link = feedFixtureUrl('template', { tag: 't0' });
    expect(sheet.querySelector('input')?.value).to.equal(link);
    window.focus();
    sheet.querySelector<HTMLButtonElement>('.pk-share-copy')!.click();
    await waitUntil(() => sheet.querySelector('.pk-share-status')?.textContent === 'Link copied', 'the copy');
    expect(await navigator.clipboard.readText()).to.equal(link);
    sheet.querySelector<HTMLButtonElement>('.pk-share-close')!.click();
    expect(feed.controller.shareSheetOpen).to.equal(false);
  });

  it('createRemix({id?}) asks the host to open the editor for that project, default the current one', async () => {
    mount({ items: templateItems(2) });
    const remixes = collect('createremix');
    await reports.waitFor('playback', 't0');
    expect((await reports.command(windowOf(0), 'createRemix')).ok).to.equal(true);
    expect((await reports.command(windowOf(0), 'createRemix', { id: 'another-project' })).ok).to.equal(true);
    expect(remixes.map(({ index, projectId }) => ({ index, projectId }))).to.deep.equal([
      { index: 0, projectId: 'project-0' },
      { index: 0, projectId: 'another-project' },
    ]);
    const bad = await reports.command(windowOf(0), 'createRemix', { id: 42 });
    expect(bad.value).to.deep.include({ code: 'INVALID_ARGUMENT' });
  });

  it('passes the viewing context to templates', async () => {
    const feed = mount({
      items: [
        { url: feedFixtureUrl('template', { tag: 'about' }), context: 'about' },
        { url: feedFixtureUrl('template', { tag: 'admin' }), context: 'admin' },
        { url: feedFixtureUrl('template', { tag: 'plain' }) },
      ],
    });
    await reports.waitFor('loaded', 'admin');
    await reports.waitFor('loaded', 'about');
    expect(reports.of('loaded', 'about')[0]?.['context']).to.equal('about');
    expect(reports.of('loaded', 'admin')[0]?.['context']).to.equal('admin');
    feed.controller.next();
    await reports.waitFor('loaded', 'plain');
    expect(reports.of('loaded', 'plain')[0]?.['context']).to.equal('default');
  });

  it('<platform-feed src="…feedDebug=true"> opens a test feed with that template 10 times', async () => {
    defineHostElements();
    const debugUrl = feedFixtureUrl('template', { tag: 'debug', feedDebug: 'true' });
    expect(feedDebugItems(debugUrl)).to.have.length(10);
    expect(feedDebugItems(feedFixtureUrl('template'))).to.equal(null);
    const element: PlatformFeed = document.createElement('platform-feed');
    element.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px; z-index: 1000;';
    element.src = debugUrl;
    element.snapDurationMs = 0;
    const focusEvents: number[] = [];
    element.addEventListener('feed-focuschange', (event) => focusEvents.push((event as CustomEvent<{ index: number }>).detail.index));
    document.body.append(element);
    try {
      await element.updateComplete;
      const controller = element.controller!;
      expect(controller.items).to.have.length(10);
      expect(controller.items.every((item) => !item.url.includes('feedDebug'))).to.equal(true);
      await reports.waitFor('playback', 'debug');
      await waitUntil(() => countIframes(element.shadowRoot!) === 2, 'the neighbour to preload');
      element.next();
      element.next();
      // Item 1 is passed before it plays: item 0 pauses, item 2 plays.
      await reports.waitFor('playback', 'debug', 3, 15_000);
      expect(playback('debug')).to.deep.equal([true, false, true]);
      expect(focusEvents).to.deep.equal([0, 1, 2]);
      await waitUntil(() => countIframes(element.shadowRoot!) === 3, 'the window of 3');
      // Leaving the document releases every frame and listener.
      element.remove();
      expect(element.controller).to.equal(null);
      expect(countIframes(element.shadowRoot!)).to.equal(0);
      expect(TEMPLATE_ORIGIN).to.not.equal(HOST_ORIGIN);
    } finally {
      element.remove();
    }
  });
});
