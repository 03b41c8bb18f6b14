/**
 * End to end: the demo's templates on shard state (issue 26), in real Chromium
 * pages against the demo server. A player who joins late holds what the others
 * made without anyone handing it over: the quiz's question and scores, the
 * sketch's board. Phones are emulated (390 × 844, touch); the screenshots go
 * to test-artifacts/screenshots/ (docs/ with UPDATE_SCREENSHOTS=1).
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startRig, type Rig } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = `${ROOT}test-artifacts/screenshots/`;
const UPDATE_DOCS = process.env['UPDATE_SCREENSHOTS'] === '1';

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const buffer = await page.screenshot({ path: `${SHOTS}${name}.png` });
  assert.ok(buffer.length > 5_000, `${name}.png has content`);
  if (UPDATE_DOCS) await page.screenshot({ path: `${ROOT}docs/${name}.png` });
}

/** The quiz's scoreboard as the page draws it: `name=points` per player. */
const scoresOf = (page: Page): Promise<string> => page.evaluate(() => document.body.dataset['scores'] ?? '');
const nameOf = async (page: Page): Promise<string> => (await page.locator('.status').textContent())!.replace(/^you are /, '').replace(/ · room .*$/, '');

describe('the demo on shard state: late joiners see the score and the board', { timeout: 180_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig?.close();
  });

  it("quiz on two phones: answers count on both; a third player who joins late sees the question and every score; a reload keeps a player's score", async () => {
    const url = `${rig.demo.templateOrigin}/templates/quiz/`;
    const { page: alice } = await rig.page({ phone: true });
    const { page: bob } = await rig.page({ phone: true });
    await Promise.all([alice.goto(url), bob.goto(url)]);
    for (const page of [alice, bob])
      await page.waitForFunction(() => document.body.dataset['joined'] === 'true' && document.querySelectorAll('.scores li').length === 2, undefined, { timeout: 20_000 });
    assert.equal(await alice.evaluate(() => document.body.dataset['shard']), await bob.evaluate(() => document.body.dataset['shard']), 'same room');
    await screenshot(alice, 'quiz-phone-start');
    const [aliceName, bobName] = [await nameOf(alice), await nameOf(bob)];

    // Question 1 (Jupiter is right): Alice answers right, Bob wrong.
    await alice.locator('.choices button[data-choice="1"]').click();
    await bob.locator('.choices button[data-choice="0"]').click();
    for (const page of [alice, bob]) {
      await page.waitForFunction((name) => document.body.dataset['scores']!.includes(`${name}=1`), aliceName, { timeout: 15_000 });
      await page.waitForFunction(() => document.querySelector('.choices .right') !== null && !(document.querySelector('.next') as HTMLElement).hidden, undefined, {
        timeout: 15_000,
      });
    }
    assert.ok((await scoresOf(bob)).includes(`${bobName}=0`), `Bob's score: ${await scoresOf(bob)}`);
    await screenshot(bob, 'quiz-phone-answered');

    // Bob moves everyone to question 2 (8 legs): both answer right.
    await bob.locator('.next').click();
    for (const page of [alice, bob]) await page.waitForFunction(() => document.body.dataset['question'] === '1', undefined, { timeout: 15_000 });
    await alice.locator('.choices button[data-choice="1"]').click();
    await bob.locator('.choices button[data-choice="1"]').click();
    for (const page of [alice, bob])
      await page.waitForFunction((names) => document.body.dataset['scores'] === `${names[0]}=2,${names[1]}=1`, [aliceName, bobName], { timeout: 15_000 });

    // Carol joins late: with nobody asked, she is on question 2 with both scores, at once.
    const { page: carol } = await rig.page({ phone: true });
    await carol.goto(url);
    await carol.waitForFunction(() => document.body.dataset['joined'] === 'true', undefined, { timeout: 20_000 });
    // Held when connect() resolved: what the page drew at that moment already has the scores.
    assert.equal(await carol.evaluate(() => document.body.dataset['questionAtJoin']), '1', 'the late joiner is on the current question');
    const carolScores = await carol.evaluate(() => document.body.dataset['scoresAtJoin'] ?? '');
    assert.ok(carolScores.startsWith(`${aliceName}=2,${bobName}=1`), `the late joiner sees every score: ${carolScores}`);
    await screenshot(carol, 'quiz-phone-late-joiner');

    // Bob reloads: the same player (the tab keeps its id), the same score, the same name.
    await bob.reload();
    await bob.waitForFunction(() => document.body.dataset['joined'] === 'true', undefined, { timeout: 20_000 });
    assert.equal(await nameOf(bob), bobName, 'the returning player keeps its name');
    await alice.waitForFunction((name) => document.body.dataset['scores']!.includes(`${name}=1`) && document.querySelectorAll('.scores li').length === 3, bobName, {
      timeout: 15_000,
    });
    await Promise.all([alice.close(), bob.close(), carol.close()]);
  });

  it('quiz on a phone: the question, the choices and the scores fit the screen (no sideways scroll, buttons a thumb wide)', async () => {
    const { page } = await rig.page({ phone: true });
    await page.goto(`${rig.demo.templateOrigin}/templates/quiz/`);
    await page.waitForFunction(() => document.body.dataset['joined'] === 'true', undefined, { timeout: 20_000 });
    const layout = await page.evaluate(() => ({
      fits: document.documentElement.scrollWidth <= innerWidth,
      buttons: [...document.querySelectorAll('.choices button')]
        .map((button) => button.getBoundingClientRect())
        .map((box) => ({ height: box.height, width: box.width, right: box.right })),
    }));
    assert.ok(layout.fits, 'no sideways scroll');
    assert.equal(layout.buttons.length, 4);
    for (const box of layout.buttons) assert.ok(box.height >= 44 && box.width >= 120 && box.right <= 390, `a choice a thumb can hit: ${JSON.stringify(box)}`);
    await page.close();
  });

  it('sketch: a late joiner holds the whole board when connect() resolves, with nobody asked; a clear reaches everyone', async () => {
    const url = `${rig.demo.templateOrigin}/templates/sketch/`;
    const { page: alice } = await rig.page({ width: 800, height: 500 });
    await alice.goto(url);
    await alice.waitForFunction(() => document.body.dataset['shard'] !== undefined, undefined, { timeout: 20_000 });
    const canvas = (await alice.locator('canvas').boundingBox())!;
    for (let stroke = 0; stroke < 3; stroke++) {
      await alice.mouse.move(canvas.x + 60, canvas.y + 60 + stroke * 60);
      await alice.mouse.down();
      for (let i = 1; i <= 10; i++) await alice.mouse.move(canvas.x + 60 + i * 30, canvas.y + 60 + stroke * 60 + Math.sin(i) * 20);
      await alice.mouse.up();
    }
    await alice.waitForFunction(() => Number(document.body.dataset['strokes'] ?? 0) >= 3);
    const drawn = Number(await alice.evaluate(() => document.body.dataset['strokes']));

    // Bob joins after the drawing: the board is his when connect() resolves (the status line says so).
    const { page: bob } = await rig.page({ width: 800, height: 500 });
    await bob.goto(url);
    await bob.waitForFunction(() => /^you are /.test(document.querySelector('.status')!.textContent ?? ''), undefined, { timeout: 20_000 });
    assert.equal(await bob.evaluate(() => document.body.dataset['shard']), await alice.evaluate(() => document.body.dataset['shard']), 'same shard');
    assert.equal(Number(await bob.evaluate(() => document.body.dataset['strokesAtJoin'])), drawn, 'the late joiner holds every stroke at connect()');
    // Its canvas shows them: some pixels are not the paper.
    const inked = await bob.evaluate(() => {
      const board = document.querySelector('canvas')!;
      const data = board.getContext('2d')!.getImageData(0, 0, board.width, board.height).data;
      let count = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) count++;
      return count;
    });
    assert.ok(inked > 100, `the late joiner's board is drawn (${inked} inked pixels)`);
    await screenshot(bob, 'sketch-late-joiner');

    // A clear is a change of the state: Alice's board empties too.
    await bob.locator('.clear').click();
    await alice.waitForFunction(() => document.body.dataset['strokes'] === '0', undefined, { timeout: 15_000 });
    await Promise.all([alice.close(), bob.close()]);
  });
});
