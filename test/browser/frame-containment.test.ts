import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { TemplateFrame } from '../../host/index.js';
import { fixtureUrl, HOST_ORIGIN, sleep, TEMPLATE_ORIGIN, THIRD_ORIGIN, waitUntil } from './support/probe.js';

/**
 * A template must never make the host page navigate. Once the user has
 * clicked in it, a cross-origin iframe that is not sandboxed may navigate
 * the top page. The host page here is a popup of the test page (a top-level
 * page, as a host page is in production), so that the test page stays put.
 */
describe('a template cannot navigate the host page', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  const ways = { location: 'top.location', open: 'window.open(…, "_top")', link: 'a target=_top link' } as const;
  let nextHost = 1;
  for (const [how, name] of Object.entries(ways)) {
    it(`after a click in it (user activation), ${name} leaves the host page where it is`, async () => {
      const hostUrl = new URL(`/test/fixtures/guest/blank.html?host=${nextHost++}`, HOST_ORIGIN).toString();
      const host = window.open(hostUrl, '_blank', 'popup,width=480,height=360');
      expect(host, 'a popup').to.not.equal(null);
      cleanups.push(() => host!.close());
      await waitUntil(() => host!.document.readyState === 'complete' && host!.location.href === hostUrl, 'the host page to load');

      const seen: { probe: string; data: { outcome?: string } }[] = [];
      const listener = (event: MessageEvent): void => {
        if (event.origin === TEMPLATE_ORIGIN) seen.push(event.data as { probe: string; data: { outcome?: string } });
      };
      window.addEventListener('message', listener);
      cleanups.push(() => window.removeEventListener('message', listener));

      const to = `${THIRD_ORIGIN}/test/fixtures/guest/blank.html`;
      host!.document.body.style.margin = '0';
      const frame = new TemplateFrame({ src: fixtureUrl('framebuster', { to, how }), container: host!.document.body, handshakeTimeoutMs: 60_000 });
      frame.iframe.style.cssText = 'width: 300px; height: 200px; border: 0; display: block';
      cleanups.push(() => frame.destroy());
      await waitUntil(() => seen.some((message) => message.probe === 'framebuster-ready'), 'the template to load');
      const hrefNow = (): string => {
        try {
          return host!.location.href;
        } catch {
          return 'another origin: the template navigated the host page';
        }
      };
      // A real click in the template gives it user activation. It reports its attempt, unless the
      // navigation took it away first. (The first click in a new popup is sometimes lost: repeated.)
      const tried = (): boolean => seen.some((message) => message.probe === 'framebuster') || hrefNow() !== hostUrl;
      for (let attempt = 0; attempt < 10 && !tried(); attempt++) {
        if (hrefNow() === hostUrl) await executeServerCommand('popup-click', { url: hostUrl, x: 100, y: 100 });
        await sleep(200);
      }
      expect(tried(), 'the template to try').to.equal(true);
      await sleep(500);
      const href = hrefNow();
      expect(href, JSON.stringify(seen.map((message) => message.data))).to.equal(hostUrl);
      expect(host!.document.body.contains(frame.iframe)).to.equal(true);
    });
  }
});
