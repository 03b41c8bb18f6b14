// Node-side help for test/browser/frame-containment.test.ts:
//   - 'popup-click': a real mouse click at a point of a popup the test page
//     opened (found by its URL), so that the template iframe there gets user
//     activation as after a user's tap. A popup is a top-level page, as a
//     host page is in production, where the test page itself must stay put.
//   - 'page-heap': the test page's JS heap in use after a full garbage
//     collection (DevTools Protocol), to see what a hostile template makes it keep.
export default [
  {
    name: 'platform-kit-containment',
    async executeCommand({ command, payload, session }) {
      if (command !== 'popup-click' && command !== 'page-heap') return undefined;
      if (session.browser.type !== 'playwright') throw new Error(`${command} needs the playwright launcher`);
      const page = session.browser.getPage(session.id);
      if (command === 'page-heap') {
        const cdp = await page.context().newCDPSession(page);
        try {
          await cdp.send('HeapProfiler.collectGarbage');
          const { usedSize } = await cdp.send('Runtime.getHeapUsage');
          return usedSize;
        } finally {
          await cdp.detach();
        }
      }
      const popup = page
        .context()
        .pages()
        .find((candidate) => candidate !== page && candidate.url() === payload.url);
      if (!popup) throw new Error(`popup-click: no popup at ${payload.url}`);
      await popup.mouse.click(payload.x, payload.y);
      return true;
    },
  },
];
