/**
 * The docs' template author's path, end to end (issue 17: "a newcomer following the README
 * gets a typed, remixable, feed-ready template of their own without reading the kit's source";
 * issue 25 moved that text from the README to docs/templates.md and docs/hosts.md).
 *
 * It takes the pages' own text, not a copy: the customization file, the tsconfig and the first
 * TypeScript sample of docs/templates.md's "Writing a template". In a scratch project under
 * test-artifacts/ it does what that section says a template project needs (`"type": "module"`, platform-kit installed, vite with
 * `plugins: [platformKit()]`, a tsconfig with `"include": ["src"]`), builds it with Vite and
 * checks the page's claims:
 * - the build writes `src/platform-env.d.ts`; `tsc --noEmit -p` passes (`get(['card', 'title'])`
 *   is a string, assigned to `textContent` under strict), and a mistyped path does not compile;
 * - served on its own origin, in a `<platform-feed>` of a host page on another origin (bundled by
 *   Vite from `platform-kit/host`), the template is shown (it called load()) with its built title,
 *   and a published remix (an item with `values`) with the remix's title;
 * - in `<platform-editor type="full">`, clicking the title opens its control
 *   (onPresentControl) and typing there changes the template's title (onValueChanged);
 * on a desktop and on the phone of TESTING.md (390 × 844, scale 3, touch). And the host samples of
 * docs/hosts.md's "Embedding templates" and the backend sample of docs/templates.md's "A template's
 * backend" type-check under that tsconfig, with what
 * they leave to the reader declared as a reader would (`openEditor(projectId: string)`).
 *
 * Screenshots: test-artifacts/screenshots/readme-template-*.png.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { build, createLogger, preview, type Logger, type PreviewServer } from 'vite';
import { chromiumPath } from '../chromium.mjs';
import { README_HOST_STUBS } from '../readme-stubs.js';
import { CHROMIUM_FLAGS, PHONE } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(ROOT, 'test-artifacts/screenshots');
const require = createRequire(import.meta.url);
const VITE_DIR = dirname(require.resolve('vite/package.json'));
const TSC = require.resolve('typescript/bin/tsc');
/** The values of the remix item of the feed (a published remix: its template plus these). */
const REMIX_TITLE = 'Happy remix day!';

/** Where the template author's text lives: its "Writing a template" and its backend. */
const TEMPLATES_PAGE = 'docs/templates.md';
/** Where the host developer's text lives: its "Embedding templates". */
const HOSTS_PAGE = 'docs/hosts.md';

/** The text of a page of the repository (README.md, docs/…). */
function page(path: string): Promise<string> {
  return readFile(join(ROOT, path), 'utf8');
}

