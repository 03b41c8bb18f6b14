// Node-side help for the feed's browser tests (test/browser/feed-*.test.ts):
//   - /test/fixtures/feed/deny.html is served with X-Frame-Options: DENY and
//     CSP frame-ancestors 'none' (only that path), so present and navigate
//     meet a target that cannot be framed;
//   - 'feed-touch': dispatches real touch events through the Chromium
//     DevTools Protocol (Input.dispatchTouchEvent) at page coordinates, so a
//     touch over a cross-origin iframe reaches the template's document;
//   - 'feed-wheel': moves the mouse to a page point and turns the wheel there
//     (playwright's mouse.wheel: a real wheel event at that point, so over
//     a cross-origin iframe it reaches the template's document);
//   - 'feed-key': clicks a page point (giving the frame there the keyboard
//     focus) unless told not to, then presses keys (playwright's keyboard);
//   - 'feed-grant-clipboard': lets the test page use the async clipboard.
const DENY_PREFIX = '/test/fixtures/feed/deny';
const cdpSessions = new WeakMap();

function playwrightPage(session) {
  if (session.browser.type !== 'playwright') throw new Error('feed commands need the playwright launcher');
  return session.browser.getPage(session.id);
}

async function cdpFor(page) {
  let cdp = cdpSessions.get(page);
  if (!cdp) {
    // The page of an earlier test file may still be the front tab; a tab behind it gets
    // fewer frames, and Chromium delivers touch moves with frames (rAF-aligned input).
    await page.bringToFront();
    cdp = await page.context().newCDPSession(page);
    cdpSessions.set(page, cdp);
  }
  return cdp;
}

const TOUCH_TYPES = new Set(['touchStart', 'touchMove', 'touchEnd', 'touchCancel']);

export default [
  {
    name: 'platform-kit-feed',
    // A transform hook, not middleware: the dev server answers files before later middleware runs.
    transform(context) {
      if (!context.path.startsWith(DENY_PREFIX)) return undefined;
      return { headers: { 'X-Frame-Options': 'DENY', 'Content-Security-Policy': "frame-ancestors 'none'" } };
    },
    async executeCommand({ command, payload, session }) {
      if (command === 'feed-touch') {
        const cdp = await cdpFor(playwrightPage(session));
        // Each event carries the time it is meant to happen at (the steps' delays from the first),
        // not the time this process got round to sending it: the feed reads a flick's speed from
        // event times, and on a busy machine these sends can stall for tens of ms.
        let at = Date.now() / 1000;
        for (const step of payload?.steps ?? []) {
          if (!TOUCH_TYPES.has(step.type)) throw new Error(`feed-touch: unknown type ${step.type}`);
          await cdp.send('Input.dispatchTouchEvent', {
            type: step.type,
            touchPoints: (step.points ?? []).map((point) => ({ x: point.x, y: point.y, id: point.id ?? 0 })),
            timestamp: at,
          });
          if (step.delayMs) {
            at += step.delayMs / 1000;
            await new Promise((resolve) => setTimeout(resolve, step.delayMs));
          }
        }
        return true;
      }
      if (command === 'feed-wheel') {
        const page = playwrightPage(session);
        await cdpFor(page); // brings the page to the front, as for touches
        await page.mouse.move(Number(payload?.x), Number(payload?.y));
        for (const deltaY of payload?.deltas ?? []) {
          await page.mouse.wheel(0, Number(deltaY));
          if (payload?.delayMs) await new Promise((resolve) => setTimeout(resolve, payload.delayMs));
        }
        return true;
      }
      if (command === 'feed-key') {
        const page = playwrightPage(session);
        await cdpFor(page);
        if (payload?.click) await page.mouse.click(Number(payload.click.x), Number(payload.click.y));
        for (const key of payload?.keys ?? []) {
          await page.keyboard.press(String(key));
          if (payload?.delayMs) await new Promise((resolve) => setTimeout(resolve, payload.delayMs));
        }
        return true;
      }
      if (command === 'feed-grant-clipboard') {
        const page = playwrightPage(session);
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: String(payload?.origin) });
        return true;
      }
      return undefined;
    },
  },
];
