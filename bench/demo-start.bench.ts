/**
 * Start of the demo's feed and editor (issue 18), for the dev server (the
 * baseline: Vite transforms every module on request) and the production build
 * (`npm run build`, served statically by the same demo server), in the same
 * run, rounds taking turns. Each round starts both servers afresh (in this
 * process, on free ports, temporary data folders); the build is made once, into
 * a temporary folder, from the sources as they are.
 *
 * Measured, in ms from the host page's navigation start (wall clock in every
 * frame: performance.timeOrigin + now, comparable across processes):
 *   - feed, first visit after the server started (new browser context);
 *     cold (another new context: empty cache, server warm); warm (the same
 *     context, reloaded):
 *       visible: the first template painted (its first-contentful-paint) and
 *         shown by the feed (the first host frame in which its item is
 *         `is-loaded`, when its fade-in starts), whichever is later;
 *       interactive: the template heard onPlaybackStateChanged(true) (its
 *         `<html data-playing="true">`), which follows its FeedSdk.load();
 *   - swipe to a preloaded neighbour (phone-sized page, DevTools touches over
 *     the greeting card, one swipe to the sketch board per page load): host frames (its
 *     requestAnimationFrame callbacks) from the swipe end (the touchend in
 *     the template under the finger) to the next template's first frame
 *     after it (its first requestAnimationFrame callback at or after the end;
 *     a template whose frames are throttled while off screen has none
 *     until the browser draws it again); and from the first move of the swipe
 *     (when the neighbour comes into view) to its first frame;
 *   - editor (`/editor.html?template=greeting`), cold and warm: template
 *     painted and `platform-editor-ready` with the editor's controls rendered
 *     (its Lit update done and a frame after it), whichever is later.
 *
 * Targets: feed visible and interactive cold ≤ 1 s on the production build;
 * swipe end → next template painted ≤ 1 frame (median); editor ready ≤ 1 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { buildDemo } from '../demo/build.js';
import { startDemo, type DemoServer } from '../demo/server.js';
import { ms, stats, table, type BenchContext, type BenchOutcome, type Stats } from './support/bench.js';

export const description =
  'Demo start, dev server (baseline) vs production build: feed first template visible and interactive (first visit, cold, warm), swipe → preloaded neighbour painted (frames), editor ready.';

/** Rounds (each: both servers started afresh, every measure once). DEMO_START_ROUNDS changes it. */
const ROUNDS = Number(process.env['DEMO_START_ROUNDS'] ?? 6);
/** Target: first template visible and interactive, cold, production build. */
export const MAX_COLD_MS = 1_000;
/** Target: host frames from a swipe's end to the next (preloaded) template's first frame. */
export const MAX_SWIPE_FRAMES = 1;
/** Target: editor page load → template shown with its controls ready. */
export const MAX_EDITOR_MS = 1_000;
const WAIT_MS = 20_000;

/**
 * Runs in every frame before its scripts (a string: the bundler's helpers must not
 * reach the page). Records marks in wall-clock ms on `window.__pkStart`.
 */
const INIT_SCRIPT = `(() => {
  const wall = (t) => performance.timeOrigin + t;
  const marks = {};
  const mark = (name, t) => { if (!(name in marks)) marks[name] = wall(t === undefined ? performance.now() : t); };
  const rafs = [];
  let logging = false;
  const loop = (t) => { rafs.push(wall(t)); if (logging) requestAnimationFrame(loop); };
  Object.defineProperty(window, '__pkStart', { value: {
    marks, rafs,
    startRafLog() { rafs.length = 0; if (!logging) { logging = true; requestAnimationFrame(loop); } },
    stopRafLog() { logging = false; },
    resetTouch() { delete marks.touchmove; delete marks.touchend; },
  } });
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) mark(entry.name, entry.startTime); }).observe({ type: 'paint', buffered: true });
  if (location.pathname.startsWith('/templates/')) {
    // On the document: its root element does not exist yet when this runs.
    const watch = () => { if (document.documentElement?.dataset.playing === 'true') mark('playing'); };
    new MutationObserver(watch).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-playing'] });
    addEventListener('touchmove', () => mark('touchmove'), { capture: true, passive: true });
    addEventListener('touchend', () => mark('touchend'), { capture: true, passive: true });
    return;
  }
  addEventListener('platform-editor-ready', (event) => {
    mark('editorReady');
    Promise.resolve(event.target.updateComplete).then(() => requestAnimationFrame((t) => mark('editorControls', t)));
  }, true);
  const poll = (t) => {
    const item = document.querySelector('platform-feed')?.shadowRoot?.querySelector('.pk-feed-item[data-index="0"].is-loaded');
    if (item) mark('itemShown', t);
    else if (performance.now() < 60000) requestAnimationFrame(poll);
  };
  if (location.pathname === '/') requestAnimationFrame(poll);
})();`;

