// Node-side help for test/browser/frame-containment.test.ts:
//   - 'popup-click': a real mouse click at a point of a popup the test page
//     opened (found by its URL), so that the template iframe there gets user
//     activation as after a user's tap. A popup is a top-level page, as a
//     host page is in production, where the test page itself must stay put.
export default [
  {
    name: 'platform-kit-containment',
    async executeCommand({ command, payload, session }) {
      if (command !== 'popup-click') return undefined;
      if (session.browser.type !== 'playwright') throw new Error('popup-click needs the playwright launcher');
      const page = session.browser.getPage(session.id);
      const popup = page.context().pages().find((candidate) => candidate !== page && candidate.url() === payload.url);
      if (!popup) throw new Error(`popup-click: no popup at ${payload.url}`);
      await popup.mouse.click(payload.x, payload.y);
      return true;
    },
  },
];
