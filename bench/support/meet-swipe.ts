/**
 * The swipe part of players-meet (issue 27): the end of a swipe to a
 * multiplayer template → the other players listed there, and its data
 * channels up, with 2 and 8 players.
 *
 * Each member is a page of headless Chromium whose host page holds it with the
 * kit's TemplateFrame, told it speaks for a feed (bench/players-swipe.html),
 * the template on the other origin (bench/pages/players-swipe-member.ts). The
 * N − 1 others play from the start (in focus where they are). Member 0 is the
 * one swiped to:
 *   - prewarmed (the kit's way now): its template connect()s at once while it
 *     waits preloaded, away; the round waits until its data channels to every
 *     other member are open (its neighbour was preloaded a while), then t0;
 *   - join on focus (the baseline, in turns in the same run: what the demo's
 *     board did until now): its template connect()s when it hears it plays.
 * t0 is the host page's call that tells it it plays (what a feed sends at
 * the end of a swipe). Measured, in ms from t0: its list of the players here
 * holding every member; every other member's data channel open (0 or nearly
 * when they were open already: how many were is counted); each other member
 * listing it here. A prewarmed member listed by another before t0 is counted
 * (it must never be: it was away).
 */
import type { BrowserContext, Frame, Page } from 'playwright-core';
import type { SwipeMemberReport } from '../pages/players-swipe-member.js';
import { stats, table, type BenchServer } from './bench.js';

/** The two ways in; see the module comment. */
export type SwipeWay = 'prewarmed' | 'join on focus';
export const SWIPE_WAYS: readonly SwipeWay[] = ['prewarmed', 'join on focus'];

/** One way's samples at one member count, in ms from t0. */
export interface SwipeSamples {
  listed: number[];
  meshAll: number[];
  othersSee: number[];
  openAtFocus: number;
  channels: number;
  listedEarly: number;
  failed: number;
}

export const emptySwipeSamples = (): SwipeSamples => ({ listed: [], meshAll: [], othersSee: [], openAtFocus: 0, channels: 0, listedEarly: 0, failed: 0 });

const MEMBER_PAGE = '/bench/players-swipe-member.html';

async function memberFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(MEMBER_PAGE));
    if (frame) {
      await frame.waitForFunction(() => window.__swipe !== undefined, undefined, { timeout: 20_000 });
      return frame;
    }
    if (Date.now() > deadline) throw new Error('no swipe member frame');
    await page.waitForTimeout(10);
  }
}

/** One round: `members` fresh pages meet on a new shard, member 0 swiped to the `way` way; adds to `samples`. */
export async function swipeRound(
  browserContext: BrowserContext,
  server: BenchServer,
  signalingUrl: string,
  members: number,
  way: SwipeWay,
  samples: SwipeSamples | null,
  problems: string[],
): Promise<void> {
  const pages: Page[] = [];
  try {
    const frames: Frame[] = [];
    const memberUrl = `${server.templateOrigin}${MEMBER_PAGE}`;
    for (let i = 0; i < members; i++) {
      const page = await browserContext.newPage();
      pages.push(page);
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${server.hostOrigin}/bench/players-swipe.html?member=${encodeURIComponent(memberUrl)}`);
      frames.push(await memberFrame(page));
      await page.waitForFunction(() => window.__host?.linked() === true, undefined, { timeout: 20_000, polling: 20 });
    }
    // The others are in focus where they are; member 0 waits, preloaded.
    for (const page of pages.slice(1)) await page.evaluate(() => window.__host!.play(true));
    const shardName = `swipe-${members}-${Math.random().toString(36).slice(2, 8)}`;
    await Promise.all(
      frames.map((frame, i) => frame.evaluate((o) => window.__swipe!.start(o), { url: signalingUrl, shardName, members, joinOnFocus: i === 0 && way === 'join on focus' })),
    );
    // The others meet each other first (and member 0, when prewarmed): the swipe comes to a shard that is ready.
    const ready = way === 'prewarmed' ? frames : frames.slice(1);
    const meshOf = way === 'prewarmed' ? members : members - 1;
    await Promise.all(ready.map((frame) => frame.waitForFunction((n) => window.__swipe!.meshReady(n), meshOf, { timeout: 30_000, polling: 50 })));
    await pages[0]!.waitForTimeout(300);
    const t0 = await pages[0]!.evaluate(() => window.__host!.play(true));
    await frames[0]!.waitForFunction(
      () => {
        const r = window.__swipe!.report();
        return r.error !== null || (r.listedAllAt !== null && r.meshAllAt !== null);
      },
      undefined,
      { timeout: 30_000, polling: 10 },
    );
    const swiper: SwipeMemberReport = await frames[0]!.evaluate(() => window.__swipe!.report());
    if (swiper.error !== null || swiper.clientId === null) throw new Error(`the swiped-to member: ${swiper.error ?? 'no client id'}`);
    const id = swiper.clientId;
    await Promise.all(
      frames.slice(1).map((frame) => frame.waitForFunction((clientId) => window.__swipe!.report().listedAt[clientId] !== undefined, id, { timeout: 30_000, polling: 10 })),
    );
    const others: SwipeMemberReport[] = await Promise.all(frames.slice(1).map((frame) => frame.evaluate(() => window.__swipe!.report())));
    if (!samples) return;
    samples.listed.push(swiper.listedAllAt! - t0);
    samples.meshAll.push(swiper.meshAllAt! - t0);
    samples.openAtFocus += swiper.openAtFocus;
    samples.channels += members - 1;
    for (const other of others) {
      const seen = other.listedAt[id]!;
      samples.othersSee.push(seen - t0);
      if (seen < t0) samples.listedEarly++;
    }
  } catch (error) {
    if (samples) samples.failed++;
    problems.push(`swipe round (${members}, ${way}): ${String(error)}`);
  } finally {
    for (const page of pages) await page.close();
  }
}

const f0 = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** The ways side by side, per member count. */
export function swipeTable(bySize: ReadonlyMap<number, ReadonlyMap<SwipeWay, SwipeSamples>>): string {
  const rows: string[][] = [];
  for (const [members, byWay] of bySize) {
    for (const [way, s] of byWay) {
      const line = (measure: string, samples: readonly number[]): string[] => {
        const st = stats(samples);
        return [String(members), way, measure, String(st.count), f0(st.median), f0(st.p90), f0(st.max)];
      };
      rows.push(line('every player listed here, in it', s.listed));
      rows.push(line(`its data channels all open (${s.openAtFocus} of ${s.channels} open at t0)`, s.meshAll));
      rows.push(line(`the others list it here (${s.listedEarly} before t0; ${s.failed} rounds failed)`, s.othersSee));
    }
  }
  return table(['players', 'way in', 'measure (ms from the end of the swipe)', 'n', 'p50', 'p90', 'max'], rows);
}