interface StartMarks {
  readonly marks: Record<string, number>;
  readonly rafs: number[];
}

declare global {
  interface Window {
    __pkStart?: StartMarks & { startRafLog(): void; stopRafLog(): void; resetTouch(): void };
  }
}

/** 'compare': another build, given by DEMO_START_COMPARE_DIST (an ablation: e.g. the demo built on an older kit). */
type Mode = 'dev' | 'prod' | 'compare';
const COMPARE_DIST = process.env['DEMO_START_COMPARE_DIST'];
const MODES: readonly Mode[] = COMPARE_DIST ? ['dev', 'prod', 'compare'] : ['dev', 'prod'];

interface Samples {
  firstVisible: number[];
  firstInteractive: number[];
  coldVisible: number[];
  coldInteractive: number[];
  warmVisible: number[];
  warmInteractive: number[];
  swipeEndFrames: number[];
  swipeEnterFrames: number[];
  /** The neighbour's first paint, in ms after the swipe's first move (negative: painted before it came into view). */
  neighbourFirstPaint: number[];
  editorCold: number[];
  editorWarm: number[];
}

const emptySamples = (): Samples => ({
  firstVisible: [],
  firstInteractive: [],
  coldVisible: [],
  coldInteractive: [],
  warmVisible: [],
  warmInteractive: [],
  swipeEndFrames: [],
  swipeEnterFrames: [],
  neighbourFirstPaint: [],
  editorCold: [],
  editorWarm: [],
});

async function templateFrame(page: Page, part: string): Promise<Frame> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(part));
    if (frame) return frame;
    if (Date.now() > deadline) throw new Error(`no frame ${part}`);
    await page.waitForTimeout(5);
  }
}

const readMarks = (target: Page | Frame): Promise<StartMarks> =>
  target.evaluate(() => ({ marks: { ...(window.__pkStart?.marks ?? {}) }, rafs: [...(window.__pkStart?.rafs ?? [])] }));

/** Loads (or reloads) the feed; returns visible and interactive in ms from the host's navigation start. */
async function feedStart(page: Page, url: string | null): Promise<{ visible: number; interactive: number }> {
  if (url === null) await page.reload();
  else await page.goto(url);
  const origin = await page.evaluate(() => performance.timeOrigin);
  const frame = await templateFrame(page, '/templates/greeting/');
  await frame.waitForFunction(() => window.__pkStart?.marks['playing'] !== undefined, undefined, { timeout: WAIT_MS });
  await page.waitForFunction(() => window.__pkStart?.marks['itemShown'] !== undefined, undefined, { timeout: WAIT_MS });
  const template = (await readMarks(frame)).marks;
  const host = (await readMarks(page)).marks;
  const painted = template['first-contentful-paint'] ?? template['first-paint'] ?? Number.NaN;
  return { visible: Math.max(painted, host['itemShown'] ?? Number.NaN) - origin, interactive: (template['playing'] ?? Number.NaN) - origin };
}

async function swipeUp(page: Page, cdp: CDPSession): Promise<void> {
  const box = await page.locator('platform-feed').boundingBox();
  if (!box) throw new Error('no feed on the page');
  const x = box.x + box.width * 0.3;
  const ys = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2].map((fraction) => box.y + box.height * fraction);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: ys[0] ?? 0 }] });
  for (const y of ys.slice(1)) {
    await new Promise((resolve) => setTimeout(resolve, 16));
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
  }
  await new Promise((resolve) => setTimeout(resolve, 16));
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/**
 * One swipe, from the greeting card to the sketch board, its preloaded neighbour: host frames from
 * the swipe's end (and from its first move) to the board's first frame. (One per page: swipes over
 * the board would draw on it.)
 */
