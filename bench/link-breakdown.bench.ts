/**
 * Where the time of a link round trip goes. A diagnostic: it runs only when
 * named, `npm run bench -- link-breakdown`. Four views, all on the bench page
 * of link-roundtrip (opened with ?manual, so this module drives it):
 *
 * 1. Hops: both ends stamp each request they post and receive (bench/pages/
 *    trace.ts) on a clock the processes share, so each round trip splits into
 *    sender work, hop there, host work, hop back, receiver work.
 * 2. Profile: the V8 CPU profiler (DevTools protocol) on the host page's
 *    process and the frames' process, self time by file and by function per
 *    round trip. The profiler slows what it watches (and counts time a thread
 *    was descheduled inside a call against that call): read shares, not totals.
 *    The frames on 127.0.0.1 share one renderer process.
 * 3. Single steps (structuredClone, timers, comlink's proxies…) in a tight loop.
 * 4. What-if: pages patched (bench/pages/what-if.ts) as a library change
 *    would behave, ours against penpal in the same page load.
 */
import type { CDPSession, Frame, Page } from 'playwright-core';
import { SCENARIOS, type ScenarioId, type TracedBlock } from './pages/protocol.js';
import type { TraceEvent } from './pages/trace.js';
import type * as MicroPageModule from './pages/micro.js';
import { ms, stats, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description =
  'Diagnostic: where a link round trip spends its time (hops, CPU profile, single steps, what-ifs), ours against penpal, bare comlink and a minimal protocol.';
export const onlyWhenNamed = true;

const PROFILED: readonly ScenarioId[] = ['ours', 'rpc-shape', 'comlink-shape', 'penpal-shape', 'lean-shape', 'raw-cross-guest'];
const SAMPLING_INTERVAL_US = 50;
/** What-if variants (bench/pages/what-if.ts); '' is the unpatched page. */
const WHAT_IFS = ['', 'clone', 'timer', 'clone,timer'] as const;
/** Buckets V8 reports that are not JavaScript of a page. */
const IDLE = '(idle)';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** Self time in ms per key of a profile. */
function selfTimes(profile: Profile, keyOf: (node: ProfileNode) => string): Map<string, number> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = nodes.get(samples[i] ?? -1);
    // timeDeltas[i + 1] is the time from sample i to the next one: what sample i stands for.
    const us = deltas[i + 1] ?? 0;
    if (!node) continue;
    const key = keyOf(node);
    totals.set(key, (totals.get(key) ?? 0) + us / 1000);
  }
  return totals;
}

function fileOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || '(anonymous)'}`;
  try {
    return new URL(url).pathname.replace(/^\/node_modules\//, '');
  } catch {
    return url;
  }
}

function functionOf(node: ProfileNode): string {
  const { functionName, lineNumber } = node.callFrame;
  const file = fileOf(node);
  return !node.callFrame.url ? file : `${functionName || '(anonymous)'} ${file.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
}

async function profileDuring<T>(sessions: readonly CDPSession[], work: () => Promise<T>): Promise<{ result: T; profiles: Profile[] }> {
  for (const session of sessions) {
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    await session.send('Profiler.start');
  }
  const result = await work();
  const profiles: Profile[] = [];
  for (const session of sessions) {
    const { profile } = await session.send('Profiler.stop');
    profiles.push(profile);
    await session.send('Profiler.disable');
  }
  return { result, profiles };
}

/** The hops of each round trip of a traced block, in ms: sender, hop there, host, hop back, receiver, total. */
function hops(block: TracedBlock): { readonly [segment in (typeof SEGMENTS)[number]]: number[] } {
  const of = (events: readonly TraceEvent[], kind: TraceEvent['kind']): number[] => events.filter((event) => event.kind === kind).map((event) => event.at);
  const start = of(block.timer, 'start');
  const post = of(block.timer, 'post');
  const recv = of(block.timer, 'recv');
  const stop = of(block.timer, 'stop');
  const peerRecv = of(block.peer, 'recv');
  const peerPost = of(block.peer, 'post');
  const n = block.samples.length;
  for (const [name, list] of Object.entries({ start, post, recv, stop, peerRecv, peerPost })) {
    if (list.length !== n) throw new Error(`trace: ${list.length} "${name}" stamps for ${n} round trips`);
  }
  const diff = (a: number[], b: number[]): number[] => a.map((value, i) => value - (b[i] ?? Number.NaN));
  return {
    'guest sends': diff(post, start),
    'hop to host': diff(peerRecv, post),
    'host works': diff(peerPost, peerRecv),
    'hop back': diff(recv, peerPost),
    'guest receives': diff(stop, recv),
    total: diff(stop, start),
  };
}
const SEGMENTS = ['guest sends', 'hop to host', 'host works', 'hop back', 'guest receives', 'total'] as const;

