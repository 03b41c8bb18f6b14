/**
 * The production build of the demo (`npm run build`, served by `npm run start:prod`): built here
 * from the sources into a temporary folder, then served statically by the same demo server. The
 * feed shows a template from the other origin, which plays; the editor opens with its controls;
 * the vault's backend and the demo API answer as under the dev server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildDemo } from '../../demo/build.js';
import { startRig, templateFrame, type Rig } from './support.js';

describe('the demo, production build', { timeout: 120_000 }, () => {
  let rig: Rig;
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'platform-kit-e2e-build-'));
    rig = await startRig({ distDir: await buildDemo({ outDir: join(scratch, 'dist'), logLevel: 'error' }) });
  });
  after(async () => {
    await rig?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('is bundled: no TypeScript or Vite client is served, hashed assets are immutable', async () => {
    assert.equal(rig.demo.mode, 'prod');
    const files = await readdir(join(scratch, 'dist', 'assets'));
    assert.ok(files.some((file) => /\.js$/.test(file)));
    const page = await fetch(`${rig.demo.url}/`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.doesNotMatch(html, /\.ts"|@vite\/client/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, 'the page loads a bundled script');
    const script = await fetch(`${rig.demo.templateOrigin}${asset}`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${rig.demo.url}/assets/..%2f..%2fpackage.json`)).status, 404);
    assert.equal((await fetch(`${rig.demo.url}/demo-api/feed`)).status, 200);
  });

  it('the feed shows and plays a template from the other origin; the editor opens with its controls', async () => {
    const { page } = await rig.page({ phone: true });
    await page.goto(`${rig.demo.url}/`);
    const greeting = await templateFrame(page, `${rig.demo.templateOrigin}/templates/greeting/`);
    await greeting.waitForFunction(() => document.documentElement.dataset['playing'] === 'true', undefined, { timeout: 15_000 });
    assert.notEqual(await greeting.locator('h1').textContent(), '');
    // Its picture, named only in its values, is in the build too.
    await greeting.waitForFunction(() => document.querySelector<HTMLImageElement>('.photo')?.complete === true, undefined, { timeout: 15_000 });
    assert.ok((await greeting.evaluate(() => document.querySelector<HTMLImageElement>('.photo')?.naturalWidth ?? 0)) > 0);

    await page.goto(`${rig.demo.url}/editor.html?template=vault`);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 15_000 });
    assert.ok((await page.locator('platform-editor').locator('input, textarea').count()) > 0, 'the panel has controls');
    // The vault's backend behind the built template: it resolves the keystore secret.
    const vault = await templateFrame(page, '/templates/vault/');
    const answer = await vault.evaluate(async () => (await fetch('/templates/vault/api/open')).status);
    assert.equal(answer, 200);
  });
});
