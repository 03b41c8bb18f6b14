import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build, createLogger, createServer, type InlineConfig, type Logger, type ViteDevServer } from 'vite';
import platformKitDefault, { platformKit, VIRTUAL_MODULE_ID } from '../../cli/vite-plugin.js';
import { makeTemplate, waitFor, type TempTemplate } from './cli-support.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function template(): Promise<TempTemplate> {
  const made = await makeTemplate('vite-template');
  cleanups.push(() => made.remove());
  return made;
}

/** A Vite logger that records warnings and errors instead of printing them. */
function recordingLogger(): { logger: Logger; warnings: string[]; errors: string[] } {
  const logger = createLogger('silent');
  const warnings: string[] = [];
  const errors: string[] = [];
  logger.warn = (message) => void warnings.push(message);
  logger.error = (message) => void errors.push(message);
  return { logger, warnings, errors };
}

/** Vite config of the fixture template; `platform-kit/guest` is a recording stub (dist/ need not exist). */
function viteConfig(t: TempTemplate, logger: Logger, extra: InlineConfig = {}): InlineConfig {
  return {
    root: t.root,
    configFile: false,
    logLevel: 'silent',
    customLogger: logger,
    resolve: { alias: { 'platform-kit/guest': join(t.root, 'guest-stub.js') } },
    optimizeDeps: { noDiscovery: true, include: [] },
    plugins: [platformKit({ env: { PLATFORM_PROJECT_ID: 'vite-project' } })],
    ...extra,
  };
}

describe('platformKit (Vite plugin): build', () => {
  it('is the default export too', () => {
    assert.equal(platformKitDefault, platformKit);
    assert.equal(platformKit().name, 'platform-kit');
  });

  it('bundles the customization before the template script, and writes the generated files', async () => {
    const t = await template();
    const { logger, warnings } = recordingLogger();
    const outDir = join(t.root, 'dist');
    await build(viteConfig(t, logger, { build: { outDir, modulePreload: false, minify: false } }));
    assert.deepEqual(warnings, []);

    const html = await readFile(join(outDir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g)].map((match) => match[1] ?? '');
    assert.equal(scripts.length, 1, html);
    assert.ok(html.indexOf('<script') < html.indexOf('</head>'), 'the entry is in the head');

    const assets = await readdir(join(outDir, 'assets'));
    const entry = assets.find((name) => name.endsWith('.js'));
    assert.ok(entry);
    const code = await readFile(join(outDir, 'assets', entry), 'utf8');
    assert.ok(code.includes('Hello from Vite'), 'the values are in the bundle');
    assert.ok(code.indexOf('Hello from Vite') < code.indexOf('MAIN_SCRIPT_MARKER'), 'the customization comes first');

    // Run the bundle: the template's own script must see the values already registered.
    const globals = globalThis as { __mainSawCustomization?: { values: Record<string, Record<string, unknown>> }; __mainMarker?: string };
    await import(pathToFileURL(join(outDir, 'assets', entry)).href);
    assert.equal(globals.__mainMarker, 'MAIN_SCRIPT_MARKER');
    assert.equal(globals.__mainSawCustomization?.values['card']?.['title'], 'Hello from Vite');
    assert.equal(globals.__mainSawCustomization?.values['metadata']?.['projectId'], 'vite-project');

    assert.match(await t.read('.platform/generated/customization.js'), /Hello from Vite/);
    assert.match(await t.read('.platform/generated/customization.d.ts'), /title: string;/);
  });

  it('warns through the Vite logger about problems instead of failing the build', async () => {
    const t = await template();
    await t.write('broken.json', { metadata: { projectId: 'mine' } });
    const { logger, warnings } = recordingLogger();
    await build(viteConfig(t, logger, { build: { outDir: join(t.root, 'dist'), minify: false } }));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /\.platform\/customization\/broken\.json:\/metadata: "metadata" is a predefined scope/);
  });
});

