import { expect } from '@esm-bundle/chai';
import { executeServerCommand, resetMouse, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import { controlOf, deepFocus, inside, mountEditor, templateSaw, typeInto, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

const VIEWPORT = { width: 900, height: 640 };

async function opened(harness: EditorHarness, path: readonly string[]): Promise<DOMRect> {
  await waitUntil(() => JSON.stringify(harness.editor.openControlPath) === JSON.stringify(path) && harness.editor.overlayPlacement !== null, `the overlay of ${path.join('.')}`);
  const overlay = harness.editor.shadowRoot?.querySelector('.overlay') as HTMLElement;
  await waitUntil(() => overlay.style.visibility === 'visible', 'the overlay to be placed');
  // Resize events and ResizeObserver callbacks (which re-place it) run in the next rendering steps.
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return overlay.getBoundingClientRect();
}

function iframeContent(harness: EditorHarness): { left: number; top: number; width: number; height: number } {
  const iframe = harness.editor.frame?.iframe as HTMLIFrameElement;
  const rect = iframe.getBoundingClientRect();
  // Whole pixels: the mouse commands take integers, and the editor fills the viewport.
  return { left: Math.round(rect.left + iframe.clientLeft), top: Math.round(rect.top + iframe.clientTop), width: iframe.clientWidth, height: iframe.clientHeight };
}

describe('<platform-editor> control overlay', () => {
  let harness: EditorHarness;
  before(() => setViewport(VIEWPORT));
  afterEach(async () => {
    harness?.dispose();
    await resetMouse();
  });

  it('onPresentControl opens the control at the template position mapped to the page; active path follows; escape closes', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    await probe.command('presentControl', ['content', 'title'], { position: { x: 40, y: 60 } });
    const rect = await opened(harness, ['content', 'title']);
    const frame = iframeContent(harness);
    // Below and to the right of the point, 8 px away: template (40, 60) is page (frame.left + 40, frame.top + 60).
    expect(rect.left).to.be.closeTo(frame.left + 40 + 8, 1);
    expect(rect.top).to.be.closeTo(frame.top + 60 + 8, 1);
    await probe.waitFor('activePath');
    expect(probe.of('activePath')[0]).to.deep.equal({ path: ['content', 'title'] });
    // The control has the focus, so the keyboard edits right away.
    expect((deepFocus() as HTMLInputElement).id).to.equal('input');
    expect(editor.shadowRoot?.querySelector('.overlay')?.getAttribute('role')).to.equal('dialog');
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'title'], 'overlay'), 'input'), 'From overlay');
    await templateSaw(probe, ['content', 'title'], 'From overlay');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => editor.openControlPath === null, 'the overlay to close');
    await probe.waitFor('activePath', 2);
    expect(probe.of('activePath')[1]).to.deep.equal({ path: null });
  });

  for (const [edge, position, flips] of [
    ['top left', { x: 0, y: 0 }, { x: false, y: false }],
    ['right', { x: 100_000, y: 100 }, { x: true, y: false }],
    ['bottom', { x: 100, y: 100_000 }, { x: false, y: true }],
    ['bottom right', { x: 100_000, y: 100_000 }, { x: true, y: true }],
    ['left, mid height', { x: -50, y: 300 }, { x: false, y: false }],
  ] as const) {
    it(`stays on screen at the ${edge} edge`, async () => {
      harness = await mountEditor({ type: 'instant' });
      await harness.probe.command('presentControl', ['content', 'tags'], { position });
      const rect = await opened(harness, ['content', 'tags']);
      expect(rect.left, 'left').to.be.at.least(0);
      expect(rect.top, 'top').to.be.at.least(0);
      expect(rect.right, 'right').to.be.at.most(VIEWPORT.width);
      expect(rect.bottom, 'bottom').to.be.at.most(VIEWPORT.height);
      const placement = harness.editor.overlayPlacement;
      expect({ x: placement?.flippedX, y: placement?.flippedY }).to.deep.equal(flips);
      // Flipped means the overlay ends next to the point instead of starting there.
      const frame = iframeContent(harness);
      const anchorX = frame.left + Math.min(Math.max(position.x, 0), frame.width);
      const anchorY = frame.top + Math.min(Math.max(position.y, 0), frame.height);
      if (flips.x) expect(rect.right).to.be.closeTo(anchorX - 8, 1);
      if (flips.y) expect(rect.bottom).to.be.closeTo(anchorY - 8, 1);
    });
  }

  it('clamps inside the viewport when neither side has room (a small window)', async () => {
    await setViewport({ width: 320, height: 300 });
    try {
      // The page must have taken the new size before the editor lays itself out.
      await waitUntil(() => document.documentElement.clientWidth === 320 && document.documentElement.clientHeight === 300, 'the small viewport');
      // The floating overlay's own clamping: an editor this narrow is compact by default (a sheet, editor-phone.test.ts).
      harness = await mountEditor({ type: 'instant', layout: 'wide' });
      await harness.probe.command('presentControl', ['content', 'author'], { position: { x: 160, y: 80 } });
      const rect = await opened(harness, ['content', 'author']);
      expect(harness.editor.overlayPlacement?.clampedY).to.equal(true);
      expect(rect.left).to.be.at.least(0);
      expect(rect.top).to.be.at.least(0);
      expect(rect.right).to.be.at.most(320);
    } finally {
      await setViewport(VIEWPORT);
    }
  });

  it('without a position it opens where the user clicked in the template; a click outside closes it', async () => {
    harness = await mountEditor({ type: 'instant' });
    const { editor, probe } = harness;
    const button = (await probe.command('rect', '#open-title')).value as { x: number; y: number; width: number; height: number };
    const frame = iframeContent(harness);
    const click = { x: Math.round(button.x + 20), y: Math.round(button.y + button.height / 2) };
    await sendMouse({ type: 'click', position: [frame.left + click.x, frame.top + click.y] });
    const rect = await opened(harness, ['content', 'title']);
    expect(rect.left).to.be.closeTo(frame.left + click.x + 8, 1);
    expect(rect.top).to.be.closeTo(frame.top + click.y + 8, 1);

    // A click on the page outside the overlay closes it.
    const bar = editor.shadowRoot?.querySelector('.status') as HTMLElement;
    const barRect = bar.getBoundingClientRect();
    await sendMouse({ type: 'click', position: [Math.round(barRect.left + 5), Math.round(barRect.top + barRect.height / 2)] });
    await waitUntil(() => editor.openControlPath === null, 'a click outside to close it');

    // So does a click inside the template elsewhere.
    await probe.command('presentControl', ['style', 'accent'], { position: { x: 300, y: 200 } });
    await opened(harness, ['style', 'accent']);
    await sendMouse({ type: 'click', position: [frame.left + 5, frame.top + frame.height - 5] });
    await waitUntil(() => editor.openControlPath === null, 'a click in the template to close it');
    await waitUntil(() => probe.of('activePath').at(-1)?.['path'] === null, 'the template to hear null');
  });

  it('saves a screenshot of the editor with a control open (test-artifacts/, not committed)', async () => {
    harness = await mountEditor({ type: 'full' });
    await harness.probe.command('presentControl', ['style', 'accent'], { position: { x: 120, y: 90 } });
    await opened(harness, ['style', 'accent']);
    const { path } = await executeServerCommand<{ path: string }, { name: string }>('editor-screenshot', { name: 'editor-control-open' });
    expect(path).to.match(/test-artifacts\/editor-control-open\.png$/);
  });
});