/** The section of `text` (the page at `path`) whose "## " heading starts with `title`, up to the next "## " heading. */
function pageSection(text: string, path: string, title: string): string {
  const start = text.indexOf(`\n## ${title}`);
  assert.ok(start !== -1, `${path} has no "## ${title}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** What docs/templates.md's "Writing a template" section gives a template author: its customization file, tsconfig and first sample. */
function readmeTemplate(text: string): { customization: string; main: string; tsconfig: string } {
  const section = pageSection(text, TEMPLATES_PAGE, 'Writing a template\n');
  const json = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const customization = json.find((block) => block.includes('"@@editor"'));
  assert.ok(customization, '"Writing a template" has no ```json block with "@@editor" (the customization file)');
  JSON.parse(customization); // a newcomer pastes it into a .json file
  const tsconfig = json.find((block) => block.includes('"compilerOptions"'));
  assert.ok(tsconfig, '"Writing a template" has no ```json block with "compilerOptions" (the tsconfig)');
  assert.deepEqual((JSON.parse(tsconfig) as { include?: unknown }).include, ['src'], 'the tsconfig includes src');
  const main = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(main, '"Writing a template" has no ```ts sample');
  assert.ok(main.includes('ready().then(render)'), '"Writing a template"\'s first ```ts sample has no ready().then(render)');
  assert.ok(main.includes('feed.load()'), 'the sample calls feed.load()');
  return { customization, main, tsconfig };
}

/** The ```ts blocks of the section titled `title` (a "## " heading) of the page at `path`. */
async function pageSamples(path: string, title: string): Promise<string[]> {
  return [...pageSection(await page(path), path, title).matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** A Vite logger that keeps warnings and errors for the assertion messages. */
function keptLogger(): { logger: Logger; lines: string[] } {
  const logger = createLogger('warn');
  const lines: string[] = [];
  logger.warn = (message) => void lines.push(message);
  logger.warnOnce = (message) => void lines.push(message);
  logger.error = (message) => void lines.push(message);
  return { logger, lines };
}

/** `node tsc --noEmit -p dir`: its exit code and output. */
function tsc(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, '--noEmit', '-p', dir], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** A folder that has `platform-kit` and `vite` as `npm install` leaves them: in its own node_modules. */
async function installKit(dir: string): Promise<void> {
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  // The repository root is the package (its exports point at dist/); vite is the repo's own.
  await symlink(ROOT, join(dir, 'node_modules/platform-kit'), 'dir');
  await symlink(VITE_DIR, join(dir, 'node_modules/vite'), 'dir');
}

/** The kit's dist/, which `platform-kit/*` resolves to; built once if missing (`npm test` builds it first). */
async function ensureDist(): Promise<void> {
  const needed = ['dist/guest/index.js', 'dist/guest/index.d.ts', 'dist/host/index.js', 'dist/cli/vite-plugin.js'];
  if (needed.every((file) => existsSync(join(ROOT, file)))) return;
  const built = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` }),
    );
  });
  assert.equal(built.code, 0, `platform-kit's dist/ is missing and \`npm run build:lib\` failed:\n${built.output}`);
  for (const file of needed) assert.ok(existsSync(join(ROOT, file)), `${file} is missing after \`npm run build:lib\``);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const buffer = await page.screenshot({ path: join(SHOTS, `readme-template-${name}.png`), scale: 'css' });
  assert.ok(buffer.length > 3_000, `readme-template-${name}.png has content`);
}

/** The frame of the feed item at `index` (both items have the same URL: the iframe's place tells them apart). */
async function feedItemFrame(page: Page, index: number, timeoutMs = 15_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const element = await frame.frameElement().catch(() => null);
      const at = await element?.evaluate((iframe) => (iframe as Element).closest<HTMLElement>('[data-index]')?.dataset['index']).catch(() => undefined);
      if (at === String(index)) return frame;
    }
    assert.ok(Date.now() < deadline, `no frame for feed item ${index}`);
    await page.waitForTimeout(100);
  }
}

/** Waits until the feed item's iframe stands at the feed's top: the swipe to it has settled. */
async function settledAt(page: Page, frame: Frame, timeoutMs = 10_000): Promise<void> {
  const iframe = await frame.frameElement();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [item, feed] = await Promise.all([iframe.boundingBox(), page.locator('platform-feed').boundingBox()]);
    if (item && feed && Math.abs(item.y - feed.y) < 1) return;
    assert.ok(Date.now() < deadline, `the feed item did not settle: it is at ${item?.y}, the feed at ${feed?.y}`);
    await page.waitForTimeout(50);
  }
}

/** The template's title once it is `text` (its `<h1>`). */
async function waitForTitle(frame: Frame, text: string, what: string): Promise<void> {
  await frame
    .waitForFunction((wanted) => document.querySelector('h1')?.textContent === wanted, text, { timeout: 15_000 })
    .catch(async (error: unknown) => {
      const seen = await frame.evaluate(() => document.querySelector('h1')?.textContent).catch(() => '(frame gone)');
      throw new Error(`${what}: the template's <h1> is ${JSON.stringify(seen)}, not ${JSON.stringify(text)} (${String(error)})`);
    });
}