describe('platformKit (Vite plugin): dev server', () => {
  async function startServer(t: TempTemplate, logger: Logger, extra: InlineConfig = {}): Promise<{ server: ViteDevServer; base: string; hot: unknown[] }> {
    const server = await createServer(viteConfig(t, logger, { server: { host: '127.0.0.1', port: 0, strictPort: false }, ...extra }));
    cleanups.push(() => server.close());
    await server.listen();
    const base = server.resolvedUrls?.local[0];
    assert.ok(base);
    // Records what goes to the browser over the HMR channel.
    const hot: unknown[] = [];
    const channel = server.environments['client']?.hot;
    assert.ok(channel);
    const send: (...args: unknown[]) => void = channel.send.bind(channel);
    (channel as { send: (...args: unknown[]) => void }).send = (...args: unknown[]) => {
      hot.push(args[0]);
      send(...args);
    };
    return { server, base, hot };
  }

  const virtualUrl = (base: string): string => new URL(`/@id/__x00__${VIRTUAL_MODULE_ID}`, base).href;

  it('injects the customization script first in the head and serves the virtual module', async () => {
    const t = await template();
    const { logger } = recordingLogger();
    const { base } = await startServer(t, logger);

    const html = await (await fetch(base)).text();
    const proxy = /<script type="module" src="(\/index\.html\?html-proxy[^"]*)"><\/script>/.exec(html);
    assert.ok(proxy?.[1], html);
    assert.ok(html.indexOf(proxy[1]) < html.indexOf('/main.js'), 'the customization script runs before the template script');
    assert.ok(html.indexOf(proxy[1]) < html.indexOf('<title>'), 'it is prepended to the head');
    const proxyCode = await (await fetch(new URL(proxy[1].replaceAll('&amp;', '&'), base))).text();
    assert.match(proxyCode, /import "\/@id\/__x00__virtual:platform-kit\/customization"/);

    const code = await (await fetch(virtualUrl(base))).text();
    assert.match(code, /"title": "Hello from Vite"/);
    assert.match(code, /"projectId": "vite-project"/);
    assert.match(code, /import\.meta\.hot\.accept\(/);
    // The served module is the generated file, with only Vite's import rewriting on top.
    const generated = await t.read('.platform/generated/customization.js');
    assert.ok(code.includes(generated.slice(generated.indexOf('export const customization'), generated.indexOf('defineCustomization(customization);'))));
  });

  it('hot-updates the virtual module when a customization file changes, without a full reload', async () => {
    const t = await template();
    const { logger, warnings } = recordingLogger();
    const { base, hot } = await startServer(t, logger);
    // What the page does: load the HTML, its inline-script proxy, then the module (which enters the module graph).
    await (await fetch(base)).text();
    await (await fetch(new URL('/index.html?html-proxy&index=0.js', base))).text();
    await (await fetch(virtualUrl(base))).text();

    const started = performance.now();
    await t.write('card.json', {
      card: { title: 'Hot value' },
      '@@editor': [{ key: 'card', fields: [{ key: 'title', type: 'text' }] }],
    });
    const update = await waitFor(
      () => hot.find((payload): payload is { type: 'update'; updates: { path: string; acceptedPath: string }[] } => (payload as { type?: string }).type === 'update'),
      2_000,
      'an HMR update',
    );
    const elapsedMs = performance.now() - started;
    assert.ok(elapsedMs < 2_000);
    assert.equal(update.updates.length, 1);
    assert.equal(update.updates[0]?.path, `\0${VIRTUAL_MODULE_ID}`);
    assert.equal(update.updates[0]?.acceptedPath, update.updates[0]?.path, 'the module accepts itself');
    assert.equal(
      hot.some((payload) => (payload as { type?: string }).type === 'full-reload'),
      false,
    );
    assert.match(await (await fetch(`${virtualUrl(base)}?t=${Date.now()}`)).text(), /"title": "Hot value"/);
    assert.match(await t.read('.platform/generated/customization.js'), /Hot value/);
    assert.deepEqual(warnings, []);
  });

  it('logs problems as warnings and keeps serving the last good values', async () => {
    const t = await template();
    const { logger, warnings, errors } = recordingLogger();
    const { base } = await startServer(t, logger);
    await (await fetch(virtualUrl(base))).text();

    await t.write('card.json', '{ "card": { "title": ');
    await waitFor(() => (warnings.length > 0 ? true : undefined), 2_000, 'a warning');
    assert.match(warnings[0] ?? '', /card\.json: invalid JSON at line 1/);
    assert.deepEqual(errors, []);
    const response = await fetch(`${virtualUrl(base)}?t=${Date.now()}`);
    assert.equal(response.status, 200);
    assert.match(await response.text(), /"title": "Hello from Vite"/);
  });

  it('does not inject the script when inject is false', async () => {
    const t = await template();
    const { logger } = recordingLogger();
    const { server } = await startServer(t, logger, { plugins: [platformKit({ inject: false })] });
    const raw = await t.read('index.html');
    const html = await server.transformIndexHtml('/index.html', raw);
    assert.equal(html.includes('html-proxy'), false, html);
    assert.equal(html.includes(VIRTUAL_MODULE_ID), false);
  });
});