async function runBlock(page: Page, scenario: ScenarioId, count: number): Promise<number[]> {
  return page.evaluate(
    async ([id, n]) => {
      if (!window.__bench) throw new Error('the bench page was not opened with ?manual');
      return (await window.__bench).runBlock(id, n);
    },
    [scenario, count] as const,
  );
}

async function traceBlock(page: Page, scenario: ScenarioId, count: number): Promise<TracedBlock> {
  return page.evaluate(
    async ([id, n]) => {
      if (!window.__bench) throw new Error('the bench page was not opened with ?manual');
      return (await window.__bench).traceBlock(id, n);
    },
    [scenario, count] as const,
  );
}

/** Opens the bench page in manual mode with `query` and waits until every frame is set up. */
async function openBenchPage(context: BenchContext, query: Record<string, string>): Promise<Page> {
  const server = await context.server();
  const page = await (await context.browser()).newPage();
  const url = new URL('/bench/link-roundtrip.html', server.hostOrigin);
  url.searchParams.set('manual', '1');
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  await page.goto(url.toString());
  await page.waitForFunction(() => window.__bench !== undefined);
  await page.evaluate(async () => {
    await window.__bench;
  });
  return page;
}

async function hopsSection(context: BenchContext, page: Page, count: number): Promise<unknown> {
  const medianRows: string[][] = [];
  const meanRows: string[][] = [];
  const data: Record<string, Record<string, number>> = {};
  const rounds = 10;
  const splits = new Map<ScenarioId, { [segment in (typeof SEGMENTS)[number]]: number[] }>();
  for (const scenario of PROFILED) await runBlock(page, scenario, context.options.warmup);
  // Scenarios take turns in short blocks, so a slow spell of the machine hits them alike.
  for (let round = 0; round < rounds; round++) {
    for (const scenario of PROFILED) {
      const split = hops(await traceBlock(page, scenario, Math.ceil(count / rounds)));
      const into = splits.get(scenario);
      if (into) for (const segment of SEGMENTS) into[segment].push(...split[segment]);
      else splits.set(scenario, split);
    }
  }
  for (const scenario of PROFILED) {
    const split = splits.get(scenario);
    if (!split) continue;
    medianRows.push([scenario, ...SEGMENTS.map((segment) => ms(stats(split[segment]).median))]);
    meanRows.push([scenario, ...SEGMENTS.map((segment) => ms(stats(split[segment]).mean))]);
    data[scenario] = Object.fromEntries(SEGMENTS.map((segment) => [segment, stats(split[segment]).median]));
  }
  context.log(`### 1. Hops of ${count} traced round trips per scenario (ms; stamps of two processes on one clock, 5 µs steps)\n`);
  context.log('Medians (they do not add up to the median total):\n');
  context.log(table(['scenario', ...SEGMENTS], medianRows));
  context.log('\nMeans (they add up):\n');
  context.log(table(['scenario', ...SEGMENTS], meanRows));
  context.log('\n"hop to host" also holds the host finishing the reply to its previous callback, which the guest posted just before its next call.');
  return data;
}

/** The frame that times `scenario`, as a Playwright frame of `page`. */
function timingFrame(page: Page, scenario: ScenarioId): Frame {
  const timer = SCENARIOS.find((candidate) => candidate.id === scenario)?.timer;
  const file = timer === 'template' ? 'template' : timer === 'penpal' ? 'penpal-child' : 'echo';
  const frame = page.frames().find((candidate) => candidate.url().includes(`/bench/pages/${file}.html`));
  if (!frame) throw new Error(`no ${file} frame`);
  return frame;
}

