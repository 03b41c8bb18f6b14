/**
 * Test support for the feed: fixture URLs under test/fixtures/feed on the
 * template origin, a collector of every template's reports (frames come and
 * go in a feed, so reports are kept by tag, in arrival order), real touch
 * swipes through the DevTools Protocol (test/wtr/feed.mjs), and a feed
 * mounted at a known place of the page.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { FeedController, type FeedControllerEvents, type FeedControllerOptions, type FeedItem } from '../../../host/index.js';
import { HOST_ORIGIN, TEMPLATE_ORIGIN, THIRD_ORIGIN, waitUntil } from './probe.js';

/** URL of a page under test/fixtures/feed on the template origin. */
export function feedFixtureUrl(name: string, query: Record<string, string | number> = {}): string {
  const url = new URL(`/test/fixtures/feed/${name}.html`, TEMPLATE_ORIGIN);
  url.searchParams.set('parent', HOST_ORIGIN);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return url.toString();
}

/** `count` items of the test template, tagged t0, t1, … */
export function templateItems(count: number, query: Record<string, string | number> = {}, firstTag = 0): FeedItem[] {
  return Array.from({ length: count }, (_, index) => ({
    url: feedFixtureUrl('template', { ...query, tag: `t${firstTag + index}` }),
    id: `t${firstTag + index}`,
    projectId: `project-${firstTag + index}`,
    title: `Template ${firstTag + index}`,
  }));
}

/** One report of a template. */
export interface FeedReport {
  readonly tag: string;
  /** The page's own id (the fixture makes one per page load). */
  readonly page: string;
  readonly kind: string;
  readonly data: Record<string, unknown>;
  readonly source: MessageEventSource | null;
}

let nextCommandId = 1;

/** Every report of every template on the template origin, in arrival order. */
export class FeedReports {
  readonly all: FeedReport[] = [];
  readonly #pending = new Map<number, (reply: { ok: boolean; value: unknown }) => void>();
  /**
   * Pages (their fixture's page ids) of earlier tests: a report one still had on its way when
   * its test ended (a playback change it heard as its feed was disposed, say) is not this
   * test's. By id, not by window: a page whose frame is already gone reports with no source.
   */
  readonly #retired = new Set<string>();
  readonly #listener = (event: MessageEvent): void => {
    // A third origin too: a page a template navigated to on another site than the item's.
    if (event.origin !== TEMPLATE_ORIGIN && event.origin !== THIRD_ORIGIN) return;
    const data = event.data as { probe?: string; tag?: string; page?: string; data?: Record<string, unknown>; probeReply?: number; ok?: boolean; value?: unknown };
    if (typeof data?.probe === 'string' && !this.#retired.has(data.page ?? '')) {
      this.all.push({ tag: data.tag ?? '', page: data.page ?? '', kind: data.probe, data: data.data ?? {}, source: event.source });
    }
    if (typeof data?.probeReply === 'number') {
      this.#pending.get(data.probeReply)?.({ ok: data.ok === true, value: data.value });
      this.#pending.delete(data.probeReply);
    }
  };

  constructor() {
    window.addEventListener('message', this.#listener);
  }

  /** Reports of `kind` (of `tag` when given). */
  of(kind: string, tag?: string): Record<string, unknown>[] {
    return this.all.filter((report) => report.kind === kind && (tag === undefined || report.tag === tag)).map((report) => report.data);
  }

  /** Waits until `count` reports of `kind` (of `tag`) arrived. */
  async waitFor(kind: string, tag?: string, count = 1, timeoutMs = 5_000): Promise<Record<string, unknown>[]> {
    await waitUntil(() => this.of(kind, tag).length >= count, `${count} "${kind}" report(s)${tag ? ` of ${tag}` : ''}`, timeoutMs);
    return this.of(kind, tag);
  }

  /** Runs a command in the template whose window is `target`. */
  command(target: Window | null, name: string, ...args: unknown[]): Promise<{ ok: boolean; value: unknown }> {
    return this.commandAt(TEMPLATE_ORIGIN, target, name, ...args);
  }

  /** Runs a command in the page of `origin` whose window is `target`. */
  commandAt(origin: string, target: Window | null, name: string, ...args: unknown[]): Promise<{ ok: boolean; value: unknown }> {
    if (!target) return Promise.reject(new Error('no template window'));
    const id = nextCommandId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`command ${name} got no reply`)), 5_000);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      target.postMessage({ probeCommand: name, id, args }, origin);
    });
  }

  /** Forgets every report and pending command, and ignores the pages reported so far from now on: the next test starts with none. */
  clear(): void {
    // Every page reports 'loaded' first, so every page of the ending test has a report here.
    for (const report of this.all) if (report.page !== '') this.#retired.add(report.page);
    this.all.length = 0;
    this.#pending.clear();
  }

  dispose(): void {
    window.removeEventListener('message', this.#listener);
  }
}

