/**
 * A template author's loop with `platform-kit dev` (issue 25's targets), on a project made by
 * `create` from the packed kit and installed as npm would (test/e2e/packed-kit.ts, no network):
 *
 *   start: from spawning the command to its page answering 200 (polled every 20 ms), in turns:
 *     - `npm run dev` (what the author types; the target: ≤ 3 s after install),
 *     - `platform-kit dev` without npm (node on the bin, so npm's own start shows apart),
 *     - `vite` alone on the same project (the anchor: the issue names no baseline, and the
 *       workbench is two Vites, the signaling server and the page's API on top of one);
 *     each cold (Vite's dependency caches removed, as right after install) and warm; plus, for
 *     `npm run dev` cold, the template drawn in the workbench's editor (its <h1> shows the sample's title);
 *   edit: a customization file saved with a new title → the editor's template shows it (≤ 1 s);
 *   error: a customization file saved broken → the overlay shown in the workbench (≤ 1 s).
 * Edit and error are measured in the pages themselves (a MutationObserver's wall clock, against
 * Date.now() taken just before the write), so the driver's polling adds nothing.
 *
 * DEV_LOOP_ROUNDS (default 5) start rounds, DEV_LOOP_EDITS (default 10) edit and error rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { createFromTarball, installPacked, packKit } from '../test/e2e/packed-kit.js';
import { ms, stats, table, type BenchContext, type BenchOutcome, type Stats } from './support/bench.js';

export const description = 'platform-kit dev: start (npm run dev, the bin, vite alone; cold and warm), a customization edit in the editor, an error in the browser.';

/** Target: dev ready after install. */
export const MAX_START_MS = 3_000;
/** Target: a saved edit in the editor's template; a saved error in the browser. */
export const MAX_EDIT_MS = 1_000;
const ROUNDS = Number(process.env['DEV_LOOP_ROUNDS'] ?? 5);
const EDITS = Number(process.env['DEV_LOOP_EDITS'] ?? 10);
const SAMPLE_TITLE = 'Hello from my template!';
const WAIT_MS = 30_000;

type Scenario = 'npm run dev' | 'platform-kit dev' | 'vite alone';
const SCENARIOS: readonly Scenario[] = ['npm run dev', 'platform-kit dev', 'vite alone'];

function command(scenario: Scenario, app: string, port: number): { file: string; args: string[] } {
  if (scenario === 'npm run dev') return { file: 'npm', args: ['run', 'dev', '--', '--port', String(port)] };
  if (scenario === 'platform-kit dev') return { file: process.execPath, args: [join(app, 'node_modules/platform-kit/dist/cli/kit-bin.js'), 'dev', '--port', String(port)] };
  return { file: process.execPath, args: [join(app, 'node_modules/vite/bin/vite.js'), '--port', String(port), '--strictPort', '--host', '127.0.0.1'] };
}

