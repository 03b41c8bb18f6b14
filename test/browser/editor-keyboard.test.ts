import { expect } from '@esm-bundle/chai';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import { deepFocus, keystore, mountEditor, templateSaw, type EditorHarness } from './support/editor.js';
import { HOST_ORIGIN, waitUntil } from './support/probe.js';

/** Opens `path`'s control as the template would, and waits until it has the focus. */
async function openByTemplate(harness: EditorHarness, path: readonly string[]): Promise<void> {
  await harness.probe.command('presentControl', path, { position: { x: 60, y: 60 } });
  await waitUntil(() => JSON.stringify(harness.editor.openControlPath) === JSON.stringify(path), `the overlay of ${path.join('.')}`);
  await waitUntil(() => harness.editor.shadowRoot?.querySelector('.overlay')?.contains(harness.editor.shadowRoot.activeElement) === true, 'the focus in the overlay');
}

async function closed(harness: EditorHarness): Promise<void> {
  await waitUntil(() => harness.editor.openControlPath === null, 'the overlay to close');
}

/** Waits until the template's latest onValueChanged for `path` carried `value`. */
async function templateNow(probe: EditorHarness['probe'], path: readonly string[], value: unknown): Promise<void> {
  const last = (): unknown =>
    probe
      .of('valueChanged')
      .filter((change) => JSON.stringify(change['path']) === JSON.stringify(path))
      .at(-1)?.['value'];
  await waitUntil(() => JSON.stringify(last()) === JSON.stringify(value), `the template's latest ${path.join('.')} to be ${JSON.stringify(value)} (is ${JSON.stringify(last())})`);
}

const keys = async (...presses: string[]): Promise<void> => {
  for (const press of presses) await sendKeys({ press });
};

