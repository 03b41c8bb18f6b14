/**
 * The feed's own Remix and Share (issue 17) and the viewer's identity in the
 * demo: on a phone the buttons stand over the template's corner, which the
 * templates keep their text clear of (FeedSdk's --platform-feed-inset-*); on
 * a desktop they stand in a rail beside the template, never over its iframe.
 * A template in the feed gets the viewer's token from the page's backend
 * (GET /demo-api/identity-token) and its own backend resolves it.
 *
 * Screenshots go to test-artifacts/screenshots/ (and docs/ with UPDATE_SCREENSHOTS=1).
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { startRig, templateFrame, type Rig } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = `${ROOT}test-artifacts/screenshots/`;
const UPDATE_DOCS = process.env['UPDATE_SCREENSHOTS'] === '1';

/** The screenshots the README shows (the others stay in test-artifacts). */
const IN_README = new Set(['feed-phone', 'feed-phone-vault']);

/** A screenshot at CSS scale (a phone's device scale 3 would make it nine times larger). */
async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const buffer = await page.screenshot({ path: `${SHOTS}${name}.png`, scale: 'css' });
  assert.ok(buffer.length > 5_000 && buffer.length < 400_000, `${name}.png is ${buffer.length} bytes`);
  if (UPDATE_DOCS && IN_README.has(name)) await page.screenshot({ path: `${ROOT}docs/${name}.png`, scale: 'css' });
}

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly what?: string;
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

/** What each template must never have covered: its text (line by line) and its controls (whole). */
const KEY_PARTS: { readonly [template: string]: { readonly text: readonly string[]; readonly boxes: readonly string[] } } = {
  greeting: { text: ['h1', 'p'], boxes: ['.play:not([hidden])'] },
  sketch: { text: ['header h1', '.prompt', 'aside h2', '.hint', '.shard dt', '.shard dd', '.players button'], boxes: ['.clear'] },
  quiz: { text: ['h1', '.tagline', '.progress', '.question', '.answered', '.scores li'], boxes: ['.choices button', '.next:not([hidden])'] },
  radio: { text: ['h1', '.tagline', '.elapsed', '.duration', '.note'], boxes: ['.scrub', '.toggle'] },
  vault: { text: ['h1', '.viewer', 'dt', 'dd', '.note'], boxes: ['.open', '.treasure'] },
};

/** The template's key parts in page coordinates: each text line's box (a Range's), each control's box. */
async function keyParts(frame: Frame, template: string): Promise<Box[]> {
  const parts = KEY_PARTS[template]!;
  // No helper functions inside: tsx names them with a __name the page does not have.
  const inFrame = await frame.evaluate(({ text, boxes }) => {
    const found: { x: number; y: number; width: number; height: number; what: string }[] = [];
    for (const [selector, whole] of [...text.map((one) => [one, false] as const), ...boxes.map((one) => [one, true] as const)]) {
      for (const element of document.querySelectorAll(selector)) {
        const range = document.createRange();
        range.selectNodeContents(element);
        const rects = whole ? [element.getBoundingClientRect()] : [...range.getClientRects()];
        for (const rect of rects) {
          if (rect.width > 0 && rect.height > 0)
            found.push({ x: rect.left, y: rect.top, width: rect.width, height: rect.height, what: `${selector} "${(element.textContent ?? '').trim().slice(0, 30)}"` });
        }
      }
    }
    return found;
  }, parts);
  const frameBox = (await (await frame.frameElement()).boundingBox())!;
  return inFrame.map((box) => ({ ...box, x: box.x + frameBox.x, y: box.y + frameBox.y }));
}

/** The feed's action buttons, in page coordinates. */
async function actionBoxes(page: Page): Promise<Box[]> {
  const buttons = page.locator('platform-feed .pk-feed-action');
  assert.equal(await buttons.count(), 2, 'Remix and Share');
  const boxes: Box[] = [];
  for (let i = 0; i < 2; i++) boxes.push({ ...(await buttons.nth(i).boundingBox())!, what: (await buttons.nth(i).textContent()) ?? '' });
  return boxes;
}