describe("the docs' template, as a newcomer writes it", { timeout: 110_000 }, () => {
  let work: string;
  let template: string;
  let host: string;
  let readme: ReturnType<typeof readmeTemplate>;
  let builtTitle: string;
  const servers: PreviewServer[] = [];
  let templateUrl: string;
  let hostUrl: string;
  let browser: Browser | undefined;

  before(async () => {
    readme = readmeTemplate(await page(TEMPLATES_PAGE));
    builtTitle = (JSON.parse(readme.customization) as { card: { title: string } }).card.title;
    await ensureDist();
    await mkdir(join(ROOT, 'test-artifacts'), { recursive: true });
    work = await mkdtemp(join(ROOT, 'test-artifacts/readme-template-'));
    template = join(work, 'my-card');
    host = join(work, 'host');
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    for (const server of servers) await server.close().catch(() => undefined);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('builds with Vite: platform-env.d.ts in src/, get() typed under tsc, a mistyped path does not compile', async () => {
    // What "Writing a template" says a template project needs.
    await mkdir(join(template, '.platform/customization'), { recursive: true });
    await mkdir(join(template, 'src'), { recursive: true });
    await installKit(template);
    await writeFile(join(template, 'package.json'), `${JSON.stringify({ name: 'my-card', private: true, type: 'module', scripts: { build: 'vite build' } }, null, 2)}\n`);
    await writeFile(join(template, '.platform/customization/card.json'), readme.customization);
    await writeFile(
      join(template, 'index.html'),
      [
        '<!doctype html>',
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>My card</title>',
        '<style>body { margin: 0; font-family: sans-serif; background: #ffe3e3; } h1 { margin: 0; padding: 2rem 1rem; } h1.editable { outline: 2px dashed #c92a2a; cursor: pointer; }</style>',
        '</head>',
        '<body>',
        '<h1></h1>',
        '<script type="module" src="/src/main.ts"></script>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
    await writeFile(join(template, 'src/main.ts'), readme.main);
    await writeFile(join(template, 'tsconfig.json'), readme.tsconfig);
    await writeFile(
      join(template, 'vite.config.ts'),
      "import { defineConfig } from 'vite';\nimport { platformKit } from 'platform-kit/vite';\n\nexport default defineConfig({ plugins: [platformKit()] });\n",
    );

    const { logger, lines } = keptLogger();
    await build({ root: template, logLevel: 'warn', customLogger: logger });
    assert.deepEqual(lines, [], 'the build warned');
    const built = await readFile(join(template, 'dist/index.html'), 'utf8');
    assert.match(built, /<script type="module"[^>]*src="\/assets\/[^"]+\.js"/, built);
    assert.ok(existsSync(join(template, 'src/platform-env.d.ts')), 'the build wrote src/platform-env.d.ts');

    const typed = await tsc(template);
    assert.equal(typed.code, 0, `tsc --noEmit -p my-card:\n${typed.output}`);
    // A mistyped path: the same sample with ['card', 'titel'] does not compile.
    const mistyped = readme.main.replace("remix.get(['card', 'title'])", "remix.get(['card', 'titel'])");
    assert.notEqual(mistyped, readme.main, "the sample reads remix.get(['card', 'title'])");
    await writeFile(join(template, 'src/mistyped.ts'), mistyped);
    const refused = await tsc(template);
    await rm(join(template, 'src/mistyped.ts'));
    assert.notEqual(refused.code, 0, 'a mistyped path compiled');
    assert.match(refused.output, /src\/mistyped\.ts\(\d+,\d+\): error TS\d+: [^\n]*"titel"/, refused.output);
    assert.doesNotMatch(refused.output, /src\/main\.ts/, refused.output);
  });

  it('the host samples ("Embedding templates", docs/hosts.md) and the backend sample (docs/templates.md) type-check under its tsconfig', async () => {
    const samples = [
      ...(await pageSamples(HOSTS_PAGE, 'Embedding templates')).map((code, index) => ({ file: `host-${index}.ts`, code })),
      ...(await pageSamples(TEMPLATES_PAGE, "A template's backend")).slice(0, 2).map((code, index) => ({ file: `backend-${index}.ts`, code })),
    ];
    assert.equal(samples.length, 4, 'two host samples (with Lit, and without) and the backend with its template side');
    assert.match(samples[1]!.code, /from 'platform-kit\/host\/core'/, 'the sample "with no Lit" imports the entry that loads no Lit');
    const dir = join(work, 'samples');
    await mkdir(join(dir, 'src'), { recursive: true });
    await installKit(dir);
    await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'samples', private: true, type: 'module' }, null, 2)}\n`);
    await writeFile(join(dir, 'tsconfig.json'), readme.tsconfig);
    // express and its types: the repository's own (a reader installs them).
    for (const { file, code } of samples) await writeFile(join(dir, 'src', file), `${README_HOST_STUBS}${code}\nexport {};\n`);
    const typed = await tsc(dir);
    assert.equal(typed.code, 0, `tsc --noEmit over the docs' samples:\n${typed.output}`);
  });

  it('a host page on another origin shows it in <platform-feed>, with a published remix, and remixes it in <platform-editor>', async () => {
    assert.ok(existsSync(join(template, 'dist/index.html')), 'the template was built (the test before)');
    // The host page: bundled by Vite from platform-kit/host, as docs/hosts.md's "Embedding templates".
    await mkdir(join(host, 'src'), { recursive: true });
    await installKit(host);
    await writeFile(join(host, 'package.json'), `${JSON.stringify({ name: 'my-host', private: true, type: 'module' }, null, 2)}\n`);
    const page = (title: string, script: string, body: string): string =>
      `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${title}</title>\n<style>html, body { margin: 0; height: 100%; }</style></head>\n<body>${body}<script type="module" src="/src/${script}"></script></body>\n</html>\n`;
    await writeFile(join(host, 'index.html'), page('Feed', 'feed.ts', '<platform-feed actions="remix share"></platform-feed>'));
    await writeFile(join(host, 'editor.html'), page('Editor', 'editor.ts', ''));
    await writeFile(
      join(host, 'src/feed.ts'),
      `import { defineHostElements } from 'platform-kit/host';
defineHostElements();

// The template's URL (another origin) comes in the page's query: ?template=…
const url = new URLSearchParams(location.search).get('template')!;
const feed = document.querySelector('platform-feed')!;
feed.items = [
  { url, projectId: 'my-card', title: 'My card' },
  // A published remix: the template plus values, which it reads through InstantRemixing as in a preview.
  { url, projectId: 'my-card.r1', values: { card: { title: ${JSON.stringify(REMIX_TITLE)} } } },
];
`,
    );
    await writeFile(
      join(host, 'src/editor.ts'),
      `import { defineHostElements } from 'platform-kit/host';
defineHostElements();

const url = new URLSearchParams(location.search).get('template')!;
const editor = document.createElement('platform-editor');
Object.assign(editor, { type: 'full', projectId: 'my-card', remixId: 'r1', src: new URL('?context=remix', url).href });
editor.addEventListener('platform-editor-ready', () => (document.body.dataset['ready'] = 'true'));
editor.addEventListener('platform-control-open', (event) => (document.body.dataset['open'] = JSON.stringify(event.detail.path)));
document.body.append(editor);
`,
    );
    const { logger, lines } = keptLogger();
    await build({
      root: host,
      configFile: false,
      logLevel: 'warn',
      customLogger: logger,
      build: { rollupOptions: { input: [join(host, 'index.html'), join(host, 'editor.html')] } },
    });
    assert.deepEqual(lines, [], 'the host build warned');

    // Two origins: the template on 127.0.0.1, the host pages on localhost.
    const serve = async (root: string, configFile?: false): Promise<string> => {
      const server = await preview({
        root,
        logLevel: 'warn',
        ...(configFile === false ? { configFile } : {}),
        preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
      });
      servers.push(server);
      const address = server.httpServer.address();
      assert.ok(address && typeof address === 'object', 'the preview server listens');
      return `http://127.0.0.1:${address.port}/`;
    };
    templateUrl = await serve(template);
    hostUrl = (await serve(host, false)).replace('127.0.0.1', 'localhost');
    assert.match(await (await fetch(templateUrl)).text(), /<h1><\/h1>/);

    browser = await chromium.launch({ headless: true, args: CHROMIUM_FLAGS, ...(chromiumPath ? { executablePath: chromiumPath } : {}), timeout: 30_000 });
    for (const phone of [false, true]) {
      const device = phone ? 'phone' : 'desktop';
      const context = await browser.newContext(phone ? PHONE : { viewport: { width: 1000, height: 640 } });
      // In every frame: each text the page's <h1> shows, in order.
      await context.addInitScript(() => {
        const seen: string[] = ((window as { titlesSeen?: string[] }).titlesSeen = []);
        new MutationObserver(() => {
          const text = document.querySelector('h1')?.textContent ?? '';
          if (text !== '' && seen.at(-1) !== text) seen.push(text);
        }).observe(document, { childList: true, subtree: true, characterData: true });
      });
      try {
        const errors: string[] = [];
        const watch = (target: Page): void => {
          target.on('pageerror', (error) => errors.push(`[page error] ${error.message}`));
          target.on('console', (message) => {
            if (message.type() === 'error') errors.push(`[console] ${message.text()} ${message.location().url}`);
          });
          target.on('response', (response) => {
            if (response.status() >= 400) errors.push(`[http ${response.status()}] ${response.url()}`);
          });
        };

        // The editor: a click (a tap) on the title opens its control; typing there retitles the template.
        const editor = await context.newPage();
        watch(editor);
        editor.setDefaultTimeout(15_000);
        await editor.goto(`${hostUrl}editor.html?template=${encodeURIComponent(templateUrl)}`);
        await editor.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 15_000 });
        const frame = editor.frames().find((candidate) => candidate.url().startsWith(templateUrl));
        assert.ok(
          frame,
          `the editor frames the template (${editor
            .frames()
            .map((candidate) => candidate.url())
            .join(', ')})`,
        );
        await waitForTitle(frame, builtTitle, `${device} editor`);
        // onSetRemixing(true): the sample marks its title editable.
        await frame.waitForFunction(() => document.querySelector('h1')?.classList.contains('editable'), undefined, { timeout: 10_000 });
        const overlay = editor.locator('platform-editor .overlay');
        if (phone) {
          // A real touch at the title's place on the screen (before any screenshot of this page: see editor-phone.test.ts).
          const box = (await frame.locator('h1').boundingBox())!;
          await editor.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
        } else {
          await frame.locator('h1').click();
        }
        await overlay.waitFor({ state: 'visible', timeout: 10_000 });
        assert.equal(await editor.evaluate(() => document.body.dataset['open']), JSON.stringify(['card', 'title']), "the title's control opened");
        await overlay.getByText('Title', { exact: true }).first().waitFor({ state: 'visible', timeout: 5_000 });
        const wanted = `My own card, ${device}`;
        const input = overlay.locator('input').first();
        if (phone) await input.tap();
        else await input.click();
        await input.fill('');
        await editor.keyboard.type(wanted);
        await waitForTitle(frame, wanted, `${device} editor, typed in the Title control`);
        await screenshot(editor, `${device}-editor`);
        await editor.close();

        // The feed: the template is shown (it called load()), with its built title.
        const feed = await context.newPage();
        watch(feed);
        feed.setDefaultTimeout(15_000);
        await feed.goto(`${hostUrl}?template=${encodeURIComponent(templateUrl)}`);
        await feed
          .waitForFunction(() => document.querySelector('platform-feed')?.controller?.statusAt(0) === 'loaded', undefined, { timeout: 15_000 })
          .catch(async (error: unknown) => {
            const status = await feed.evaluate(() => document.querySelector('platform-feed')?.controller?.statusAt(0));
            throw new Error(`${device}: the feed's first item is ${String(status)}, not loaded: the template did not call load()? (${String(error)})`);
          });
        const first = await feedItemFrame(feed, 0);
        await waitForTitle(first, builtTitle, `${device} feed, the template`);
        assert.equal(await feed.evaluate(() => document.querySelector('platform-feed')!.controller!.isPlaying(0)), true, 'the feed plays the loaded template');
        await settledAt(feed, first);
        await screenshot(feed, `${device}-feed`);

        // The published remix: its values arrive before ready(), so it draws the remix's title.
        await feed.evaluate(() => document.querySelector('platform-feed')!.next());
        await feed.waitForFunction(() => document.querySelector('platform-feed')?.controller?.statusAt(1) === 'loaded', undefined, { timeout: 15_000 });
        const remixed = await feedItemFrame(feed, 1);
        await waitForTitle(remixed, REMIX_TITLE, `${device} feed, the remix`);
        await feed.waitForFunction(() => document.querySelector('platform-feed')!.controller!.isPlaying(1), undefined, { timeout: 5_000 });
        await settledAt(feed, remixed);
        // Never the built title first: the sample draws at ready(), when the remix's values are there.
        assert.deepEqual(await remixed.evaluate(() => (window as { titlesSeen?: string[] }).titlesSeen), [REMIX_TITLE], 'the titles the remix item showed');
        await screenshot(feed, `${device}-feed-remix`);
        await feed.close();
        assert.deepEqual(errors, [], `${device}: errors on the pages`);
      } finally {
        await context.close();
      }
    }
  });
});
