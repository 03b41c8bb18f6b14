/**
 * The workbench's checks (`platform-kit dev`, issue 25), each made to fail: a template that
 * misbehaves in exactly one way (test/fixtures/dev-checks/, over a project from `create`) and
 * the workbench warns on that check; the sample of `create`, which behaves, passes them all.
 *
 * One workbench (from the sources, in this process) over one project; each fixture replaces the
 * project's files and is looked at in a fresh page (a warning lasts until the page reloads).
 * The kit the project installs is this repository's dist/, built first.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { createProject } from '../../cli/create/create-project.js';
import { startDev, type DevServer } from '../../cli/dev/dev-server.js';
import { chromiumPath } from '../chromium.mjs';
import { CHROMIUM_FLAGS } from './support.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test/fixtures/dev-checks');
type Check = 'ready' | 'load' | 'focus' | 'insets' | 'longtask' | 'bundle';
/** Checks that settle in the editor alone (the feed's two need the Feed pane open). */
const EDITOR_CHECKS: readonly Check[] = ['ready', 'load', 'bundle'];
/** The long-task fixture's busy loop (test/fixtures/dev-checks/long-task). */
const LONG_TASK_FIXTURE_MS = 600;

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The check's state in the bar: 'ok', 'warn' or 'wait', and its text. */
async function check(page: Page, name: Check): Promise<{ state: string; text: string }> {
  const span = page.locator(`#checks [data-check="${name}"]`);
  return { state: (await span.getAttribute('class')) ?? '', text: await span.innerText() };
}

async function waitForCheck(page: Page, name: Check, state: 'ok' | 'warn', timeout = 30_000): Promise<string> {
  await page.locator(`#checks [data-check="${name}"].${state}`).waitFor({ timeout });
  return (await check(page, name)).text;
}

/** The template's frame named `pkdev=<name>`, once it runs `fixture`'s code. */
async function frameOf(page: Page, name: string, fixture: string): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const frame = page.frames().find((candidate) => new URL(candidate.url() || 'about:blank').searchParams.get('pkdev') === name);
    const running = await frame?.evaluate(() => document.documentElement.dataset['fixture']).catch(() => undefined);
    if (frame && running === fixture) return frame;
    assert.ok(Date.now() < deadline, `no frame pkdev=${name} running ${fixture} (it runs ${String(running)})`);
    await page.waitForTimeout(150);
  }
}