describe('<platform-editor> with the keyboard only', () => {
  let harness: EditorHarness;
  afterEach(() => harness?.dispose());

  it('edits every control type with tab, enter, escape, arrows and typing', async () => {
    harness = await mountEditor({ type: 'instant' });
    const { probe } = harness;

    await openByTemplate(harness, ['content', 'title']);
    await keys('End');
    await sendKeys({ type: ' world' });
    await keys('Enter');
    await closed(harness);
    await templateSaw(probe, ['content', 'title'], 'Hello world');

    await openByTemplate(harness, ['content', 'body']);
    await keys('Control+End', 'Enter');
    await sendKeys({ type: 'Line two' });
    await keys('Control+Enter');
    await closed(harness);
    await templateSaw(probe, ['content', 'body'], 'Line one\nLine two');

    await openByTemplate(harness, ['content', 'size']);
    await keys('ArrowRight', 'ArrowRight', 'Tab', 'ArrowUp', 'Escape');
    await closed(harness);
    await templateSaw(probe, ['content', 'size'], 20);
    await templateSaw(probe, ['content', 'size'], 25);

    await openByTemplate(harness, ['content', 'visible']);
    await keys('Space');
    await templateSaw(probe, ['content', 'visible'], false);
    await keys('Enter');
    await templateSaw(probe, ['content', 'visible'], true);
    await keys('Escape');
    await closed(harness);

    await openByTemplate(harness, ['style', 'accent']);
    await keys('Control+a');
    await sendKeys({ type: '#00ff00' });
    await templateNow(probe, ['style', 'accent'], '#00ff00');
    await keys('Enter');
    await closed(harness);

    await openByTemplate(harness, ['style', 'layout']);
    await keys('ArrowDown');
    await templateSaw(probe, ['style', 'layout'], 'list');
    await keys('Enter');
    await closed(harness);

    await openByTemplate(harness, ['content', 'photo']);
    expect((deepFocus() as HTMLElement).id).to.equal('choose');
    await executeServerCommand('editor-press-enter-for-file', { name: 'keyboard.png', mimeType: 'image/png', text: 'png-bytes' });
    await waitUntil(() => /keyboard\.png$/.test(String(harness.editor.session?.get(['content', 'photo']))), 'the picked file to upload');
    await templateSaw(probe, ['content', 'photo'], harness.editor.session?.get(['content', 'photo']));
    expect(String(harness.editor.session?.get(['content', 'photo']))).to.match(new RegExp(`^${HOST_ORIGIN}/__editor/upload/`));
    await keys('Escape');
    await closed(harness);

    await openByTemplate(harness, ['content', 'apiKey']);
    await sendKeys({ type: 'typed-secret' });
    await keys('Enter');
    await closed(harness);
    await waitUntil(() => [...keystore.values()].includes('typed-secret'), 'the keystore to get it');
    const keyPath = [...keystore.entries()].find(([, value]) => value === 'typed-secret')?.[0];
    await templateSaw(probe, ['content', 'apiKey'], keyPath);

    await openByTemplate(harness, ['content', 'tags']);
    await keys('End');
    await sendKeys({ type: 'b' });
    await templateSaw(probe, ['content', 'tags'], ['ab']);
    await keys('Tab', 'Enter'); // the add button (the item's disabled buttons are skipped)
    await templateSaw(probe, ['content', 'tags'], ['ab', '']);
    await sendKeys({ type: 'c' });
    await templateSaw(probe, ['content', 'tags'], ['ab', 'c']);
    await keys('Alt+ArrowUp');
    await templateSaw(probe, ['content', 'tags'], ['c', 'ab']);
    await keys('Escape');
    await closed(harness);

    await openByTemplate(harness, ['content', 'author']);
    await keys('End');
    await sendKeys({ type: 'ie' });
    await keys('Tab', 'ArrowRight');
    await templateSaw(probe, ['content', 'author'], { name: 'Annie', age: 31 });
    await keys('Escape');
    await closed(harness);

    await openByTemplate(harness, ['content', 'extra']);
    await keys('Control+a');
    await sendKeys({ type: '{"x": 0}' });
    await keys('Control+Enter');
    await closed(harness);
    await templateSaw(probe, ['content', 'extra'], { x: 0 });

    // Every close gave the template null as the active path.
    const activePaths = probe.of('activePath').map((report) => report['path']);
    expect(activePaths.filter((path) => path === null)).to.have.length(11);
  });

  it('the bar is reachable with tab; undo and redo work from the keyboard, a burst of typing being one step', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    const root = editor.shadowRoot as ShadowRoot;
    (root.querySelector('#remix') as HTMLButtonElement).focus();
    await keys('ArrowRight');
    expect(root.activeElement?.id).to.equal('preview');

    await openByTemplate(harness, ['content', 'title']);
    await keys('End');
    await sendKeys({ type: '!!!' });
    await keys('Enter');
    await closed(harness);
    await openByTemplate(harness, ['content', 'size']);
    await keys('ArrowRight', 'Escape');
    await closed(harness);
    await templateSaw(probe, ['content', 'size'], 15);
    expect(editor.canUndo).to.equal(true);

    // The shortcuts work wherever the focus is in the editor, except inside a text field (its own undo).
    (root.querySelector('#remix') as HTMLButtonElement).focus();
    await keys('Control+z');
    await templateNow(probe, ['content', 'size'], 10);
    await keys('Control+z');
    await templateNow(probe, ['content', 'title'], 'Hello');
    expect(editor.canUndo).to.equal(false);
    await keys('Control+Shift+z');
    await templateNow(probe, ['content', 'title'], 'Hello!!!');
    await keys('Control+y');
    await templateNow(probe, ['content', 'size'], 15);
    expect(editor.canRedo).to.equal(false);
    // The buttons do the same.
    await editor.updateComplete;
    (root.querySelector('#undo') as HTMLButtonElement).click();
    await waitUntil(() => editor.session?.get(['content', 'size']) === 10, 'the undo button');
  });
});