/** Opens the feed on `template` and waits until it plays (and, on a phone, heard the feed's insets). */
async function openOn(page: Page, url: string, template: string, expectInsets: boolean): Promise<Frame> {
  await page.goto(`${url}/?item=${template}`);
  await page.waitForFunction((wanted) => document.body.dataset['current'] === wanted, template, { timeout: 15_000 });
  const frame = await templateFrame(page, `/templates/${template}/`);
  await frame.waitForFunction(() => document.documentElement.dataset['playing'] === 'true', undefined, { timeout: 15_000 });
  const told = await frame.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--platform-feed-inset-right'));
  if (expectInsets)
    await frame.waitForFunction(() => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--platform-feed-inset-right')) > 0, undefined, { timeout: 10_000 });
  else assert.equal(told, '', `${template} is told nothing beside a rail`);
  // The snap and the template's own layout after the insets: two frames and a little.
  await page.waitForTimeout(400);
  return frame;
}

/** Opens the vault and waits for its backend's answer. */
async function openVault(frame: Frame): Promise<void> {
  await frame.locator('.open').click();
  await frame.waitForFunction(() => document.body.dataset['state'] === 'open', undefined, { timeout: 15_000 });
}

describe("the feed's Remix and Share in the demo, and the viewer's identity", { timeout: 180_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig?.close();
  });

  it('on a phone the actions stand over a corner every template keeps its text and controls clear of', async () => {
    const { page } = await rig.page({ phone: true });
    for (const template of ['greeting', 'sketch', 'quiz', 'radio', 'vault']) {
      const frame = await openOn(page, rig.demo.url, template, true);
      if (template === 'vault') await openVault(frame);
      if (template === 'sketch') await frame.waitForFunction(() => document.querySelectorAll('.players button').length > 0, undefined, { timeout: 15_000 });
      if (template === 'quiz') await frame.waitForFunction(() => document.querySelectorAll('.scores li').length > 0, undefined, { timeout: 15_000 });
      const parts = await keyParts(frame, template);
      assert.ok(parts.length >= 4, `${template}: ${parts.length} key parts measured`);
      for (const action of await actionBoxes(page)) {
        // Thumb-sized, and over the template's own corner (not beside it: a phone has no room for a rail).
        assert.ok(action.width >= 44 && action.height >= 44, `${action.what} is ${action.width}×${action.height}`);
        for (const part of parts) assert.ok(!overlaps(action, part), `${template}: ${action.what} covers ${part.what} (${JSON.stringify(action)} / ${JSON.stringify(part)})`);
      }
      await screenshot(page, template === 'greeting' ? 'feed-phone' : `feed-phone-${template}`);
    }
  });

  it('on a desktop the actions stand in a rail beside the template, never over its iframe; Remix opens the editor', async () => {
    const { page } = await rig.page({ width: 1200, height: 800 });
    for (const template of ['greeting', 'sketch', 'quiz', 'radio', 'vault']) {
      const frame = await openOn(page, rig.demo.url, template, false);
      const iframe = (await (await frame.frameElement()).boundingBox())!;
      assert.ok(iframe.width >= 440, `${template}'s iframe keeps ${iframe.width} px`);
      for (const action of await actionBoxes(page)) {
        assert.ok(!overlaps(action, iframe), `${template}: ${action.what} is over the iframe`);
        assert.ok(action.x >= iframe.x + iframe.width - 0.5, `${action.what} stands right of the template`);
      }
      if (template === 'greeting') await screenshot(page, 'feed-desktop');
    }
    // Remix on the current item (the vault) opens the editor for it.
    await page.locator('platform-feed .pk-feed-action[data-action="remix"]').click();
    await page.waitForURL(/\/editor\.html\?template=vault/, { timeout: 15_000 });
  });

  it("a template in the feed gets the viewer's token from the page's backend, and its own backend resolves it", async () => {
    const { context, page } = await rig.page({ phone: true });
    const frame = await openOn(page, rig.demo.url, 'vault', true);
    await openVault(frame);
    const viewer = await frame.locator('.viewer').textContent();
    assert.match(viewer ?? '', /^opened by Guest \d{4}$/);
    // The same browser (its cookie) is the same guest: the name the page's backend vouched for.
    const token = (await (await context.request.get(`${rig.demo.url}/demo-api/identity-token`)).json()) as {
      userToken: string;
      presumedRole: string;
      presumedAttributes: { username: string };
      expiresAt: number;
    };
    assert.equal(viewer, `opened by ${token.presumedAttributes.username}`);
    assert.equal(token.presumedRole, 'user');
    assert.ok(token.expiresAt > Date.now(), 'the token has not expired');
    // A token the platform did not issue is refused by the vault's backend; without one, nobody is named.
    const forged = await fetch(`${rig.demo.templateOrigin}/templates/vault/api/open`, { headers: { 'x-user-token': `${token.userToken.slice(0, -4)}AAAA` } });
    assert.equal(forged.status, 401);
    const anonymous = (await fetch(`${rig.demo.templateOrigin}/templates/vault/api/open`).then((response) => response.json())) as { viewer: unknown };
    assert.equal(anonymous.viewer, null);
  });
});
