/**
 * End-to-end rig: the demo server that `npm start` runs (its factory, on a
 * free port with a temporary data folder) and the Debian Chromium through
 * playwright-core, with the flags of web-test-runner.config.mjs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { startDemo, type DemoServer } from '../../demo/server.js';
import { CHROMIUM_FLAGS as BASE_CHROMIUM_FLAGS, chromiumPath } from '../chromium.mjs';

export const CHROMIUM_FLAGS = [
  ...BASE_CHROMIUM_FLAGS,
  // The radio plays as soon as it is in focus, as after a viewer's first swipe on a phone.
  '--autoplay-policy=no-user-gesture-required',
];

/** The phone every mobile-emulated test uses: 390 × 844 CSS px, device scale 3, touch. */
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true } as const;

/** A demo on a free port with its own data folder, and a browser. */
export interface Rig {
  readonly demo: DemoServer;
  readonly browser: Browser;
  readonly dataDir: string;
  /** A new context (its own storage) with a page of `width` × `height`. */
  page(options?: { width?: number; height?: number; touch?: boolean; phone?: boolean }): Promise<{ context: BrowserContext; page: Page }>;
  /** Starts the demo again on the same data folder (and port), as after a server restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** `distDir`: serve this production build of the demo (demo/build.ts) instead of Vite's dev server. */
export async function startRig(options: { readonly distDir?: string } = {}): Promise<Rig> {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-kit-e2e-'));
  const served = options.distDir === undefined ? {} : { distDir: options.distDir };
  let demo = await startDemo({ port: 0, dataDir, logLevel: 'warn', ...served });
  const executablePath = chromiumPath;
  const browser = await chromium.launch({ headless: true, args: CHROMIUM_FLAGS, ...(executablePath ? { executablePath } : {}) });
  const contexts: BrowserContext[] = [];
  return {
    get demo() {
      return demo;
    },
    browser,
    dataDir,
    async page(options = {}) {
      // phone: a 390 × 844 CSS px phone at device scale 3 with touch, as Chromium's device emulation gives it (meta viewport honoured).
      const context = await browser.newContext(
        options.phone
          ? { ...PHONE, ...(options.width ? { viewport: { width: options.width, height: options.height ?? PHONE.viewport.height } } : {}) }
          : { viewport: { width: options.width ?? 800, height: options.height ?? 500 }, hasTouch: options.touch ?? false, isMobile: false },
      );
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => console.error(`[page error] ${error.message}`));
      page.on('response', (response) => {
        if (response.status() >= 400) console.error(`[http ${response.status()}] ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') console.error(`[console] ${message.text()}`);
      });
      return { context, page };
    },
    async restart() {
      const port = demo.port;
      await demo.close();
      demo = await startDemo({ port, dataDir, logLevel: 'warn', ...served });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await demo.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits for the frame of the template whose URL contains `part` (a cross-origin iframe of the page). */
export async function templateFrame(page: Page, part: string, timeoutMs = 15_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(part));
    if (frame) return frame;
    if (Date.now() > deadline)
      throw new Error(
        `no template frame with ${part} in ${page
          .frames()
          .map((f) => f.url())
          .join(', ')}`,
      );
    await page.waitForEvent('frameattached', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
  }
}

/** A real touch gesture through the DevTools protocol: it lands in whatever iframe is under the finger. */
export async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }, steps = 8): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const point = (x: number, y: number): { touchPoints: { x: number; y: number; id: number }[] } => ({ touchPoints: [{ x, y, id: 1 }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', ...point(from.x, from.y) });
  for (let step = 1; step <= steps; step++) {
    const t = step / steps;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', ...point(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t) });
    await page.waitForTimeout(16); // one frame per move, as a finger gives them
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}
