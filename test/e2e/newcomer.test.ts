/**
 * A newcomer's first hour with the demo (issue 17), on a phone (390 × 844,
 * touch, device scale 3) and on a desktop: what `npm start` serves must say
 * what is wrong instead of opening something else, and run as a deployed host
 * would.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { drag, startRig, templateFrame, type Rig } from './support.js';

describe('the demo as a newcomer meets it', { timeout: 180_000 }, () => {
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
    const litModules = await plain.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => /\/(lit|lit-html|lit-element|@lit)[/_.]/.test(name)),
    );
    assert.deepEqual(litModules, []);
    // The check itself can see Lit: the editor page loads it.
    const editorModules = await editor.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => /\/(lit|lit-html|lit-element|@lit)[/_.]/.test(name)),
    );
    assert.ok(editorModules.length > 0);
  });

  it("the editor's Preview shows what the backend will see: the vault opens with the name and secret being edited", async () => {
    const { page } = await open('/editor.html?template=vault', false);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 30_000 });
    const vault = await templateFrame(page, '/templates/vault/');
    // Before it is opened the vault shows no result: no broken image, no empty rows.
    assert.equal(await vault.locator('.result').isVisible(), false);
    assert.equal(await vault.locator('.treasure').isVisible(), false);
    await page.evaluate(async () => {
      const editor = document.querySelector('platform-editor') as unknown as { session: { setValue(path: string[], value: unknown): void }; setRemixing(on: boolean): void };
      const stored = (await (
        await fetch('/demo-api/secrets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: 'edited secret' }) })
      ).json()) as { keyPath: string };
      editor.session.setValue(['vault', 'label'], 'Renamed in the editor');
      editor.session.setValue(['vault', 'apiKey'], stored.keyPath);
      editor.setRemixing(false);
    });
    await vault.waitForFunction(() => document.querySelector('h1')?.textContent === 'Renamed in the editor');
    await vault.click('.open');
    await vault.waitForFunction(() => document.body.dataset['state'] === 'open', undefined, { timeout: 15_000 });
    assert.match((await vault.textContent('.opened')) ?? '', /^Renamed in the editor/);
    assert.equal(await vault.getAttribute('.secret', 'data-sha256'), createHash('sha256').update('edited secret').digest('hex').slice(0, 16));
  });

  it("phone: the editor's header shows the whole title (two short lines, no ellipsis), and the sketch's own player row reads at full contrast", async () => {
    const { page } = await open('/editor.html?template=sketch', true);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 30_000 });
    const status = await page.evaluate(() => {
      const element = document.querySelector<HTMLElement>('.top .status')!;
      return { text: element.textContent, cut: element.scrollHeight > element.clientHeight + 1 || element.scrollWidth > element.clientWidth + 1 };
    });
    assert.equal(status.text, 'Remixing Sketch party');
    assert.equal(status.cut, false, 'the title is whole');
    const sketch = await templateFrame(page, '/templates/sketch/');
    await sketch.waitForSelector('.players button:disabled');
    // WCAG's contrast ratio of the row's text on its background: 4.5 or more reads; the old grey on lavender was about 2.
    const colors = await sketch.evaluate(() => {
      const style = getComputedStyle(document.querySelector<HTMLElement>('.players button:disabled')!);
      return [style.color, style.backgroundColor];
    });
    const rgb = (css: string): number[] => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (channels: number[]): number => {
      const [r = 0, g = 0, b = 0] = channels.map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [light = 0, dark = 0] = colors.map((color) => luminance(rgb(color))).sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    assert.ok(ratio >= 4.5, `contrast ${ratio.toFixed(2)}`);
  });

  it("the editor's header drops an error once a later change is accepted, and in Preview", async () => {
    const { page } = await open('/editor.html?template=greeting', false);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 30_000 });
    const status = page.locator('.top .status');
    const fail = (): Promise<void> =>
      page.evaluate(() => {
        const error = Object.assign(new Error('platform-kit: a color is #rrggbb'), { code: 'INVALID_VALUE' });
        document.querySelector('platform-editor')!.dispatchEvent(new CustomEvent('platform-editor-error', { detail: { error, path: ['card', 'background'] }, bubbles: true }));
      });
    await fail();
    assert.equal(await status.textContent(), 'a color is #rrggbb');
    await page.evaluate(() =>
      (document.querySelector('platform-editor') as unknown as { session: { setValue(path: string[], value: unknown): void } }).session.setValue(['card', 'background'], '#336699'),
    );
    await page.waitForFunction(() => !document.querySelector('.top .status')?.hasAttribute('data-error'));
    assert.match((await status.textContent()) ?? '', /^Remixing/);
    await fail();
    await page.evaluate(() => (document.querySelector('platform-editor') as unknown as { setRemixing(on: boolean): void }).setRemixing(false));
    await page.waitForFunction(() => !document.querySelector('.top .status')?.hasAttribute('data-error'));
    assert.match((await status.textContent()) ?? '', /^Preview/);
  });

  it('phone: a stroke drawn on Sketch party in the feed draws, and the feed stays on it', async () => {
    // Not the first item: a stroke down on the first could not swipe anywhere.
    const { page } = await open('/?item=greeting', true);
    await page.waitForFunction(() => document.body.dataset['current'] === 'greeting', undefined, { timeout: 30_000 });
    await page.evaluate(() => (document.querySelector('platform-feed') as unknown as { next(): void }).next());
    await page.waitForFunction(() => document.body.dataset['current'] === 'sketch', undefined, { timeout: 30_000 });
    const sketch = await templateFrame(page, '/templates/sketch/');
    await sketch.waitForFunction(() => document.documentElement.dataset['playing'] === 'true', undefined, { timeout: 15_000 });
    const board = (await sketch.locator('canvas').boundingBox())!;
    // Downward, the way a swipe to the previous item goes.
    const x = board.x + board.width / 2;
    await drag(page, { x, y: board.y + 30 }, { x, y: Math.min(board.y + board.height - 10, 800) }, 14);
    await page.waitForTimeout(1_000);
    assert.equal(await page.evaluate(() => document.body.dataset['current']), 'sketch', 'the feed did not move');
    assert.ok(Number(await sketch.evaluate(() => document.body.dataset['strokes'] ?? '0')) >= 1, 'the stroke was drawn');
    // The feed is where it settled: the item fills the viewport, not cut off.
    const frameBox = (await page.locator('platform-feed iframe[src*="/templates/sketch/"]').first().boundingBox())!;
    const feedBox = (await page.locator('platform-feed').boundingBox())!;
    assert.ok(Math.abs(frameBox.y - feedBox.y) < 2, `the item sits at the top of the feed (${frameBox.y} against ${feedBox.y})`);
  });

  it("phone: every page's header keeps to one line", async () => {
    for (const path of ['/', '/editor.html?template=greeting', '/dashboard.html']) {
      const { page } = await open(path, true);
      await page.waitForSelector('.top nav');
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('.top .brand, .top nav a')].map(
          (element) => `${element.textContent}: ${element.getClientRects().length} line(s), ${Math.round(element.getBoundingClientRect().height)} px`,
        ),
      );
      for (const line of lines) assert.match(line, /: 1 line\(s\), (1\d|2\d) px$/, `${path}: ${lines.join('; ')}`);
      await page.context().close();
    }
  });

  for (const phone of [true, false]) {
    const device = phone ? 'phone' : 'desktop';

    it(`${device}: the plain host links back to the feed, with a thumb-sized target on a phone`, async () => {
      const { page } = await open('/plain.html', phone);
      const back = page.locator('header a.brand[href="/"]');
      await back.waitFor({ state: 'visible', timeout: 15_000 });
      const box = (await back.boundingBox())!;
      if (phone) assert.ok(box.width >= 44 && box.height >= 44, `a 44 px target: ${JSON.stringify(box)}`);
      assert.equal(await back.getAttribute('title'), 'Back to the feed');
      await back.click();
      await page.waitForSelector('platform-feed', { timeout: 15_000 });
      await page.context().close();
    });

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

    it(`${device}: in each template's editor no part's outline crosses another's text, and every control stays inside the editor`, async () => {
      const { page } = await open('/editor.html?template=greeting', phone);
      for (const template of ['greeting', 'sketch', 'quiz', 'radio', 'vault']) {
        if (template !== 'greeting') await page.goto(`${rig.demo.url}/editor.html?template=${template}`);
        await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 30_000 });
        const frame = await templateFrame(page, `/templates/${template}/`);
        await frame.waitForFunction(() => document.querySelector('.remixing [data-path]') !== null, undefined, { timeout: 15_000 });
        // Each editable part's outline box (its box grown by outline-offset + outline-width): no two intersect.
        const crossed = await frame.evaluate(() => {
          const boxes = [...document.querySelectorAll<HTMLElement>('[data-path]')].flatMap((element) => {
            const style = getComputedStyle(element);
            const rect = element.getBoundingClientRect();
            if (rect.width === 0 || style.outlineStyle === 'none') return [];
            const grow = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
            return [{ path: element.dataset['path'], left: rect.left - grow, top: rect.top - grow, right: rect.right + grow, bottom: rect.bottom + grow }];
          });
          return boxes.flatMap((a, i) =>
            boxes
              .slice(i + 1)
              .filter((b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5)
              .map((b) => `${a.path} × ${b.path}`),
          );
        });
        assert.deepEqual(crossed, [], `${template}: outlines that cross`);
        // The panel open (on a phone: the Customize sheet), nothing of it reaches past the editor's edges.
        await page.evaluate(() => (document.querySelector('platform-editor') as unknown as { openPanel(): void }).openPanel());
        await page.waitForTimeout(500);
        const outside = await page.evaluate(() => {
          const editor = document.querySelector('platform-editor')!;
          const { left, right } = editor.getBoundingClientRect();
          const found: string[] = [];
          // Every element of its shadow tree and of its controls' (no named function: tsx would wrap it in __name).
          const roots: ParentNode[] = [editor.shadowRoot!];
          for (let root = roots.pop(); root; root = roots.pop()) {
            for (const element of root.querySelectorAll('*')) {
              const rect = element.getBoundingClientRect();
              if (rect.width > 0 && (rect.left < left - 0.5 || rect.right > right + 0.5))
                found.push(`${element.tagName.toLowerCase()}.${element.getAttribute('class') ?? ''} ${rect.left}–${rect.right}`);
              if (element.shadowRoot) roots.push(element.shadowRoot);
            }
          }
          return found;
        });
        assert.deepEqual(outside, [], `${template}: parts of the editor past its edges`);
      }
      await page.context().close();
    });
  }
});
