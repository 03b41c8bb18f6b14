import { expect } from '@esm-bundle/chai';
import { defineHostElements, type FeedItem, type PlatformFeed } from '../../host/index.js';
import { feedFixtureUrl, feedSuite, templateItems } from './support/feed.js';
import { TEMPLATE_ORIGIN, THIRD_ORIGIN, waitUntil } from './support/probe.js';

describe('feed: per-item values and the iframe permissions policy', function () {
  const { reports, mount, windowOf, collect } = feedSuite();

  /** An item of the remix-aware test template, tagged `tag`. */
  const remixItem = (tag: string, values?: FeedItem['values']): FeedItem => ({
    url: feedFixtureUrl('template', { tag, remix: 1 }),
    id: tag,
    projectId: `project-${tag}`,
    ...(values === undefined ? {} : { values }),
  });

  it("an item's values reach the template's get() as in a remix preview; the feed's own calls keep working", async () => {
    const feed = mount({ items: [remixItem('r0', { card: { title: 'Published remix' } }), remixItem('r1')] });
    const { controller } = feed;
    const remixes = collect('createremix');
    await reports.waitFor('playback', 'r0');
    // The item's value, over the built one; a value the item does not set stays the built one.
    expect((await reports.command(windowOf(0), 'get', ['card', 'title'])).value).to.equal('Published remix');
    expect((await reports.command(windowOf(0), 'get', ['card', 'size'])).value).to.equal(1);
    // A preview, not a remix: onSetRemixing hears false.
    await reports.waitFor('remixing', 'r0');
    expect(reports.of('remixing', 'r0')).to.deep.equal([{ isRemixing: false }]);
    // The session's handlers sit over the feed's, which still answer: createRemix, touches.
    expect((await reports.command(windowOf(0), 'createRemix')).ok).to.equal(true);
    expect(remixes).to.deep.equal([{ index: 0, item: controller.items[0], projectId: 'project-r0' }]);
    // onSetValue works as in a preview: stored, and echoed to onValueChanged.
    expect((await reports.command(windowOf(0), 'setValue', ['card', 'title'], 'Typed')).ok).to.equal(true);
    await reports.waitFor('value', 'r0');
    expect(reports.of('value', 'r0')).to.deep.equal([{ path: ['card', 'title'], value: 'Typed' }]);
    // An item without values: its own built values, and setValue is not the feed's business.
    await waitUntil(() => controller.statusAt(1) === 'loaded', 'r1 loaded');
    expect((await reports.command(windowOf(1), 'get', ['card', 'title'])).value).to.equal('Built title');
    // The feed answers UNSUPPORTED, which onSetValue takes as "does not apply here": it resolves and changes nothing.
    expect((await reports.command(windowOf(1), 'setValue', ['card', 'title'], 'x')).ok).to.equal(true);
    expect((await reports.command(windowOf(1), 'get', ['card', 'title'])).value).to.equal('Built title');
  });

  it('every item, plain or with values, hears onSetRemixing(false) after ready(): a template that loads only then is shown, not skipped', async () => {
    const startsRemixing = (tag: string, values?: FeedItem['values']): FeedItem => ({
      url: feedFixtureUrl('starts-remixing', { tag }),
      id: tag,
      ...(values === undefined ? {} : { values }),
    });
    const feed = mount({ items: [startsRemixing('plain'), startsRemixing('valued', { card: { title: 'Published remix' } })], loadTimeoutMs: 3_000 });
    const { controller } = feed;
    const skips = collect('skip');
    // The plain item (no values, so no RemixSession) hears it too, once, and loads.
    await reports.waitFor('remixing', 'plain');
    expect(reports.of('remixing', 'plain')).to.deep.equal([{ isRemixing: false }]);
    await reports.waitFor('playback', 'plain');
    expect(controller.statusAt(0)).to.equal('loaded');
    expect(reports.of('playback', 'plain')).to.deep.equal([{ isPlaying: true }]);
    // The item with values hears it from its session, once as before.
    await reports.waitFor('remixing', 'valued');
    await waitUntil(() => controller.statusAt(1) === 'loaded', 'the item with values loaded');
    expect(reports.of('remixing', 'valued')).to.deep.equal([{ isRemixing: false }]);
    expect(skips).to.deep.equal([]);
  });

  it("a session's guest calls go through the feed's door: rate limited and reported", async () => {
    mount({ items: [remixItem('r0', { card: { title: 'Published remix' } })], callRateLimit: { burst: 3, perSecond: 0.001 } });
    const errors = collect('error');
    await reports.waitFor('playback', 'r0');
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await reports.command(windowOf(0), 'setValue', ['card', 'title'], `v${i}`);
      codes.push(reply.ok ? 'ok' : (reply.value as { code?: string }).code);
    }
    expect(codes).to.deep.equal(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(errors.map(({ index, error }) => [index, error.code])).to.deep.equal([[0, 'RATE_LIMITED']]);
  });

  it('a page the item navigates to does not get its values', async () => {
    mount({ items: [remixItem('r0', { card: { title: 'Published remix' } }), ...templateItems(1, {}, 1)] });
    await reports.waitFor('playback', 'r0');
    const target = feedFixtureUrl('template', { tag: 'elsewhere', remix: 1 });
    expect((await reports.command(windowOf(0), 'navigate', target)).ok).to.equal(true);
    await reports.waitFor('playback', 'elsewhere');
    expect((await reports.command(windowOf(0), 'get', ['card', 'title'])).value).to.equal('Built title');
  });

  it('refuses values under a name of Object.prototype (toString, hasOwnProperty…) with the item, before any frame is made', async () => {
    const feed = mount({ items: [] });
    const { controller } = feed;
    const errors = collect('error');
    for (const values of [{ card: { toString: 'x' } }, { hasOwnProperty: { title: 'x' } }, { card: { valueOf: 1, title: 'ok' } }]) {
      expect(() => controller.append([remixItem('bad', values)]), JSON.stringify(values))
        .to.throw()
        .with.property('code', 'INVALID_ARGUMENT');
    }
    expect(controller.items).to.deep.equal([]);
    // The feed goes on: a good item after them plays with its values.
    controller.append([remixItem('r0', { card: { title: 'Published remix' } })]);
    await reports.waitFor('playback', 'r0');
    expect((await reports.command(windowOf(0), 'get', ['card', 'title'])).value).to.equal('Published remix');
    expect(errors).to.deep.equal([]);
  });

  it('refuses malformed values with the item (INVALID_ARGUMENT)', () => {
    const feed = mount({ items: [] });
    const { controller } = feed;
    const bad: unknown[] = [
      'nope',
      { card: 'title' },
      { card: { constructor: 1 } },
      JSON.parse('{"__proto__": {"x": 1}}'),
      { card: { title: () => 1 } },
      { card: { title: 'x'.repeat(300 * 1024) } },
    ];
    for (const values of bad) {
      expect(() => controller.append([{ url: feedFixtureUrl('template'), values } as FeedItem]), JSON.stringify(values)?.slice(0, 40))
        .to.throw()
        .with.property('code', 'INVALID_ARGUMENT');
    }
    expect(controller.items).to.deep.equal([]);
  });

  it("passes `allow` to the items' iframes, and not to a page of another origin", async () => {
    const feed = mount({ items: templateItems(2), allow: 'camera; microphone; autoplay' });
    const { controller } = feed;
    await reports.waitFor('playback', 't0');
    expect(controller.frameAt(0)?.iframe.getAttribute('allow')).to.equal('camera; microphone; autoplay');
    expect(controller.frameAt(1)?.iframe.getAttribute('allow')).to.equal('camera; microphone; autoplay');
    // A page of the item's origin keeps it; any other site gets TemplateFrame's default.
    const sameOrigin = feedFixtureUrl('template', { tag: 'same' });
    expect((await reports.command(windowOf(0), 'present', sameOrigin)).ok).to.equal(true);
    expect(controller.sheetFrame?.iframe.getAttribute('allow')).to.equal('camera; microphone; autoplay');
    controller.closeSheet();
    const otherOrigin = new URL('/test/fixtures/feed/plain.html', THIRD_ORIGIN).toString();
    expect(new URL(otherOrigin).origin).to.not.equal(TEMPLATE_ORIGIN);
    expect((await reports.command(windowOf(0), 'navigate', otherOrigin)).ok).to.equal(true);
    await waitUntil(() => controller.frameAt(0)?.iframe.src === otherOrigin, 'the navigation');
    expect(controller.frameAt(0)?.iframe.getAttribute('allow')).to.equal('autoplay; fullscreen; clipboard-write');
  });

  it('<platform-feed allow> reaches the controller', async () => {
    defineHostElements();
    const element: PlatformFeed = document.createElement('platform-feed');
    element.setAttribute('allow', 'camera; microphone');
    element.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px;';
    element.items = templateItems(1);
    document.body.append(element);
    try {
      await waitUntil(() => element.controller?.frameAt(0) != null, 'the first frame');
      expect(element.controller?.frameAt(0)?.iframe.getAttribute('allow')).to.equal('camera; microphone');
    } finally {
      element.remove();
    }
  });
});
