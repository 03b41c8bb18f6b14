// <platform-editor> on a phone (issue 17): below 720 px of its own width the
// template fills the editor, the bar sits at the bottom within thumb reach,
// and controls come up as bottom sheets (the tapped element's control, or
// every control behind Customize) that take the focus, close with escape or
// their close button, and give the focus back.
import { expect } from '@esm-bundle/chai';
import { executeServerCommand, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import type { PlatformEditor } from '../../host/index.js';
import { controlOf, deepFocus, inside, mountEditor, templateSaw, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

const PHONE = { width: 390, height: 844 };

function root(editor: PlatformEditor): ShadowRoot {
  return editor.shadowRoot as ShadowRoot;
}

function rectOf(editor: PlatformEditor, selector: string): DOMRect {
  const element = root(editor).querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`no ${selector} in the editor`);
  return element.getBoundingClientRect();
}

/** Clicks (a real mouse click, so focus and pointerdown are real) the centre of an element of the editor. */
async function click(editor: PlatformEditor, selector: string): Promise<void> {
  const rect = rectOf(editor, selector);
  await sendMouse({ type: 'click', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)] });
}

async function frames(count = 2): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
}

describe('<platform-editor> on a phone', () => {
  let harness: EditorHarness;
  before(async () => {
    await setViewport(PHONE);
    await waitUntil(() => document.documentElement.clientWidth === PHONE.width, 'the phone viewport');
  });
  afterEach(() => harness?.dispose());

  it('the template fills the editor; Preview, Undo, Redo, Customize and Finish sit in the bottom quarter, 44 px or more', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor } = harness;
    await editor.updateComplete;
    await frames();
    const box = editor.getBoundingClientRect();
    const iframe = editor.frame?.iframe as HTMLIFrameElement;
    const frameRect = iframe.getBoundingClientRect();
    expect(frameRect.width, 'the template is as wide as the editor').to.be.at.least(box.width * 0.9);
    expect(editor.compact).to.equal(true);
    expect(frameRect.height, 'and most of its height').to.be.at.least(box.height * 0.75);
    // The template's own viewport is that wide too: its text is not one letter a line.
    expect(((await harness.probe.command('viewport')).value as { width: number }).width).to.be.at.least(box.width * 0.9);
    // The panel is not beside the template: it is a sheet, down until asked for.
    expect(root(editor).querySelector('.panel.sheet:not(.open)')).to.not.equal(null);
    expect(getComputedStyle(root(editor).querySelector('.panel') as Element).display).to.equal('none');
    for (const id of ['preview', 'undo', 'redo', 'customize', 'finish']) {
      const rect = rectOf(editor, `#${id}`);
      expect(rect.width, `#${id} width`).to.be.at.least(44);
      expect(rect.height, `#${id} height`).to.be.at.least(44);
      expect(rect.top, `#${id} in the bottom quarter`).to.be.at.least(box.bottom - box.height / 4);
      expect(rect.bottom, `#${id} on screen`).to.be.at.most(PHONE.height);
      expect(rect.left, `#${id} left`).to.be.at.least(0);
      expect(rect.right, `#${id} right`).to.be.at.most(PHONE.width);
    }
    // One row at 390 px: nothing wraps above Finish.
    const tops = ['preview', 'undo', 'redo', 'customize', 'finish'].map((id) => Math.round(rectOf(editor, `#${id}`).top));
    expect(Math.max(...tops) - Math.min(...tops), `tops ${tops.join(', ')}`).to.be.at.most(1);
    // Undo and Redo are icons with their names kept.
    expect(root(editor).querySelector('#undo')?.getAttribute('aria-label')).to.equal('Undo');
    // One toggle for Remix and Preview.
    expect(getComputedStyle(root(editor).querySelector('#remix') as Element).display).to.equal('none');
    await click(editor, '#preview');
    await waitUntil(() => editor.session?.remixing === false, 'the preview');
    await editor.updateComplete;
    expect(getComputedStyle(root(editor).querySelector('#preview') as Element).display).to.equal('none');
    expect((deepFocus() as HTMLElement).id, 'the focus moves to the toggle that shows').to.equal('remix');
    await click(editor, '#remix');
    await waitUntil(() => editor.session?.remixing === true, 'remixing again');
  });

  it('onPresentControl opens the control as a bottom sheet with the focus in it; typing reaches the template; escape closes and gives the focus back', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    (root(editor).querySelector('#finish') as HTMLElement).focus();
    // A point far right and low: a floating overlay would have to flip; the sheet does not care.
    await probe.command('presentControl', ['content', 'title'], { position: { x: 380, y: 700 } });
    await waitUntil(() => JSON.stringify(editor.openControlPath) === '["content","title"]', 'the sheet');
    const input = inside<HTMLInputElement>(controlOf(editor, ['content', 'title'], 'overlay'), 'input');
    await waitUntil(() => deepFocus() === input, 'the focus in the sheet');
    await frames();
    const sheet = root(editor).querySelector('.overlay') as HTMLElement;
    expect(sheet.classList.contains('sheet')).to.equal(true);
    expect(sheet.hasAttribute('popover'), 'not a floating popover').to.equal(false);
    expect(editor.overlayPlacement).to.equal(null);
    const box = editor.getBoundingClientRect();
    const rect = sheet.getBoundingClientRect();
    const bar = rectOf(editor, '.bar');
    expect(rect.left).to.be.closeTo(box.left, 1);
    expect(rect.right).to.be.closeTo(box.right, 1);
    expect(rect.bottom, 'it sits on the bar').to.be.closeTo(bar.top, 1);
    expect(rect.top, 'the template shows above it').to.be.greaterThan(box.top + box.height * 0.25);
    expect(input.getBoundingClientRect().height, 'a 44 px field').to.be.at.least(44);
    const close = rectOf(editor, '.overlay .close');
    expect(Math.min(close.width, close.height), 'a 44 px close button').to.be.at.least(44);

    await sendKeys({ type: ' on a phone' });
    await templateSaw(probe, ['content', 'title'], 'Hello on a phone');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => editor.openControlPath === null, 'escape to close it');
    expect((deepFocus() as HTMLElement).id, 'the focus is back').to.equal('finish');
    await waitUntil(() => probe.of('activePath').at(-1)?.['path'] === null, 'the template to hear null');

    // The close button closes it too.
    await probe.command('presentControl', ['style', 'accent']);
    await waitUntil(() => editor.openControlPath !== null, 'the sheet again');
    await frames();
    await click(editor, '.overlay .close');
    await waitUntil(() => editor.openControlPath === null, 'the close button to close it');
  });

  it('Customize brings up every control as a sheet: the focus moves in, each control can be reached, escape closes and the focus goes back to Customize', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    await click(editor, '#customize');
    await waitUntil(() => editor.panelSheetOpen, 'the panel sheet');
    await editor.updateComplete;
    await frames();
    const panel = root(editor).querySelector('.panel') as HTMLElement;
    expect(root(editor).querySelector('#customize')?.getAttribute('aria-expanded')).to.equal('true');
    expect(panel.getAttribute('role')).to.equal('dialog');
    expect(deepFocus(), 'the focus is in the sheet').to.equal(panel);
    const box = editor.getBoundingClientRect();
    const rect = panel.getBoundingClientRect();
    expect(rect.width).to.be.closeTo(box.width, 1);
    expect(rect.bottom).to.be.closeTo(rectOf(editor, '.bar').top, 1);
    expect(rect.top).to.be.greaterThan(box.top);
    // The last control is reached by scrolling the sheet (not the page), and works.
    const layout = controlOf(editor, ['style', 'layout']);
    const select = inside<HTMLSelectElement>(layout, 'select');
    select.scrollIntoView({ block: 'nearest' });
    await frames();
    const selectRect = select.getBoundingClientRect();
    expect(selectRect.top).to.be.at.least(rect.top);
    expect(selectRect.bottom).to.be.at.most(rect.bottom + 1);
    expect(selectRect.height, 'a 44 px select').to.be.at.least(44);
    expect(document.scrollingElement?.scrollTop ?? 0, 'the page did not scroll').to.equal(0);
    select.focus();
    await sendKeys({ press: 'ArrowDown' });
    await templateSaw(probe, ['style', 'layout'], 'list');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => !editor.panelSheetOpen, 'escape to close the sheet');
    await editor.updateComplete;
    expect(getComputedStyle(panel).display).to.equal('none');
    expect((deepFocus() as HTMLElement).id, 'the focus is back on Customize').to.equal('customize');

    // Its close button closes it too; Preview takes it down.
    await click(editor, '#customize');
    await waitUntil(() => editor.panelSheetOpen, 'the panel sheet again');
    await editor.updateComplete;
    await frames();
    await click(editor, '.panel .close');
    await waitUntil(() => !editor.panelSheetOpen, 'the close button');
    editor.openPanel();
    editor.setRemixing(false);
    await editor.updateComplete;
    expect(editor.panelSheetOpen).to.equal(false);
    expect((root(editor).querySelector('#customize') as HTMLButtonElement).disabled, 'nothing to customize in the preview').to.equal(true);
  });

  it("the element's own width decides, not the window's; crossing the breakpoint keeps the template (no reload)", async () => {
    await setViewport({ width: 1000, height: 700 });
    try {
      harness = await mountEditor({ type: 'full', style: 'position: fixed; top: 0; left: 0; width: 400px; height: 600px;' });
      const { editor, probe } = harness;
      expect(editor.compact, 'a 400 px editor in a 1000 px window').to.equal(true);
      const iframe = editor.frame?.iframe;
      const loads = probe.of('loaded').length;
      editor.style.width = '900px';
      await waitUntil(() => !editor.compact, 'the wide layout');
      await editor.updateComplete;
      await frames();
      expect(root(editor).querySelector('.panel:not(.sheet)')).to.not.equal(null);
      expect(rectOf(editor, '.panel').width).to.be.closeTo(320, 1);
      expect(rectOf(editor, '.bar').top, 'the bar on top').to.be.closeTo(0, 1);
      editor.style.width = '500px';
      await waitUntil(() => editor.compact, 'compact again');
      expect(editor.frame?.iframe, 'the same iframe').to.equal(iframe);
      expect(probe.of('loaded').length, 'not reloaded').to.equal(loads);
      expect((await probe.command('get', ['content', 'title'])).ok).to.equal(true);
      // layout="wide" forces the side panel at any width.
      editor.layout = 'wide';
      await editor.updateComplete;
      expect(editor.compact).to.equal(false);
    } finally {
      await setViewport(PHONE);
    }
  });

  it('a large customization in the sheet: closed scopes are 44 px headings, a tap opens one and its controls edit the template', async () => {
    harness = await mountEditor({ type: 'full', query: { big: '100x5' } });
    const { editor, probe } = harness;
    await click(editor, '#customize');
    await waitUntil(() => editor.panelSheetOpen, 'the panel sheet');
    const heading = `.panel section[data-scope='s20'] h2 button`;
    const button = root(editor).querySelector<HTMLButtonElement>(heading) as HTMLButtonElement;
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    expect(root(editor).querySelectorAll(`.panel section[data-scope='s20'] [data-kind]`).length).to.equal(0);
    button.scrollIntoView({ block: 'center' });
    await frames();
    expect(rectOf(editor, heading).height, 'a thumb-sized heading').to.be.at.least(44);
    await executeServerCommand('editor-screenshot', { name: 'editor-phone-large-closed' });
    await click(editor, heading);
    await editor.updateComplete;
    expect(button.getAttribute('aria-expanded')).to.equal('true');
    const text = controlOf(editor, ['s20', 'f0']) as HTMLElement & { updateComplete: Promise<boolean> };
    await text.updateComplete;
    const input = inside<HTMLInputElement>(text, 'input');
    input.focus();
    input.select();
    await sendKeys({ type: 'Tapped' });
    await templateSaw(probe, ['s20', 'f0'], 'Tapped');
    expect(editor.panelSheetOpen, 'the sheet stays up').to.equal(true);
    await frames(3);
    await executeServerCommand('editor-screenshot', { name: 'editor-phone-large-opened' });
  });

  it('saves screenshots of the phone editor (test-artifacts/, not committed)', async () => {
    harness = await mountEditor({ type: 'full' });
    await harness.probe.command('presentControl', ['content', 'title']);
    await waitUntil(() => harness.editor.openControlPath !== null, 'the sheet');
    await frames(3);
    await executeServerCommand('editor-screenshot', { name: 'editor-phone-sheet-fixture' });
    harness.editor.closeControl();
    harness.editor.openPanel();
    await harness.editor.updateComplete;
    await frames(3);
    await executeServerCommand('editor-screenshot', { name: 'editor-phone-panel-fixture' });
  });
});