describe('platform-kit dev: each check fails for the template that earns it', { timeout: 600_000 }, () => {
  let work: string;
  let app: string;
  let sample: Map<string, string>;
  let dev: DevServer | undefined;
  let browser: Browser | undefined;
  const consoleLines: string[] = [];

  before(async () => {
    await mkdir(join(ROOT, 'test-artifacts'), { recursive: true });
    work = await mkdtemp(join(ROOT, 'test-artifacts/kit-checks-'));
    await run('npm', ['run', 'build:lib'], { cwd: ROOT });
    app = join(work, 'app');
    await createProject(app);
    // The kit as installed (package.json and dist/ copied), its dependencies and vite linked: no network.
    await mkdir(join(app, 'node_modules/platform-kit'), { recursive: true });
    await cp(join(ROOT, 'package.json'), join(app, 'node_modules/platform-kit/package.json'));
    await cp(join(ROOT, 'dist'), join(app, 'node_modules/platform-kit/dist'), { recursive: true });
    for (const name of await readdir(join(ROOT, 'node_modules'))) {
      if (name.startsWith('.') || name === 'platform-kit') continue;
      await symlink(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), 'dir');
    }
    sample = new Map(await Promise.all(['index.html', 'src/main.ts'].map(async (file) => [file, await readFile(join(app, file), 'utf8')] as const)));
    dev = await startDev({ root: app, port: 0, logLevel: 'warn' });
    browser = await chromium.launch({ headless: true, args: CHROMIUM_FLAGS, ...(chromiumPath ? { executablePath: chromiumPath } : {}) });
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await dev?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** The sample's files back, then the fixture's over them; resolves once the template's origin serves them. */
  async function use(fixture: string): Promise<void> {
    await rm(join(app, 'src/payload.ts'), { force: true });
    for (const [file, text] of sample) await writeFile(join(app, file), text);
    if (fixture === 'sample') {
      await writeFile(join(app, 'src/main.ts'), `${sample.get('src/main.ts')}document.documentElement.dataset['fixture'] = 'sample';\n`);
    } else {
      for (const file of await filesUnder(join(FIXTURES, fixture))) await cp(join(FIXTURES, fixture, file), join(app, file));
    }
    if (fixture === 'big-bundle') {
      // Random text does not compress: 160 KB of it is over the 100 KiB budget gzipped, whatever the kit weighs.
      await writeFile(join(app, 'src/payload.ts'), `export const PAYLOAD: string = '${randomBytes(120 * 1024).toString('base64')}';\n`);
    }
    // Vite's watcher has seen the change once the origin serves the fixture's name (its page's title, or its main.ts' string).
    const [path, wanted] = fixture === 'under-insets' ? ['/', '<title>under-insets</title>'] : ['/src/main.ts', `"${fixture}"`];
    const deadline = Date.now() + 15_000;
    for (;;) {
      const text = await fetch(new URL(path, dev!.templateUrl)).then((response) => response.text());
      if (text.includes(wanted) || text.includes(wanted.replaceAll('"', "'"))) return;
      assert.ok(Date.now() < deadline, `the template's origin still serves the last ${path}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** A fresh workbench page for `fixture`, its editor's template running it. */
  async function open(fixture: string): Promise<Page> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('console', (message) => consoleLines.push(`${fixture}: ${message.text()}`));
    await page.goto(dev!.url);
    await frameOf(page, 'editor', fixture);
    return page;
  }

  /** Opens the Feed pane, lets the template's item play, then moves to the neighbour (the template is preloaded beside it). */
  async function feedToNeighbour(page: Page, fixture: string): Promise<void> {
    await page.getByRole('tab', { name: 'Feed' }).click();
    await frameOf(page, 'feed', fixture);
    await page.waitForTimeout(1_500);
    await page.locator('#feed-pane platform-feed').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => /focus 1/.test(li.textContent ?? '')), undefined, { timeout: 10_000 });
  }

  /** Warned checks, of those the page has settled. */
  async function warned(page: Page, names: readonly Check[]): Promise<Check[]> {
    const states = await Promise.all(names.map(async (name) => [name, (await check(page, name)).state] as const));
    return states.filter(([, state]) => state === 'warn').map(([name]) => name);
  }

  it("create's sample behaves: every check passes, and the bundle check gives its size", async () => {
    await use('sample');
    const page = await open('sample');
    for (const name of EDITOR_CHECKS) await waitForCheck(page, name, 'ok');
    const bundle = (await check(page, 'bundle')).text;
    assert.match(bundle, /[\d.]+ KiB of 100\.0 KiB/);
    console.log(`# the sample: ${bundle}`);
    await feedToNeighbour(page, 'sample');
    // Longer than the focus check's grace and the probe's last look under the insets.
    await page.waitForTimeout(4_000);
    const states = Object.fromEntries(
      await Promise.all((['ready', 'load', 'focus', 'insets', 'longtask', 'bundle'] as const).map(async (name) => [name, await check(page, name)] as const)),
    );
    for (const [name, { state, text }] of Object.entries(states)) {
      // A busy machine (load averages of 30 were seen) makes long tasks of its own: the sample may
      // show one, but never one as long as the long-task fixture's 600 ms of work.
      const longTaskMs = Number(/(\d+) ms in/.exec(text)?.[1] ?? 0);
      if (name === 'longtask' && state === 'warn' && longTaskMs < LONG_TASK_FIXTURE_MS) console.log(`# the sample, on this busy machine: ${text}`);
      else assert.equal(state, 'ok', `${name}: ${text}`);
    }
    await page.context().close();
  });

  for (const [fixture, name, inFeed] of [
    ['no-ready', 'ready', false],
    ['no-load', 'load', false],
    ['long-task', 'longtask', false],
    ['big-bundle', 'bundle', false],
    ['joins-unfocused', 'focus', true],
    ['under-insets', 'insets', true],
  ] as const) {
    it(`${fixture}: the ${name} check warns, and only it`, async () => {
      await use(fixture);
      const page = await open(fixture);
      if (inFeed) await feedToNeighbour(page, fixture);
      const text = await waitForCheck(page, name, 'warn');
      console.log(`# ${fixture}: ${text}`);
      if (name === 'longtask') assert.ok(Number(/(\d+) ms in/.exec(text)?.[1]) >= LONG_TASK_FIXTURE_MS, text);
      // The other checks this page settled (the long-task one aside: a busy machine makes its own).
      const settled = [...EDITOR_CHECKS, ...(inFeed ? (['focus', 'insets'] as const) : [])];
      for (const other of settled) if (other !== name) await page.locator(`#checks [data-check="${other}"]:not(.wait)`).waitFor({ timeout: 30_000 });
      assert.deepEqual(await warned(page, settled), name === 'longtask' ? [] : [name]);
      if (name === 'longtask') assert.equal((await check(page, 'longtask')).state, 'warn');
      await page.context().close();
    });
  }

  it('a request that comes while dev starts is answered once it has started (it hung for good: no listener yet)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const starting = startDev({ root: app, port, logLevel: 'silent' });
    try {
      await requestWhileStarting(port, starting);
    } finally {
      await (await starting).close();
    }
  });

  /** Requests `/` from the moment the port listens; the first that connects must be answered 200. */
  async function requestWhileStarting(port: number, starting: Promise<DevServer>): Promise<void> {
    // The first request that connects lands between listen() and the servers behind it being ready.
    let answer: Response | undefined;
    let connectedBeforeReady = false;
    let ready = false;
    void starting.then(
      () => (ready = true),
      () => undefined,
    );
    const deadline = Date.now() + 30_000;
    while (!answer && Date.now() < deadline) {
      const wasReady = ready;
      answer = await fetch(`http://localhost:${port}/`, { signal: AbortSignal.timeout(40_000) }).catch((error: unknown) => {
        if (error instanceof Error && error.name === 'TimeoutError') throw error;
        return undefined;
      });
      if (answer && !wasReady) connectedBeforeReady = true;
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(answer?.status, 200);
    assert.ok(connectedBeforeReady, 'the request came after dev was ready: this run proves nothing');
  }

  it("the workbench page loads no Vite client of its own (it logged 'WebSocket closed without opened')", () => {
    const bad = consoleLines.filter((line) => /WebSocket closed without opened|\[vite\] failed to connect/.test(line));
    assert.deepEqual(bad, []);
  });
});