/** A port free now (the command is told it: the start is timed to its page, not to a line it prints). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Stops a process group started here, and waits for it to go. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }, 5_000);
  await gone;
  clearTimeout(timer);
}

/** Spawns `scenario` and resolves with the ms from spawn to the first 200 of its page. */
async function startOnce(scenario: Scenario, app: string, port: number): Promise<{ child: ChildProcess; startMs: number; spawnedAt: number }> {
  const { file, args } = command(scenario, app, port);
  const spawnedAt = performance.now();
  const child = spawn(file, args, { cwd: app, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // The workbench answers on localhost (the template on 127.0.0.1); vite alone was told 127.0.0.1.
  const url = scenario === 'vite alone' ? `http://127.0.0.1:${port}/` : `http://localhost:${port}/`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${scenario} exited ${child.exitCode}: ${stderr}`);
    if (performance.now() - spawnedAt > WAIT_MS) {
      await stop(child);
      throw new Error(`${scenario} did not answer in ${WAIT_MS} ms: ${stderr}`);
    }
    // Bounded: a request must never wait on a server forever (dev once left early ones unanswered).
    const status = await fetch(url, { signal: AbortSignal.timeout(WAIT_MS) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { child, startMs: performance.now() - spawnedAt, spawnedAt };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The editor's template frame (`pkdev=editor`) once its <h1> reads `title`. */
async function editorShowing(page: Page, title: string): Promise<Frame> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const frame = page.frames().find((candidate) => new URL(candidate.url() || 'about:blank').searchParams.get('pkdev') === 'editor');
    const text = await frame?.evaluate(() => document.querySelector('h1')?.textContent ?? '').catch(() => '');
    if (frame && text === title) return frame;
    if (Date.now() > deadline) throw new Error(`the editor's template shows ${JSON.stringify(text)}, not ${JSON.stringify(title)}`);
    await page.waitForTimeout(20);
  }
}

/**
 * Wall clock (ms, fractional) in `frame` when `condition` first holds, observed from now on. A
 * string, not a function: tsx's helpers (`__name`) must not reach the page.
 */
function whenInPage(frame: Frame | Page, condition: 'title' | 'overlay', wanted: string): Promise<number> {
  const holds =
    condition === 'title' ? `document.querySelector('h1')?.textContent === ${JSON.stringify(wanted)}` : `document.querySelector('#overlay')?.hasAttribute('hidden') === false`;
  return frame.evaluate<number>(`new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => {
      if (!(${holds})) return;
      observer.disconnect();
      resolve(performance.timeOrigin + performance.now());
    });
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    setTimeout(() => reject(new Error('${condition}: not seen in ${WAIT_MS} ms')), ${WAIT_MS});
  })`);
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  await mkdir(join(context.rootDir, 'test-artifacts'), { recursive: true });
  const work = await mkdtemp(join(context.rootDir, 'test-artifacts/dev-loop-'));
  const children = new Set<ChildProcess>();
  try {
    const tarball = await packKit(work);
    const app = await createFromTarball(work, tarball, 'app');
    await installPacked(app, tarball, work);
    const browser = await context.browser();
    const caches = [join(app, 'node_modules/.vite'), join(app, 'node_modules/.vite-platform-workbench')];

    // Start: rounds of every scenario, cold then warm, taking turns.
    const starts = new Map<string, number[]>();
    const editorCold: number[] = [];
    const add = (key: string, value: number): void => void starts.set(key, [...(starts.get(key) ?? []), value]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        for (const temperature of ['cold', 'warm'] as const) {
          if (temperature === 'cold') for (const cache of caches) await rm(cache, { recursive: true, force: true });
          const port = await freePort();
          const started = await startOnce(scenario, app, port);
          children.add(started.child);
          add(`${scenario}, ${temperature}`, started.startMs);
          if (scenario === 'npm run dev' && temperature === 'cold') {
            const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
            await page.goto(`http://localhost:${port}/`);
            await editorShowing(page, SAMPLE_TITLE);
            editorCold.push(performance.now() - started.spawnedAt);
            await page.close();
          } else if (temperature === 'cold') {
            // Every cold start is followed by a first page, so the warm one after it finds the caches filled alike.
            await fetch(`http://${scenario === 'vite alone' ? '127.0.0.1' : 'localhost'}:${port}/`, { signal: AbortSignal.timeout(WAIT_MS) }).catch(() => undefined);
          }
          await stop(started.child);
          children.delete(started.child);
        }
      }
    }

    context.log(
      table(
        ['start (ms)', 'runs', 'median', 'worst', 'min'],
        [...starts].map(([name, samples]) => {
          const s = stats(samples);
          return [name, String(s.count), ms(s.median), ms(s.max), ms(s.min)];
        }),
      ),
    );
    context.log(`npm run dev, cold, to the template in the editor: ${editorCold.map((value) => ms(value)).join(', ')} ms\n`);

    // Edit and error: one workbench, one page, the sample's customization file saved again and again.
    const port = await freePort();
    const dev = await startOnce('npm run dev', app, port);
    children.add(dev.child);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://localhost:${port}/`);
    let editor = await editorShowing(page, SAMPLE_TITLE);
    const file = join(app, '.platform/customization/card.json');
    const good = await readFile(file, 'utf8');
    const edits: number[] = [];
    const errors: number[] = [];
    for (let round = 0; round < EDITS; round++) {
      const title = `Edit ${round + 1}`;
      const seen = whenInPage(editor, 'title', title);
      const savedAt = Date.now();
      await writeFile(file, good.replace(SAMPLE_TITLE, title));
      edits.push((await seen) - savedAt);
      const shown = whenInPage(page, 'overlay', '');
      const brokenAt = Date.now();
      await writeFile(file, good.replace('"type": "text"', '"type": "object<Itme>[]"'));
      errors.push((await shown) - brokenAt);
      await writeFile(file, good);
      editor = await editorShowing(page, SAMPLE_TITLE);
      await page.locator('#overlay[hidden]').waitFor({ state: 'attached', timeout: WAIT_MS });
    }
    await page.close();
    await stop(dev.child);
    children.delete(dev.child);

    const rows: [string, Stats][] = [...starts].map(([name, samples]) => [name, stats(samples)]);
    rows.push(['npm run dev, cold: template in the editor', stats(editorCold)], ['edit saved → editor', stats(edits)], ['error saved → overlay', stats(errors)]);
    context.log(
      table(
        ['measure (ms)', 'runs', 'median', 'worst', 'min'],
        rows.map(([name, s]) => [name, String(s.count), ms(s.median), ms(s.max), ms(s.min)]),
      ),
    );
    const get = (name: string): Stats => rows.find(([row]) => row === name)![1];
    const devCold = get('npm run dev, cold');
    const viteCold = get('vite alone, cold');
    const viteWarm = get('vite alone, warm');
    context.log(
      `\nanchor: npm run dev cold ${ms(devCold.median)} ms against vite alone cold ${ms(viteCold.median)} ms (${(devCold.median / viteCold.median).toFixed(2)}×), warm ${ms(get('npm run dev, warm').median)} against ${ms(viteWarm.median)} ms`,
    );
    const edit = stats(edits);
    const error = stats(errors);
    return {
      targets: [
        {
          name: `npm run dev ready ≤ ${MAX_START_MS} ms after install (cold; worst run)`,
          pass: devCold.max <= MAX_START_MS,
          detail: `median ${ms(devCold.median)}, worst ${ms(devCold.max)} ms; vite alone ${ms(viteCold.median)} / ${ms(viteCold.max)} ms`,
        },
        {
          name: `edit visible in the editor ≤ ${MAX_EDIT_MS} ms after saving (worst)`,
          pass: edit.max <= MAX_EDIT_MS,
          detail: `median ${ms(edit.median)}, worst ${ms(edit.max)} ms`,
        },
        {
          name: `error shown in the browser ≤ ${MAX_EDIT_MS} ms after saving (worst)`,
          pass: error.max <= MAX_EDIT_MS,
          detail: `median ${ms(error.median)}, worst ${ms(error.max)} ms`,
        },
      ],
      data: { starts: Object.fromEntries(starts), editorCold, edits, errors },
    };
  } finally {
    for (const child of children) await stop(child);
    await rm(work, { recursive: true, force: true });
  }
}