/** What every feed suite shares; see {@link feedSuite}. */
export interface FeedSuite {
  /** The templates' reports, emptied after each test. */
  readonly reports: FeedReports;
  /** Mounts the test's feed ({@link mountFeed}); it is disposed after the test. */
  mount(options: Omit<FeedControllerOptions, 'container'>): MountedFeed;
  /** The window of the template at `index` of the mounted feed. */
  windowOf(index: number): Window | null;
  /** Every `name` event of the mounted feed's controller from now on, in order. */
  collect<Name extends keyof FeedControllerEvents & string>(name: Name): FeedControllerEvents[Name][];
  /** Playback reports of `tag`, as booleans in order. */
  playback(tag: string): boolean[];
}

/**
 * Call inside a `describe`: registers the hooks every feed suite needs (the
 * feed disposed and the reports emptied after each test, fingers lifted) and
 * returns the suite's helpers.
 */
export function feedSuite(): FeedSuite {
  const reports = new FeedReports();
  let feed: MountedFeed | undefined;
  afterEach(async () => {
    await liftFingers();
    feed?.dispose();
    feed = undefined;
    reports.clear();
  });
  after(() => reports.dispose());
  return {
    reports,
    mount(options) {
      feed?.dispose();
      feed = mountFeed(options);
      return feed;
    },
    windowOf: (index) => feed?.controller.frameAt(index)?.iframe.contentWindow ?? null,
    collect(name) {
      if (!feed) throw new Error('mount a feed first');
      const seen: FeedControllerEvents[typeof name][] = [];
      feed.controller.on(name, (payload) => seen.push(payload));
      return seen;
    },
    playback: (tag) => reports.of('playback', tag).map((data) => data['isPlaying'] as boolean),
  };
}

/** A point in page (viewport) CSS pixels. */
export interface PagePoint {
  readonly x: number;
  readonly y: number;
}

/** Dispatches one real touch event (or several) through the DevTools Protocol. */
export async function touch(steps: { type: 'touchStart' | 'touchMove' | 'touchEnd' | 'touchCancel'; points: (PagePoint & { id?: number })[]; delayMs?: number }[]): Promise<void> {
  const last = steps[steps.length - 1];
  if (last) fingersDown = last.type === 'touchStart' || last.type === 'touchMove';
  await executeServerCommand('feed-touch', { steps });
}

let fingersDown = false;

/** Lifts every finger a failed test may have left on the screen, so the next test starts clean. */
export async function liftFingers(): Promise<void> {
  if (fingersDown) await touch([{ type: 'touchEnd', points: [] }]);
}

/** A real one-finger swipe from `from` to `to` in `moves` moves, `stepDelayMs` apart (a frame or so, so the template's coalescing sends each). */
export async function swipe(from: PagePoint, to: PagePoint, options: { moves?: number; stepDelayMs?: number; lift?: boolean } = {}): Promise<void> {
  const moves = options.moves ?? 6;
  const delayMs = options.stepDelayMs ?? 20;
  const steps: Parameters<typeof touch>[0] = [{ type: 'touchStart', points: [from], delayMs }];
  for (let i = 1; i <= moves; i++) {
    steps.push({ type: 'touchMove', points: [{ x: from.x + ((to.x - from.x) * i) / moves, y: from.y + ((to.y - from.y) * i) / moves }], delayMs });
  }
  if (options.lift !== false) steps.push({ type: 'touchEnd', points: [] });
  await touch(steps);
}

/** A feed in a fixed 360×640 box at the page's top left, and its cleanup. */
export interface MountedFeed {
  readonly controller: FeedController;
  readonly box: HTMLElement;
  /** A point of the feed, in page pixels (fractions of its width and height). */
  at(fx: number, fy: number): PagePoint;
  dispose(): void;
}

/** Mounts a FeedController in a fixed box on top of the test page. */
export function mountFeed(options: Omit<FeedControllerOptions, 'container'>): MountedFeed {
  const box = document.createElement('div');
  box.style.cssText = 'position: fixed; left: 0; top: 0; width: 360px; height: 640px; z-index: 1000;';
  document.body.append(box);
  const controller = new FeedController({ snapDurationMs: 40, sheetAnimationMs: 40, ...options, container: box });
  return {
    controller,
    box,
    at(fx, fy) {
      const rect = box.getBoundingClientRect();
      return { x: Math.round(rect.left + rect.width * fx), y: Math.round(rect.top + rect.height * fy) };
    },
    dispose() {
      controller.destroy();
      box.remove();
    },
  };
}

/** Waits until the feed's window is complete and every live template loaded (nothing left loading in the templates' process). */
export async function quiet(controller: FeedController, minimumLive = 2): Promise<void> {
  await waitUntil(
    () => controller.liveIndices.length >= minimumLive && controller.liveIndices.every((index) => controller.statusAt(index) === 'loaded'),
    'the feed to finish preloading',
  );
}

/** Iframes under `root` (its shadow roots included). */
export function countIframes(root: ParentNode = document): number {
  let count = root.querySelectorAll('iframe').length;
  for (const element of root.querySelectorAll('*')) if (element.shadowRoot) count += countIframes(element.shadowRoot);
  return count;
}
