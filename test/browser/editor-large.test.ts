// A customization at the host's limits (100 scopes, 100 fields a scope, 500 fields in all;
// protocol/customization.ts) in <platform-editor type="full">: accepted, drawn with only its open
// scopes' controls in the DOM, and one past a limit refused with VALUE_TOO_LARGE (issue 23: a
// probe's 18,000 controls froze the page). How long drawing takes is the benchmark's to say
// (bench/editor-large.bench.ts); these tests hold what is drawn.
import { expect } from '@esm-bundle/chai';
import { defineHostElements, type PlatformEditor } from '../../host/index.js';
import { sendKeys } from '@web/test-runner-commands';
import { controlOf, deepFocus, inside, mountEditor, templateSaw, templateUrl, typeInto, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

const root = (editor: PlatformEditor): ShadowRoot => editor.shadowRoot as ShadowRoot;
const controlCount = (editor: PlatformEditor): number => root(editor).querySelectorAll('.panel [data-kind]').length;
const scopeButton = (editor: PlatformEditor, key: string): HTMLButtonElement => {
  const button = root(editor).querySelector<HTMLButtonElement>(`.panel section[data-scope='${key}'] h2 button`);
  if (!button) throw new Error(`no heading button for scope ${key}`);
  return button;
};
const fieldsOf = (editor: PlatformEditor, key: string): number => root(editor).querySelectorAll(`.panel section[data-scope='${key}'] [data-path]`).length;

/** Mounts a full editor on the fixture template with `?big=`; does not wait for it to be ready (a refused one never is). */
function mountBig(big: string): { editor: PlatformEditor; errors: { code: string; message: string }[]; dispose: () => void } {
  defineHostElements();
  const editor = document.createElement('platform-editor');
  editor.src = templateUrl({ big });
  editor.type = 'full';
  editor.layout = 'wide';
  editor.setAttribute('style', 'position: fixed; inset: 0; height: 100vh;');
  const errors: { code: string; message: string }[] = [];
  editor.addEventListener('platform-editor-error', (event) => errors.push({ code: event.detail.error.code, message: event.detail.error.message }));
  document.body.append(editor);
  return { editor, errors, dispose: () => editor.remove() };
}

describe('<platform-editor> with a customization at the limits', () => {
  let harness: EditorHarness | undefined;
  let big: ReturnType<typeof mountBig> | undefined;
  afterEach(() => {
    harness?.dispose();
    big?.dispose();
    harness = undefined;
    big = undefined;
  });

  it('accepts 100 scopes of 5 fields (500): the first 100 fields are open, the other scopes are headings without controls', async () => {
    harness = await mountEditor({ type: 'full', layout: 'wide', query: { big: '100x5' } });
    const { editor } = harness;
    await editor.updateComplete;
    expect(harness.errors).to.deep.equal([]);
    expect(root(editor).querySelectorAll('.panel section').length).to.equal(100);
    // 20 scopes of 5 fill the default of 100 open fields (drawn 25 a task); 80 closed scopes hold no control.
    await waitUntil(() => controlCount(editor) >= 100, 'the open scopes drawn');
    expect(controlCount(editor)).to.equal(100);
    expect(scopeButton(editor, 's19').getAttribute('aria-expanded')).to.equal('true');
    expect(scopeButton(editor, 's20').getAttribute('aria-expanded')).to.equal('false');
    expect(fieldsOf(editor, 's20')).to.equal(0);
    expect(fieldsOf(editor, 's99')).to.equal(0);
    expect(root(editor).querySelector<HTMLElement>(`#${scopeButton(editor, 's99').getAttribute('aria-controls') ?? ''}`)?.hidden).to.equal(true);
  });

  it('opening a closed scope draws its controls, whose edits reach the template; closing it drops them', async () => {
    harness = await mountEditor({ type: 'full', layout: 'wide', query: { big: '100x5' } });
    const { editor, probe } = harness;
    await waitUntil(() => controlCount(editor) >= 100, 'the open scopes drawn');
    scopeButton(editor, 's73').click();
    await editor.updateComplete;
    expect(scopeButton(editor, 's73').getAttribute('aria-expanded')).to.equal('true');
    expect(fieldsOf(editor, 's73')).to.equal(5);
    expect(controlCount(editor)).to.equal(105);

    const text = controlOf(editor, ['s73', 'f0']) as HTMLElement & { updateComplete: Promise<boolean> };
    await text.updateComplete;
    typeInto(inside<HTMLInputElement>(text, 'input'), 'Edited far down');
    await templateSaw(probe, ['s73', 'f0'], 'Edited far down');
    const range = controlOf(editor, ['s73', 'f2']) as HTMLElement & { updateComplete: Promise<boolean> };
    await range.updateComplete;
    typeInto(inside<HTMLInputElement>(range, 'input[type=range]'), '7');
    await templateSaw(probe, ['s73', 'f2'], 7);

    scopeButton(editor, 's73').click();
    await editor.updateComplete;
    expect(fieldsOf(editor, 's73')).to.equal(0);
    // Opened again, the control shows the edited value: it is drawn from the session, not kept.
    scopeButton(editor, 's73').click();
    await editor.updateComplete;
    const again = controlOf(editor, ['s73', 'f0']) as HTMLElement & { updateComplete: Promise<boolean> };
    await again.updateComplete;
    expect(inside<HTMLInputElement>(again, 'input').value).to.equal('Edited far down');
  });

  it('with the keyboard: enter on a closed heading opens it, tab goes on into its first control, typing reaches the template', async () => {
    harness = await mountEditor({ type: 'full', layout: 'wide', query: { big: '100x5' } });
    const { editor, probe } = harness;
    await waitUntil(() => controlCount(editor) >= 100, 'the open scopes drawn');
    scopeButton(editor, 's40').focus();
    await sendKeys({ press: 'Enter' });
    await editor.updateComplete;
    expect(scopeButton(editor, 's40').getAttribute('aria-expanded')).to.equal('true');
    expect(deepFocus(), 'the focus stays on the heading').to.equal(scopeButton(editor, 's40'));
    const text = controlOf(editor, ['s40', 'f0']) as HTMLElement & { updateComplete: Promise<boolean> };
    await text.updateComplete;
    await sendKeys({ press: 'Tab' });
    expect(deepFocus()).to.equal(inside<HTMLInputElement>(text, 'input'));
    await sendKeys({ press: 'End' });
    await sendKeys({ type: '!' });
    await templateSaw(probe, ['s40', 'f0'], 'Hello!');
    // Shift+tab back to the heading and space closes it.
    await sendKeys({ press: 'Shift+Tab' });
    await sendKeys({ press: 'Space' });
    await editor.updateComplete;
    expect(fieldsOf(editor, 's40')).to.equal(0);
  });

  it('a template edit to a field of a closed scope is taken, and shown when the scope opens', async () => {
    harness = await mountEditor({ type: 'full', layout: 'wide', query: { big: '100x5' } });
    const { editor, probe } = harness;
    await probe.command('setValue', ['s90', 'f0'], 'From the template');
    await waitUntil(() => editor.session?.get(['s90', 'f0']) === 'From the template', 'the session to take the value');
    expect(fieldsOf(editor, 's90')).to.equal(0);
    scopeButton(editor, 's90').click();
    await editor.updateComplete;
    const text = controlOf(editor, ['s90', 'f0']) as HTMLElement & { updateComplete: Promise<boolean> };
    await text.updateComplete;
    expect(inside<HTMLInputElement>(text, 'input').value).to.equal('From the template');
  });

  it('accepts 5 scopes of 100 fields: the first scope is open whatever its size, the rest closed', async () => {
    harness = await mountEditor({ type: 'full', layout: 'wide', query: { big: '5x100' } });
    expect(harness.errors).to.deep.equal([]);
    // Drawn 25 a task: the page answers between them.
    await waitUntil(() => fieldsOf(harness?.editor as PlatformEditor, 's0') >= 100, 'the first scope drawn');
    expect(fieldsOf(harness.editor, 's0')).to.equal(100);
    expect(controlCount(harness.editor)).to.equal(100);
  });

  it('draws at most 25 new controls a task, so no render of a large panel is one long task', async () => {
    big = mountBig('5x100');
    const batches: number[] = [];
    // Lit renders synchronously within one task; a batch of mutation records is one render.
    const observer = new MutationObserver((records) => {
      let added = 0;
      for (const record of records) {
        for (const node of record.addedNodes) if (node instanceof Element) added += node.querySelectorAll('[data-kind]').length + (node.matches('[data-kind]') ? 1 : 0);
      }
      if (added > 0) batches.push(added);
    });
    observer.observe(big.editor.shadowRoot as ShadowRoot, { childList: true, subtree: true });
    const { editor } = big;
    await editor.whenReady();
    await waitUntil(() => controlCount(editor) >= 100, 'the first scope drawn');
    observer.disconnect();
    expect(batches.reduce((sum, count) => sum + count, 0)).to.equal(100);
    expect(Math.max(...batches)).to.be.at.most(25);
  });

  it('panel-open-fields="Infinity" opens every scope, as the panel did before it had closed ones', async () => {
    defineHostElements();
    big = mountBig('20x5');
    big.editor.panelOpenFields = Number.POSITIVE_INFINITY;
    await big.editor.whenReady();
    const all = big.editor;
    await waitUntil(() => controlCount(all) >= 100, 'every scope drawn');
    expect(controlCount(all)).to.equal(100);
    big.dispose();
    big = mountBig('20x5');
    big.editor.panelOpenFields = 12;
    await big.editor.whenReady();
    await big.editor.updateComplete;
    // 5 + 5 fit in 12, a third scope would not.
    expect(controlCount(big.editor)).to.equal(10);
    expect(scopeButton(big.editor, 's2').getAttribute('aria-expanded')).to.equal('false');
  });

  for (const [past, what] of [
    ['100x5+1', /declares 501 fields, over the limit of 500/],
    ['101x1', /declares 101 scopes, over the limit of 100/],
    ['1x100+1', /declares 101 fields in its scope 's0', over the limit of 100/],
  ] as const) {
    it(`refuses ${past} with VALUE_TOO_LARGE, said in the status line, and draws no control`, async () => {
      big = mountBig(past);
      const { editor, errors } = big;
      await waitUntil(() => errors.length > 0, 'the editor to report the refused customization');
      expect(errors[0]?.code).to.equal('VALUE_TOO_LARGE');
      expect(errors[0]?.message).to.match(what);
      await editor.updateComplete;
      expect(root(editor).querySelector('[role=status]')?.textContent ?? '').to.match(/over the limit/);
      expect(controlCount(editor)).to.equal(0);
      // The panel says why it is empty, rather than "Loading the template…" for ever.
      expect(root(editor).querySelector('.panel .load-error')?.textContent ?? '').to.match(what);
    });
  }
});