async function profileSection(context: BenchContext, page: Page, count: number): Promise<void> {
  const processNames = ['host page', 'timing frame (127.0.0.1)'];
  const perRoundTripUs = (totalMs: number): string => ((totalMs * 1000) / count).toFixed(1);
  const summaryRows: string[][] = [];
  const fileRows: string[][] = [];
  let oursFunctions: Map<string, number>[] = [];
  for (const scenario of PROFILED) {
    await runBlock(page, scenario, context.options.warmup);
    // The host page and the frame that times the scenario (an out-of-process iframe: a target of its own).
    const sessions = [await page.context().newCDPSession(page), await page.context().newCDPSession(timingFrame(page, scenario))];
    const { result: samples, profiles } = await profileDuring(sessions, () => runBlock(page, scenario, count));
    for (const session of sessions) await session.detach();
    const busy: string[] = [];
    profiles.forEach((profile, index) => {
      const files = [...selfTimes(profile, fileOf)].filter(([key]) => key !== IDLE).sort((a, b) => b[1] - a[1]);
      busy.push(perRoundTripUs(files.reduce((sum, [, value]) => sum + value, 0)));
      for (const [file, value] of files.slice(0, 8)) fileRows.push([scenario, processNames[index] ?? '', file, perRoundTripUs(value)]);
    });
    summaryRows.push([scenario, ms(stats(samples).median), ...busy]);
    if (scenario === 'ours') oursFunctions = profiles.map((profile) => selfTimes(profile, functionOf));
  }

  context.log(`\n### 2. CPU profile, ${count} round trips per scenario (sampling every ${SAMPLING_INTERVAL_US} µs; µs per round trip)\n`);
  context.log(table(['scenario', 'median ms under profiler', ...processNames.map((name) => `busy µs: ${name}`)], summaryRows));
  context.log('\nSelf time by source file (top 8 per process; "(native) postMessage" holds time the thread lost the CPU while sending):\n');
  context.log(table(['scenario', 'process', 'file', 'µs / round trip'], fileRows));
  oursFunctions.forEach((functions, index) => {
    context.log(`\nours, ${processNames[index]}: self time by function (top 20):\n`);
    context.log(
      table(
        ['function', 'µs / round trip'],
        [...functions]
          .filter(([key]) => key !== IDLE)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 20)
          .map(([key, value]) => [key, ((value * 1000) / count).toFixed(2)]),
      ),
    );
  });
}

async function microSection(context: BenchContext, page: Page): Promise<Record<string, number>> {
  const templateFrame = page.frames().find((frame) => frame.url().includes('/bench/pages/template.html'));
  if (!templateFrame) throw new Error('no template frame');
  const micro = await templateFrame.evaluate(async (moduleUrl) => {
    const module = (await import(moduleUrl)) as typeof MicroPageModule;
    return module.runMicro();
  }, '/bench/pages/micro.ts');
  context.log('\n### 3. Single steps in a tight loop (template process, no profiler)\n');
  context.log(
    table(
      ['operation', 'ns / op'],
      Object.entries(micro).map(([name, ns]) => [name, ns.toFixed(0)]),
    ),
  );
  return micro;
}

async function whatIfSection(context: BenchContext): Promise<unknown> {
  const rounds = 40;
  const perBlock = 100;
  const collected = new Map<string, { ours: number[]; penpal: number[]; ratios: number[] }>(WHAT_IFS.map((variant) => [variant, { ours: [], penpal: [], ratios: [] }]));
  // Two passes, the second in reverse order, so a slow spell of the machine does not land on one variant only.
  for (const variant of [...WHAT_IFS, ...[...WHAT_IFS].reverse()]) {
    const into = collected.get(variant);
    if (!into) continue;
    const page = await openBenchPage(context, variant === '' ? {} : { whatif: variant });
    try {
      for (const scenario of ['ours', 'penpal-shape'] as const) await runBlock(page, scenario, context.options.warmup);
      for (let round = 0; round < rounds; round++) {
        const a = await runBlock(page, 'ours', perBlock);
        const b = await runBlock(page, 'penpal-shape', perBlock);
        into.ours.push(...a);
        into.penpal.push(...b);
        into.ratios.push(stats(a).median / stats(b).median);
      }
    } finally {
      await page.close();
    }
  }
  const rows: string[][] = [];
  const data: Record<string, { ours: number; penpal: number; paired: number }> = {};
  for (const [variant, { ours, penpal, ratios }] of collected) {
    const entry = { ours: stats(ours).median, penpal: stats(penpal).median, paired: stats(ratios).median };
    data[variant || 'none'] = entry;
    rows.push([variant || '(none)', ms(entry.ours), ms(entry.penpal), `${entry.paired.toFixed(2)}×`]);
  }
  context.log(`\n### 4. What-if (2 page loads × ${rounds} × ${perBlock} round trips each, ours and penpal taking turns)\n`);
  context.log(table(['patch (bench/pages/what-if.ts)', 'ours median ms', 'penpal-shape median ms', 'ours / penpal, paired'], rows));
  context.log('\nclone: structuredClone passes primitives through (a clonePlain fast path). timer: no timer per call (one shared deadline sweep).');
  return data;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const count = Math.max(1_000, Math.min(context.options.samples, 5_000));
  let hopsData: unknown;
  let micro: Record<string, number>;
  const traced = await openBenchPage(context, { trace: '1' });
  try {
    hopsData = await hopsSection(context, traced, count);
  } finally {
    await traced.close();
  }
  // The profile and the single steps on a page without the trace's wrappers.
  const page = await openBenchPage(context, {});
  try {
    await profileSection(context, page, count);
    micro = await microSection(context, page);
  } finally {
    await page.close();
  }
  const whatIf = await whatIfSection(context);
  return { targets: [], data: { hops: hopsData, micro, whatIf } };
}