async function swipe(page: Page, samples: Samples): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const current = await templateFrame(page, '/templates/greeting/');
  // As a user: the neighbour has loaded, the feed is at rest, and a moment has passed.
  await page.waitForFunction(() => document.querySelector('platform-feed')?.shadowRoot?.querySelector('.pk-feed-item[data-index="1"].is-loaded') != null, undefined, {
    timeout: WAIT_MS,
  });
  await page.waitForTimeout(400);
  const next = await templateFrame(page, '/templates/sketch/');
  await current.evaluate(() => window.__pkStart?.resetTouch());
  await next.evaluate(() => window.__pkStart?.startRafLog());
  await page.evaluate(() => window.__pkStart?.startRafLog());
  await swipeUp(page, cdp);
  await next.waitForFunction(() => window.__pkStart?.marks['playing'] !== undefined, undefined, { timeout: WAIT_MS });
  await page.waitForTimeout(200);
  await page.evaluate(() => window.__pkStart?.stopRafLog());
  await next.evaluate(() => window.__pkStart?.stopRafLog());
  const host = await readMarks(page);
  const touched = (await readMarks(current)).marks;
  const nextMarks = await readMarks(next);
  const end = touched['touchend'];
  const move = touched['touchmove'];
  if (end === undefined || move === undefined) throw new Error('the swipe reached no template');
  const framesUntil = (from: number): number => {
    const painted = nextMarks.rafs.find((time) => time >= from);
    if (painted === undefined) return Number.NaN;
    return host.rafs.filter((time) => time >= from && time < painted).length;
  };
  samples.swipeEndFrames.push(framesUntil(end));
  samples.swipeEnterFrames.push(framesUntil(move));
  const firstPaint = nextMarks.marks['first-paint'];
  if (firstPaint !== undefined) samples.neighbourFirstPaint.push(firstPaint - move);
  await cdp.detach();
}

async function editorStart(page: Page, url: string | null): Promise<number> {
  if (url === null) await page.reload();
  else await page.goto(url);
  const origin = await page.evaluate(() => performance.timeOrigin);
  await page.waitForFunction(() => window.__pkStart?.marks['editorControls'] !== undefined, undefined, { timeout: WAIT_MS });
  const frame = await templateFrame(page, '/templates/greeting/');
  await frame.waitForFunction(() => window.__pkStart?.marks['first-contentful-paint'] !== undefined, undefined, { timeout: WAIT_MS });
  const template = (await readMarks(frame)).marks;
  const host = (await readMarks(page)).marks;
  return Math.max(template['first-contentful-paint'] ?? Number.NaN, host['editorControls'] ?? Number.NaN) - origin;
}

async function newContext(context: BenchContext): Promise<BrowserContext> {
  const browser = await context.browser();
  const browserContext = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  await browserContext.addInitScript({ content: INIT_SCRIPT });
  return browserContext;
}

