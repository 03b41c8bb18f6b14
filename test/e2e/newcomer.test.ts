/**
 * A newcomer's first hour with the demo (issue 17), on a phone (390 × 844,
 * touch, device scale 3) and on a desktop: what `npm start` serves must say
 * what is wrong instead of opening something else, and run as a deployed host
 * would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startRig, type Rig } from './support.js';

describe('the demo as a newcomer meets it', { timeout: 120_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig?.close();
  });

  async function open(path: string, phone: boolean): Promise<{ page: Page; console: string[] }> {
    const { page } = await rig.page(phone ? { phone: true } : { width: 1200, height: 800 });
    const lines: string[] = [];
    page.on('console', (message) => lines.push(message.text()));
    await page.goto(`${rig.demo.url}${path}`);
    return { page, console: lines };
  }

  it("runs Lit's production build, and the plain host loads no Lit at all", async () => {
    const feed = await open('/', false);
    await feed.page.waitForSelector('platform-feed');
    const editor = await open('/editor.html?template=greeting', false);
    await editor.page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 30_000 });
    for (const { console: lines } of [feed, editor]) assert.ok(!lines.some((line) => line.includes('Lit is in dev mode')), lines.join('\n'));
    const plain = await open('/plain.html', false);
    await plain.page.waitForFunction(() => document.querySelector('#status')?.textContent !== 'linking…', undefined, { timeout: 30_000 });
    const litModules = await plain.page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name).filter((name) => /\/(lit|lit-html|lit-element|@lit)[/_.]/.test(name)));
    assert.deepEqual(litModules, []);
    // The check itself can see Lit: the editor page loads it.
    const editorModules = await editor.page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name).filter((name) => /\/(lit|lit-html|lit-element|@lit)[/_.]/.test(name)));
    assert.ok(editorModules.length > 0);
  });

  for (const phone of [true, false]) {
    const device = phone ? 'phone' : 'desktop';

    it(`${device}: a feed link to a missing item says so and starts from the top`, async () => {
      const { page } = await open('/?item=nope', phone);
      const notice = await page.waitForSelector('.link-notice[role="alert"]', { timeout: 15_000 });
      assert.match((await notice.textContent()) ?? '', /no item "nope"/);
      await page.waitForFunction(() => (document.body.dataset['current'] ?? '') !== '', undefined, { timeout: 30_000 });
      const box = await notice.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= (phone ? 390 : 1200), 'the notice fits the screen');
    });

    it(`${device}: the editor names a missing template or remix instead of opening another`, async () => {
      for (const [path, says] of [
        ['/editor.html?template=nope', /no template "nope"/],
        ['/editor.html?template=greeting&from=missing', /no published remix "missing"/],
      ] as const) {
        const { page } = await open(path, phone);
        const notice = await page.waitForSelector('.notice[role="alert"]', { timeout: 15_000 });
        assert.match((await notice.textContent()) ?? '', says);
        assert.equal(await page.locator('platform-editor').count(), 0, `${path} opens no editor`);
        assert.ok((await notice.$$('a')).length > 0, 'it links to what can be opened');
      }
    });
  }
});
