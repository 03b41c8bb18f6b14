/**
 * Time until players see each other (issue 18): from connect() to the other
 * members' presence, and to their first event over the mesh.
 *
 * Members: 2, then 8, real browser members, each a page of headless Chromium
 * holding the member in a cross-origin iframe (bench/players-meet.html on
 * localhost, bench/players-meet-member.html on 127.0.0.1, as a feed holds a
 * template), each with the real Dispatch client (guest/dispatch), peerjs
 * loaded on first use, against a real signaling server process
 * (signaling/bin.ts), all on loopback. Every round opens fresh pages (one
 * browser context per member count: the cache is warm after a warm-up round,
 * as for a returning visitor; peerjs still loads on first use in each page),
 * lets them load, then has every member call connect() on the same shard at once. Each member says
 * hello as soon as its connect() resolves, then sends one tick to each other
 * member as soon as its session's path to it turns `peer` (it looks every
 * 5 ms; PLAYERS_MEET_PROBE=cursor: a tick every 20 ms to each member not
 * meshed yet, as before). Per member, in ms from the moment the LAST member called
 * connect() (t0):
 *   - presence: every other member in its onConnectedClientsChanged list;
 *   - hello: each other member's hello, and the path that carried it (a
 *     data channel or the control socket, told apart at the browser's API:
 *     bench/support/meet-marks.ts);
 *   - first mesh event: each other member's first event that came by a
 *     data channel (hello or a tick);
 *   - the steps between (control socket open, joined, connect() resolved,
 *     peerjs socket and OPEN, peer connection, offer, ICE, data channel);
 *     since issue 27 the kit's members signal on the control socket, so
 *     the peerjs socket's steps are n/a for them and their offers are the
 *     `signal` frames' (meet-marks.ts).
 * Targets (p50; p99 reported): presence ≤ 300 ms, first mesh event ≤ 500 ms,
 * for 2 and for 8 members.
 *
 * Baselines, round by round in turn with the kit's, in the same pages, iframes
 * and browser (bench/pages/players-meet-raw.ts): plain RTCPeerConnections, one
 * data channel per pair, no kit and no peerjs, signalled through the least
 * WebSocket server there is (`plain`, bench/support/plain-signaling.ts) and
 * over a BroadcastChannel between the pages (`floor`, no server at all). What
 * any WebRTC app takes on this machine, and what the kit adds to it.
 *
 * Demo: two users open the demo's Sketch party (demo/templates/sketch) on the
 * demo server, dev server and production build, by its own URL and through
 * the feed (bench/support/meet-demo.ts), from page load (or the focus
 * change) to seeing the other player. Figures only, no target.
 *
 * Swipe (issue 27, bench/support/meet-swipe.ts): the end of a swipe to a
 * template → the other players listed in it and its data channels up, the
 * template prewarmed (connected while preloaded, away) against joining on the
 * focus change (the baseline, in turns in the same run). Targets (p50):
 * listed ≤ 100 ms and channels open ≤ 100 ms after the swipe, 2 and 8 players.
 *
 * Rounds: PLAYERS_MEET_ROUNDS="30,10" (2 and 8 members), PLAYERS_MEET_SIZES="2,8"
 * (which member counts run), PLAYERS_MEET_DEMO_ROUNDS=3 (0: no demo part),
 * PLAYERS_MEET_SWIPE_ROUNDS="10,5" (per way; 0,0: no swipe part);
 * PLAYERS_MEET_IFRAME=0 runs each member as a page of its own, PLAYERS_MEET_PRELOAD=0
 * loads peerjs once the join is answered instead of from connect(), PLAYERS_MEET_TICK_MS
 * sets the members' tick (20), PLAYERS_MEET_BASELINES=0 leaves the baselines out
 * (ablations); BENCH_CHROMIUM_FLAGS adds browser flags.
 *
 * The kit's member is bundled with code splitting as a template ships (support/bundled-member.ts;
 * PLAYERS_MEET_BUNDLE=0: unbundled), its client made as the page loads (PLAYERS_MEET_CREATE=start:
 * with connect()). PLAYERS_MEET_MAIN=1 (or a git ref) adds the kind `main`: the same page and
 * bundler with the merge base with main's client (or that ref's), in turns in the same run.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { buildDemo } from '../demo/build.js';
import { startDemo } from '../demo/server.js';
import type { MemberReport } from './pages/players-meet-member.js';
import { stats, table, type BenchContext, type BenchOutcome, type BenchServer, type TargetCheck } from './support/bench.js';
import { addRound, emptySamples, STEPS, type MeetSamples } from './support/meet-analysis.js';
import { meetOnDemo, type DemoMeeting } from './support/meet-demo.js';
import { MEET_MARKS_SCRIPT } from './support/meet-marks.js';
import { emptySwipeSamples, SWIPE_WAYS, swipeRound, swipeTable, type SwipeSamples, type SwipeWay } from './support/meet-swipe.js';
import { baselineTree, buildBundledMember } from './support/bundled-member.js';
import { startPlainSignaling } from './support/plain-signaling.js';
import { startSignalingProcess } from './support/signaling-process.js';

export const description =
  'Time until players see each other: connect() → presence and → first event over the mesh, 2 and 8 browser members; the demo sketch board from page load.';

export const MAX_PRESENCE_MS = 300;
export const MAX_FIRST_MESH_MS = 500;
const [ROUNDS_2, ROUNDS_8] = (process.env['PLAYERS_MEET_ROUNDS'] ?? '30,10').split(',').map(Number) as [number, number];
/** The member counts run (`PLAYERS_MEET_SIZES=8`: only 8), so that each part fits a run of its own on a busy machine. */
const SIZES = (process.env['PLAYERS_MEET_SIZES'] ?? '2,8').split(',').map(Number);
const DEMO_ROUNDS = Number(process.env['PLAYERS_MEET_DEMO_ROUNDS'] ?? 3);
const [SWIPE_ROUNDS_2, SWIPE_ROUNDS_8] = (process.env['PLAYERS_MEET_SWIPE_ROUNDS'] ?? '10,5').split(',').map(Number) as [number, number];
/** Swipe targets (p50, ms after the end of the swipe): the other players listed, and the data channels open. */
export const MAX_SWIPE_LISTED_MS = 100;
export const MAX_SWIPE_MESH_MS = 100;
/**
 * Each member in a cross-origin iframe of its own page (default), or the member page alone
 * (PLAYERS_MEET_IFRAME=0, an ablation: half the renderer processes).
 */