async function round(context: BenchContext, demo: DemoServer, samples: Samples, problems: string[]): Promise<void> {
  const watch = (page: Page): void => {
    page.on('pageerror', (error) => problems.push(`[${demo.mode} page error] ${error.message}`));
  };
  // First visit after the server started, then a cold one (server warm), then warm (reload).
  const first = await newContext(context);
  try {
    const page = await first.newPage();
    watch(page);
    const start = await feedStart(page, `${demo.url}/`);
    samples.firstVisible.push(start.visible);
    samples.firstInteractive.push(start.interactive);
    await swipe(page, samples);
  } finally {
    await first.close();
  }
  const cold = await newContext(context);
  try {
    const page = await cold.newPage();
    watch(page);
    const coldStart = await feedStart(page, `${demo.url}/`);
    samples.coldVisible.push(coldStart.visible);
    samples.coldInteractive.push(coldStart.interactive);
    await swipe(page, samples);
    const warmStart = await feedStart(page, null);
    samples.warmVisible.push(warmStart.visible);
    samples.warmInteractive.push(warmStart.interactive);
    await swipe(page, samples);
  } finally {
    await cold.close();
  }
  const editor = await newContext(context);
  try {
    const page = await editor.newPage();
    watch(page);
    samples.editorCold.push(await editorStart(page, `${demo.url}/editor.html?template=greeting`));
    samples.editorWarm.push(await editorStart(page, null));
  } finally {
    await editor.close();
  }
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const scratch = await mkdtemp(join(tmpdir(), 'platform-kit-bench-start-'));
  const problems: string[] = [];
  const results: Record<Mode, Samples> = { dev: emptySamples(), prod: emptySamples(), compare: emptySamples() };
  try {
    const buildStarted = performance.now();
    const distDir = await buildDemo({ outDir: join(scratch, 'dist'), logLevel: 'error' });
    context.log(`production build made in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s; ${ROUNDS} rounds, the two servers taking turns.`);
    for (let index = 0; index < ROUNDS; index++) {
      const order = index % 2 === 0 ? MODES : [...MODES].reverse();
      for (const mode of order) {
        const demo = await startDemo({
          port: 0,
          dataDir: join(scratch, `data-${mode}-${index}`),
          logLevel: 'error',
          ...(mode === 'prod' ? { distDir } : mode === 'compare' && COMPARE_DIST ? { distDir: COMPARE_DIST } : {}),
        });
        try {
          await round(context, demo, results[mode], problems);
        } finally {
          await demo.close();
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  for (const problem of [...new Set(problems)]) context.log(problem);

  const row = (name: string, key: keyof Samples, unit = 'ms'): string[][] =>
    MODES.map((mode) => {
      const s: Stats = stats(results[mode][key]);
      const format = unit === 'ms' ? (value: number) => value.toFixed(0) : (value: number) => (Number.isFinite(value) ? String(value) : 'n/a');
      return [`${name} (${unit})`, mode, String(s.count), format(s.median), format(s.p90), format(s.min), format(s.max)];
    });
  context.log('');
  context.log(
    table(
      ['measure', 'server', 'n', 'median', 'p90', 'min', 'max'],
      [
        ...row('feed first visit after server start: visible', 'firstVisible'),
        ...row('feed first visit after server start: interactive', 'firstInteractive'),
        ...row('feed cold: visible', 'coldVisible'),
        ...row('feed cold: interactive', 'coldInteractive'),
        ...row('feed warm (reload): visible', 'warmVisible'),
        ...row('feed warm (reload): interactive', 'warmInteractive'),
        ...row('swipe end → next template renders (its rAF)', 'swipeEndFrames', 'frames'),
        ...row('swipe first move → next template renders again (its rAF)', 'swipeEnterFrames', 'frames'),
        ...row("next template's first paint ever, from the swipe's first move", 'neighbourFirstPaint'),
        ...row('editor cold: template shown, controls ready', 'editorCold'),
        ...row('editor warm: template shown, controls ready', 'editorWarm'),
      ],
    ),
  );
  const prod = results.prod;
  const median = (values: number[]): number => stats(values).median;
  const coldWorst = Math.max(median(prod.coldVisible), median(prod.coldInteractive));
  return {
    targets: [
      {
        name: `feed cold, production build: first template visible and interactive ≤ ${MAX_COLD_MS} ms (median)`,
        pass: coldWorst <= MAX_COLD_MS,
        detail: `visible ${ms(median(prod.coldVisible))} ms, interactive ${ms(median(prod.coldInteractive))} ms; first visit after start ${ms(median(prod.firstInteractive))} ms; dev server cold ${ms(median(results.dev.coldInteractive))} ms, first visit ${ms(median(results.dev.firstInteractive))} ms`,
      },
      {
        name: `feed warm, production build: first template visible and interactive ≤ ${MAX_COLD_MS} ms (median)`,
        pass: Math.max(median(prod.warmVisible), median(prod.warmInteractive)) <= MAX_COLD_MS,
        detail: `visible ${ms(median(prod.warmVisible))} ms, interactive ${ms(median(prod.warmInteractive))} ms; dev ${ms(median(results.dev.warmInteractive))} ms`,
      },
      {
        name: `swipe end → preloaded neighbour painted ≤ ${MAX_SWIPE_FRAMES} frame (median, production build)`,
        pass: median(prod.swipeEndFrames) <= MAX_SWIPE_FRAMES,
        detail: `median ${median(prod.swipeEndFrames)}, p90 ${stats(prod.swipeEndFrames).p90} frames (dev median ${median(results.dev.swipeEndFrames)})`,
      },
      {
        name: `editor load → template shown, controls ready ≤ ${MAX_EDITOR_MS} ms (median, cold, production build)`,
        pass: median(prod.editorCold) <= MAX_EDITOR_MS,
        detail: `cold ${ms(median(prod.editorCold))} ms, warm ${ms(median(prod.editorWarm))} ms; dev cold ${ms(median(results.dev.editorCold))} ms`,
      },
    ],
    data: results,
  };
}
