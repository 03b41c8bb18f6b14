/**
 * The demo path of the players-meet benchmark: two users open the demo's
 * Sketch party as a user does, on the demo server (`npm start`: Vite's dev
 * server, or the production build), and each waits to see the other in the
 * players list. Two ways in:
 *
 * - `page`: the template's own URL (`/templates/sketch/`), where it joins at
 *   once; measured from the navigation start of each page (both navigations
 *   start together).
 * - `feed`: the feed (`/`), then the sketch board brought into focus
 *   (`goTo(1)`, what a swipe does), where it joins once in focus; measured
 *   from that focus change.
 *
 * Each page carries the marks of meet-marks.ts, so the time splits into page
 * load, the template's script, connect(), the join, presence, peerjs and the
 * data channel.
 */
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { MEET_MARKS_SCRIPT, firstOf, type MeetMarks } from './meet-marks.js';

/** The players list of the board: `<body data-players>`, noted as a mark when it changes. */
const PLAYERS_SCRIPT = `(() => {
  if (!location.pathname.startsWith('/templates/sketch/')) return;
  const watch = () => { const n = document.body?.dataset.players; if (n) window.__meet.mark('players ' + n); };
  new MutationObserver(watch).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-players'] });
  addEventListener('DOMContentLoaded', () => window.__meet.mark('DOMContentLoaded'));
})();`;

const WAIT_MS = 30_000;

/** One user's view of one meeting: marks in ms from the reference (navigation start, or the focus change). */
export interface DemoMeeting {
  /** From the reference to both players listed. */
  readonly seen: number;
  /** Every mark (its first time) in ms from the reference. */
  readonly steps: Record<string, number>;
}

async function frameOf(page: Page, part: string): Promise<Frame> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(part));
    if (frame) return frame;
    if (Date.now() > deadline) throw new Error(`no frame ${part}`);
    await page.waitForTimeout(10);
  }
}

async function newUser(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  await context.addInitScript({ content: MEET_MARKS_SCRIPT });
  await context.addInitScript({ content: PLAYERS_SCRIPT });
  return { context, page: await context.newPage() };
}

function steps(marks: MeetMarks, from: number): Record<string, number> {
  const result: Record<string, number> = {};
  for (const name of Object.keys(marks)) result[name] = (firstOf(marks, name) ?? Number.NaN) - from;
  return result;
}

/** Two users open the board; each user's meeting, measured from their own reference. */
export async function meetOnDemo(browser: Browser, urls: { readonly host: string; readonly template: string }, way: 'page' | 'feed', problems: string[]): Promise<DemoMeeting[]> {
  const users = [await newUser(browser), await newUser(browser)];
  try {
    for (const { page } of users) page.on('pageerror', (error) => problems.push(`[demo ${way}] ${error.message}`));
    const references: number[] = [];
    const frames: Frame[] = [];
    if (way === 'page') {
      await Promise.all(users.map(({ page }) => page.goto(`${urls.template}/templates/sketch/`, { waitUntil: 'commit' })));
      for (const { page } of users) {
        frames.push(page.mainFrame());
        references.push(await page.evaluate(() => performance.timeOrigin));
      }
    } else {
      await Promise.all(users.map(({ page }) => page.goto(`${urls.host}/`)));
      for (const { page } of users) {
        const frame = await frameOf(page, '/templates/sketch/');
        await frame.waitForFunction(() => document.readyState === 'complete', undefined, { timeout: WAIT_MS });
        frames.push(frame);
      }
      // As a user who looks at the first card a moment, then swipes to the board.
      await users[0]!.page.waitForTimeout(500);
      const focused = await Promise.all(
        users.map(({ page }) =>
          page.evaluate(() => {
            const feed = document.querySelector('platform-feed') as (HTMLElement & { goTo(index: number): boolean }) | null;
            const at = performance.timeOrigin + performance.now();
            feed?.goTo(1);
            return at;
          }),
        ),
      );
      references.push(...focused);
    }
    const meetings: DemoMeeting[] = [];
    for (const [index, frame] of frames.entries()) {
      await frame.waitForFunction(() => (window.__meet?.marks['players 2']?.length ?? 0) > 0, undefined, { timeout: WAIT_MS });
      // The rest of the breakdown: the pair's data channel (the board relays until then; a pair
      // that never opens one is left out of that step, not of the figure).
      await frame.waitForFunction(() => (window.__meet?.marks['data channel open']?.length ?? 0) > 0, undefined, { timeout: 10_000 }).catch(() => undefined);
      const marks = await frame.evaluate(() => window.__meet!.marks);
      const reference = references[index]!;
      meetings.push({ seen: (firstOf(marks, 'players 2') ?? Number.NaN) - reference, steps: steps(marks, reference) });
    }
    return meetings;
  } finally {
    for (const { context } of users) await context.close();
  }
}