const IN_IFRAME = process.env['PLAYERS_MEET_IFRAME'] !== '0';
/** PLAYERS_MEET_PRELOAD=0 (an ablation): peerjs loads once the join is answered, not from connect(). */
const PRELOAD = process.env['PLAYERS_MEET_PRELOAD'] !== '0';
/**
 * How a member sees the mesh carry its events (players-meet-member.ts): `ready` (default), one tick
 * to each member as its path turns `peer`, as plain WebRTC's page says hello on its channel's open;
 * PLAYERS_MEET_PROBE=cursor (an ablation, the probe before 2026-11-27's fourth session): a tick
 * every 20 ms to each member not meshed yet, by whichever path, a load the baselines do not carry.
 */
const PROBE = process.env['PLAYERS_MEET_PROBE'] === 'cursor' ? 'cursor' : 'ready';
/** The probe's period (PLAYERS_MEET_TICK_MS): 5 ms for `ready` (a look at the paths, no network), 20 for `cursor`. */
const TICK_MS = Number(process.env['PLAYERS_MEET_TICK_MS'] ?? (PROBE === 'ready' ? 5 : 20));
/** The baselines' rounds (plain WebRTC, no kit) take turns with the kit's; PLAYERS_MEET_BASELINES=0 leaves them out. */
const BASELINES = process.env['PLAYERS_MEET_BASELINES'] !== '0';
/** A round's members have this long to meet (a pair's own fallback to the relay is at 10 s). */
const ROUND_MS = 15_000;
/** Pages are left this long after loading before connect(): a user does not click in the first frame. */
const SETTLE_MS = 300;
/** The kit's member bundled with code splitting (default), or PLAYERS_MEET_BUNDLE=0: unbundled from the dev server. */
const BUNDLED = process.env['PLAYERS_MEET_BUNDLE'] !== '0';
/** PLAYERS_MEET_CREATE=start: the member makes its client in start(), with connect(), not as its page loads. */
const CREATE_AT_START = process.env['PLAYERS_MEET_CREATE'] === 'start';
/** PLAYERS_MEET_MAIN=1 (the merge base with main) or a git ref: the `main` kind runs that commit's client. */
/**
 * PLAYERS_MEET_PLAIN_AS_PEERJS (an ablation of the plain baseline): `pc`, its answering member makes
 * its peer connection when the offer comes, not when it hears of the member; `answer`, it answers
 * with createAnswer() then setLocalDescription(answer), not setLocalDescription() alone; `pc,answer`
 * both, as peerjs's negotiator did before the kit's answered in one step (peer-negotiation.ts).
 */
const PLAIN_AS_PEERJS = process.env['PLAYERS_MEET_PLAIN_AS_PEERJS'] ?? '';
/** PLAYERS_MEET_DUMP=file: each round's member reports (their marks too) appended to it as a JSON line, for a look by hand. */
const DUMP = process.env['PLAYERS_MEET_DUMP'] ?? '';
const MAIN_REF = process.env['PLAYERS_MEET_MAIN'] === undefined || ['', '0'].includes(process.env['PLAYERS_MEET_MAIN']) ? null : process.env['PLAYERS_MEET_MAIN'];

/**
 * Who meets: `kit`, the members with the real Dispatch client; and the baselines of the same run,
 * in the same pages, iframes and browser, with plain RTCPeerConnections and no kit or peerjs
 * (bench/pages/players-meet-raw.ts): `plain`, signalled through the least WebSocket server there
 * is (bench/support/plain-signaling.ts), and `floor`, signalled over a BroadcastChannel between
 * the pages, no server at all.
 */
type MemberKind = 'kit' | 'main' | 'plain' | 'floor';
const KINDS: readonly MemberKind[] = ['kit', ...(MAIN_REF !== null ? (['main'] as const) : []), ...(BASELINES ? (['plain', 'floor'] as const) : [])];
/** Each kind's member page (the kit's and main's are rebuilt bundled at the start of a run). */
const MEMBER_PAGE: Record<MemberKind, string> = {
  kit: '/bench/players-meet-member.html',
  main: '/bench/_built/players-meet-main/member.html',
  plain: '/bench/players-meet-raw.html',
  floor: '/bench/players-meet-raw.html',
};

async function memberFrame(page: Page, kind: MemberKind): Promise<Frame> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(MEMBER_PAGE[kind]));
    if (frame) {
      await frame.waitForFunction(() => window.__member !== undefined, undefined, { timeout: 20_000 });
      return frame;
    }
    if (Date.now() > deadline) throw new Error('no member frame');
    await page.waitForTimeout(10);
  }
}

/** One round: `members` fresh pages (in `context`: its cache is warm after the first round) meet on a new shard; their reports. */
/** Where members of each kind signal: the kit's server (http://…) or the plain one (ws://…); the floor needs none. */
type SignalingUrls = Readonly<Record<'kit' | 'plain', string>>;

async function round(
  kind: MemberKind,
  context: BrowserContext,
  server: BenchServer,
  signalingUrls: SignalingUrls,
  members: number,
  name: string,
  problems: string[],
  cpuBusy: number[],
): Promise<MemberReport[]> {
  const pages: Page[] = [];
  try {
    const frames: Frame[] = [];
    const query =
      kind === 'kit' || kind === 'main'
        ? `?probe=${PROBE}&tick=${TICK_MS}${PRELOAD ? '' : '&preload=0'}${CREATE_AT_START ? '&create=start' : ''}`
        : kind === 'plain'
          ? `?signal=${encodeURIComponent(signalingUrls.plain)}${PLAIN_AS_PEERJS ? `&as-peerjs=${PLAIN_AS_PEERJS}` : ''}`
          : '';
    const memberUrl = `${server.templateOrigin}${MEMBER_PAGE[kind]}${query}`;
    for (let i = 0; i < members; i++) {
      const page = await context.newPage();
      pages.push(page);
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(IN_IFRAME ? `${server.hostOrigin}/bench/players-meet.html?member=${encodeURIComponent(memberUrl)}` : memberUrl);
      frames.push(await memberFrame(page, kind));
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const options = { url: signalingUrls.kit, shardName: name, members };
    const cpuBefore = cpuTimes();
    await Promise.all(frames.map((frame) => frame.evaluate((o) => window.__member!.start(o), options)));
    // One waiting call per member (not a poll over the DevTools protocol, whose traffic loaded the browser process).
    await Promise.all(frames.map((frame) => frame.evaluate(([n, ms]) => window.__member!.whenDone(n, ms), [members, ROUND_MS] as const)));
    const cpuAfter = cpuTimes();
    // How busy the machine's cores were while the members met (every process: ours and others').
    if (cpuBefore && cpuAfter && cpuAfter.total > cpuBefore.total) cpuBusy.push((cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total));
    await Promise.all(frames.map((frame) => frame.evaluate(() => window.__member!.stop())));
    const reports = await Promise.all(frames.map((frame) => frame.evaluate(() => window.__member!.report())));
    for (const report of reports) if (report.error) problems.push(`member: ${report.error}`);
    return reports;
  } finally {
    for (const page of pages) await page.close();
  }
}

/** Busy and total jiffies of every CPU of the machine so far (/proc/stat), or null off Linux. */
function cpuTimes(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const f0 = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** The kit against the baselines of the same rounds: first channel message per pair, and the steps all have. */
function baselineTable(members: number, byKind: ReadonlyMap<MemberKind, MeetSamples>): string {
  const kinds = [...byKind.keys()];
  const step =
    (name: string) =>
    (samples: MeetSamples): readonly number[] =>
      samples.steps[name] ?? [];
  const measures: [string, (samples: MeetSamples) => readonly number[]][] = [
    ['control socket made', step('control socket made')],
    ['control socket open (plain: its socket)', step('control socket open')],
    ['joined answered', step('joined answered')],
    ['connect() resolved', step('connect() resolved')],
    ['presence: every other member listed', (samples) => samples.presence],
    ['every other member listed, here or away', step('every other member listed, here or away')],
    ['first hello heard, any path (per member)', step('first hello heard (any path)')],
    ['hello heard, any path (per pair)', (samples) => samples.hello],
    ['first event over the mesh (per pair)', (samples) => samples.firstMesh],
    ['first offer sent or received', step('first offer sent or received')],
    ['first ICE connected', step('first ICE connected')],
    ['last data channel open', step('last data channel open')],
    ['one pair: its offer → its channel open', (samples) => samples.pairSetup],
    ['one answerer: offer set → answer set', (samples) => samples.answerSetup],
  ];
  const kit = byKind.get('kit')!;
  const rows = measures.map(([measure, of]) => {
    const ours = stats(of(kit)).median;
    return [
      measure,
      ...kinds.map((kind) => {
        const st = stats(of(byKind.get(kind)!));
        return `${f0(st.median)} / ${f0(st.p99)}`;
      }),
      ...kinds.filter((kind) => kind !== 'kit').map((kind) => (ours / stats(of(byKind.get(kind)!)).median).toFixed(2)),
    ];
  });
  const others = kinds.filter((kind) => kind !== 'kit');
  return table([`${members} members, ms from the last start`, ...kinds.map((kind) => `${kind} p50 / p99`), ...others.map((kind) => `kit / ${kind}`)], rows);
}

function resultTable(bySize: ReadonlyMap<number, MeetSamples>): string {
  const rows: string[][] = [];
  for (const [members, s] of bySize) {
    const line = (measure: string, samples: readonly number[]): string[] => {
      const st = stats(samples);
      return [String(members), measure, String(st.count), f0(st.median), f0(st.p90), f0(st.p99), f0(st.min), f0(st.max)];
    };
    rows.push(line('presence: every other member listed (per member)', s.presence));
    rows.push(line(`hello heard, any path (per pair; ${s.helloPaths.mesh} mesh, ${s.helloPaths.relay} relay)`, s.hello));
    rows.push(line('first event over the mesh (per pair)', s.firstMesh));
    rows.push(line('a mesh event from every other member (per member)', s.allMesh));
    rows.push(line('spread of the connect() calls', s.spread));
  }
  return table(['members', 'measure (ms from the last connect() call)', 'n', 'p50', 'p90', 'p99', 'min', 'max'], rows);
}

function breakdownTable(bySize: ReadonlyMap<number, MeetSamples>): string {
  const sizes = [...bySize.keys()];
  const rows = STEPS.map((step) => [
    step.name,
    ...sizes.flatMap((members) => {
      const st = stats(bySize.get(members)!.steps[step.name] ?? []);
      return [f0(st.median), f0(st.p99)];
    }),
  ]);
  return table(['step (ms from t0, per member)', ...sizes.flatMap((members) => [`${members}: p50`, `${members}: p99`])], rows);
}

async function demoPart(context: BenchContext, problems: string[]): Promise<Record<string, DemoMeeting[]>> {
  const browser = await context.browser();
  const scratch = await mkdtemp(join(tmpdir(), 'platform-kit-bench-meet-'));
  const results: Record<string, DemoMeeting[]> = {};
  try {
    const distDir = await buildDemo({ outDir: join(scratch, 'dist'), logLevel: 'error' });
    for (let index = 0; index < DEMO_ROUNDS; index++) {
      for (const mode of index % 2 === 0 ? (['dev', 'prod'] as const) : (['prod', 'dev'] as const)) {
        const demo = await startDemo({ port: 0, dataDir: join(scratch, `data-${mode}-${index}`), logLevel: 'error', ...(mode === 'prod' ? { distDir } : {}) });
        try {
          for (const way of ['page', 'feed'] as const) {
            const meetings = await meetOnDemo(browser, { host: demo.url, template: demo.templateOrigin }, way, problems);
            (results[`${mode} ${way}`] ??= []).push(...meetings);
          }
        } finally {
          await demo.close();
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return results;
}

const DEMO_STEPS = ['DOMContentLoaded', 'control socket made', 'control socket open', 'control ← joined', 'players 2', 'peer socket made', 'peer ← OPEN', 'data channel open'];

function demoTable(results: Record<string, DemoMeeting[]>): string {
  const rows = Object.entries(results).map(([key, meetings]) => [
    key,
    String(meetings.length),
    f0(stats(meetings.map((m) => m.seen)).median),
    f0(stats(meetings.map((m) => m.seen)).max),
    ...DEMO_STEPS.map((step) => f0(stats(meetings.map((m) => m.steps[step] ?? Number.NaN).filter(Number.isFinite)).median)),
  ]);
  return table(['demo (server, way in)', 'n', 'seen p50', 'seen max', ...DEMO_STEPS.map((step) => `${step} p50`)], rows);
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  if (BUNDLED) MEMBER_PAGE.kit = await buildBundledMember(context.rootDir);
  if (MAIN_REF !== null) {
    const baseline = baselineTree(context.rootDir, MAIN_REF);
    MEMBER_PAGE.main = await buildBundledMember(context.rootDir, 'players-meet-main', baseline.dir);
    context.log(`main: the client of ${baseline.commit}, bundled the same way`);
  }
  const signaling = await startSignalingProcess(context.rootDir, 'bench:bench-token');
  const plain = BASELINES ? await startPlainSignaling(context.rootDir) : null;
  const signalingUrls: SignalingUrls = { kit: signaling.url, plain: plain?.url ?? '' };
  const problems: string[] = [];
  const bySize = new Map<number, MeetSamples>();
  /** Member count → kind → samples (the kit's are also in bySize). */
  const baselinesBySize = new Map<number, Map<MemberKind, MeetSamples>>();
  let demo: Record<string, DemoMeeting[]> = {};
  const rawRounds: Record<number, MemberReport[][]> = {};
  const swipeBySize = new Map<number, Map<SwipeWay, SwipeSamples>>();
  try {
    const server = await context.server();
    const browser = await context.browser();
    context.log(
      `Chromium ${browser.version()}; signaling server ${signaling.url} (a child process); rounds: ${ROUNDS_2} of 2 members, ${ROUNDS_8} of 8, one warm-up each; members ${IN_IFRAME ? 'in cross-origin iframes' : 'as pages of their own'}${PRELOAD ? '' : ', peerjs loaded once joined (ablation)'}; the kit's member ${BUNDLED ? 'bundled with code splitting' : 'unbundled from the dev server (ablation)'}, its client made ${CREATE_AT_START ? 'with connect() (ablation)' : 'as the page loads'}.`,
    );
    for (const [members, rounds] of (
      [
        [2, ROUNDS_2],
        [8, ROUNDS_8],
      ] as const
    ).filter(([members, rounds]) => SIZES.includes(members) && rounds > 0)) {
      const byKind = new Map(KINDS.map((kind) => [kind, emptySamples()] as const));
      const samples = byKind.get('kit')!;
      const all: MemberReport[][] = [];
      const busyOf = new Map(KINDS.map((kind) => [kind, [] as number[]] as const));
      // One context per member count: pages are fresh each round, the HTTP cache warm after the
      // warm-up (a returning visitor; connect() is measured, not the page load).
      const browserContext = await browser.newContext({ viewport: { width: 400, height: 300 } });
      await browserContext.addInitScript({ content: MEET_MARKS_SCRIPT });
      try {
        // The kit and the baselines take turns, round by round, so that all see the same machine.
        for (let index = -1; index < rounds; index++) {
          for (const kind of KINDS) {
            const busy: number[] = [];
            const name = `meet-${kind}-${members}-${index + 1}-${Math.random().toString(36).slice(2, 8)}`;
            const reports = await round(kind, browserContext, server, signalingUrls, members, name, problems, busy);
            if (index < 0) continue;
            busyOf.get(kind)!.push(...busy);
            addRound(byKind.get(kind)!, reports, members);
            if (kind === 'kit') all.push(reports);
            if (DUMP) appendFileSync(DUMP, `${JSON.stringify({ kind, members, reports })}\n`);
          }
        }
      } finally {
        await browserContext.close();
      }
      bySize.set(members, samples);
      baselinesBySize.set(members, byKind);
      rawRounds[members] = all;
      const busy = stats(busyOf.get('kit')!);
      const baselineBusy = KINDS.filter((kind) => kind !== 'kit').map((kind) => `${kind} ${(stats(busyOf.get(kind)!).median * 100).toFixed(0)} %`);
      context.log(
        `${members} members: ${rounds} rounds done, ${samples.missing} pairs without a mesh event; the machine's cores were ${(busy.median * 100).toFixed(0)} % busy while they met (median of rounds, max ${(busy.max * 100).toFixed(0)} %${baselineBusy.length > 0 ? `; the baselines' rounds: ${baselineBusy.join(', ')}` : ''}).\n`,
      );
      // Printed as each member count ends too: a long run stopped later keeps these.
      context.log(resultTable(new Map([[members, samples]])));
      if (KINDS.length > 1) context.log(`\n${baselineTable(members, byKind)}`);
      context.log('');
    }
    for (const [members, rounds] of (
      [
        [2, SWIPE_ROUNDS_2],
        [8, SWIPE_ROUNDS_8],
      ] as const
    ).filter(([members, rounds]) => SIZES.includes(members) && rounds > 0)) {
      const byWay = new Map(SWIPE_WAYS.map((way) => [way, emptySwipeSamples()] as const));
      const browserContext = await browser.newContext({ viewport: { width: 400, height: 300 } });
      try {
        // The ways take turns, round by round (a warm-up of each first), so that both see the same machine.
        for (let index = -1; index < rounds; index++) {
          for (const way of index % 2 === 0 ? SWIPE_WAYS : [...SWIPE_WAYS].reverse()) {
            await swipeRound(browserContext, server, signaling.url, members, way, index < 0 ? null : byWay.get(way)!, problems);
          }
        }
      } finally {
        await browserContext.close();
      }
      swipeBySize.set(members, byWay);
      context.log(`\nSwipe, ${members} players: ${rounds} rounds per way.\n`);
      context.log(swipeTable(new Map([[members, byWay]])));
    }
    if (DEMO_ROUNDS > 0) demo = await demoPart(context, problems);
  } finally {
    await signaling.stop();
    await plain?.stop();
  }
  for (const problem of [...new Set(problems)].slice(0, 20)) context.log(`[problem] ${problem}`);
  if (bySize.size > 0) {
    context.log('');
    context.log(resultTable(bySize));
    context.log('\nBreakdown: when each step happened, per member, in ms from t0 (the last connect() call; a member that called earlier can be negative).\n');
    context.log(breakdownTable(bySize));
    if (KINDS.length > 1) for (const [members, byKind] of baselinesBySize) context.log(`\n${baselineTable(members, byKind)}`);
  }
  if (swipeBySize.size > 0) {
    context.log('\nSwipe: ms from the end of the swipe (the host telling the template it plays) in the template swiped to.\n');
    context.log(swipeTable(swipeBySize));
  }
  if (DEMO_ROUNDS > 0) {
    context.log('\nDemo, two users: "page" from the navigation start of /templates/sketch/; "feed" from the focus change to the board (goTo(1)). ms.\n');
    context.log(demoTable(demo));
  }
  const targets: TargetCheck[] = [];
  for (const [members, s] of bySize) {
    const presence = stats(s.presence);
    const mesh = stats(s.firstMesh);
    const baseline = (kind: MemberKind, label: string): string => {
      const other = baselinesBySize.get(members)?.get(kind);
      return other ? `; ${label} p50 ${f0(stats(other.firstMesh).median)} ms (ours ${(mesh.median / stats(other.firstMesh).median).toFixed(2)}×)` : '';
    };
    const floorNote = baseline('plain', 'plain WebRTC with the least signalling server') + baseline('floor', 'with no server');
    targets.push({
      name: `${members} members: presence seen ≤ ${MAX_PRESENCE_MS} ms after connect() (p50)`,
      pass: presence.median <= MAX_PRESENCE_MS,
      detail: `p50 ${f0(presence.median)} ms, p99 ${f0(presence.p99)} ms`,
    });
    targets.push({
      name: `${members} members: first event over the mesh ≤ ${MAX_FIRST_MESH_MS} ms after connect() (p50)`,
      pass: mesh.median <= MAX_FIRST_MESH_MS && s.missing === 0,
      detail: `p50 ${f0(mesh.median)} ms, p99 ${f0(mesh.p99)} ms; hello by ${s.helloPaths.mesh} mesh / ${s.helloPaths.relay} relay; ${s.missing} pairs never meshed${floorNote}`,
    });
  }
  for (const [members, byWay] of swipeBySize) {
    const warm = byWay.get('prewarmed')!;
    const cold = byWay.get('join on focus')!;
    const listed = stats(warm.listed);
    const mesh = stats(warm.meshAll);
    const versus = (ours: number, theirs: readonly number[]): string =>
      `; joining on focus in the same run p50 ${f0(stats(theirs).median)} ms (${(ours / stats(theirs).median).toFixed(2)}×)`;
    targets.push({
      name: `swipe, ${members} players: the others listed ≤ ${MAX_SWIPE_LISTED_MS} ms after the swipe, prewarmed (p50)`,
      pass: listed.median <= MAX_SWIPE_LISTED_MS && warm.listedEarly === 0 && warm.failed === 0,
      detail: `p50 ${f0(listed.median)} ms, max ${f0(listed.max)} ms; listed by another before it came into focus ${warm.listedEarly} times; ${warm.failed} rounds failed${versus(listed.median, cold.listed)}`,
    });
    targets.push({
      name: `swipe, ${members} players: its data channels open ≤ ${MAX_SWIPE_MESH_MS} ms after the swipe, prewarmed (p50)`,
      pass: mesh.median <= MAX_SWIPE_MESH_MS && warm.failed === 0,
      detail: `p50 ${f0(mesh.median)} ms, max ${f0(mesh.max)} ms; ${warm.openAtFocus} of ${warm.channels} open before the swipe${versus(mesh.median, cold.meshAll)}`,
    });
  }
  return {
    targets,
    data: {
      swipe: Object.fromEntries([...swipeBySize].map(([members, byWay]) => [members, Object.fromEntries(byWay)])),
      sizes: Object.fromEntries(bySize),
      baselines: Object.fromEntries([...baselinesBySize].map(([members, byKind]) => [members, Object.fromEntries(byKind)])),
      rounds: rawRounds,
      demo,
    },
  };
}
