// The editor with a template whose defaults do not fit their types, as templates of the original
// SDK ship them (issue 24): the values are kept (a number in a text field, null in an image field,
// numeric ids in a list's text fields, "$revealImage" in a secret<image>), the session lists each
// with a coded warning, the controls show them, and edits beside them are accepted. A default no
// host may render (a javascript: URL in a file field) is replaced by '' and never linked (issue 23).
import { expect } from '@esm-bundle/chai';
import { defineHostElements } from '../../host/index.js';
import { parseVccType } from '../../protocol/customization.js';
import { controlOf, inside, mountEditor, templateSaw, typeInto, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

type Control = HTMLElement & { updateComplete: Promise<boolean> };

describe('editor: defaults that do not fit their types (issue 24)', () => {
  let harness: EditorHarness;
  beforeEach(async () => {
    harness = await mountEditor({ type: 'full', template: 'original-template.html', query: { values: 'odd' } });
  });
  afterEach(() => harness.dispose());

  it('keeps each misfit, lists it with INVALID_VALUE naming path, value and type, and replaces the unsafe URL', async () => {
    const session = harness.editor.session!;
    expect(session.defaultMisfits.map(({ path, type, replaced, error }) => ({ path, type, replaced, code: error.code }))).to.deep.equal([
      { path: ['scene', 'appearAfter'], type: 'text', replaced: false, code: 'INVALID_VALUE' },
      { path: ['scene', 'background'], type: 'image', replaced: false, code: 'INVALID_VALUE' },
      { path: ['scene', 'links', 0, 'id'], type: 'text', replaced: false, code: 'INVALID_VALUE' },
      { path: ['scene', 'links', 1, 'id'], type: 'text', replaced: false, code: 'INVALID_VALUE' },
      { path: ['scene', 'reveal'], type: 'secret<image>', replaced: false, code: 'INVALID_VALUE' },
      { path: ['scene', 'download'], type: 'file', replaced: true, code: 'INVALID_VALUE' },
    ]);
    expect(session.defaultMisfits[0]?.error.message).to.equal(
      "platform-kit: the template's default at scene.appearAfter: value 3 does not fit type text (must be a string for a text VCC); kept as it is",
    );
    expect(session.get(['scene', 'appearAfter'])).to.equal(3);
    expect(session.get(['scene', 'background'])).to.equal(null);
    expect(session.get(['scene', 'reveal'])).to.equal('$revealImage');
    expect(session.get(['scene', 'download'])).to.equal('');
    // The template itself still reads its own defaults as it built them.
    expect((await harness.probe.command('get', ['scene', 'appearAfter'])).value).to.equal(3);
  });

  it('draws the controls with the values kept, and never a link for the unsafe URL', async () => {
    const { editor } = harness;
    const appearAfter = controlOf(editor, ['scene', 'appearAfter']) as Control;
    expect(inside<HTMLInputElement>(appearAfter, 'input').value).to.equal('3');
    const reveal = controlOf(editor, ['scene', 'reveal']) as Control;
    expect(inside(reveal, '#preview').textContent).to.equal('Stored as $revealImage');
    const download = controlOf(editor, ['scene', 'download']) as Control;
    expect(download.shadowRoot!.querySelector('a')).to.equal(null);
    expect(editor.shadowRoot!.querySelector('.panel [data-kind="unknown"]')).to.equal(null);
  });

  it('accepts an edit beside a kept misfit, from the editor and from the template, and still refuses a new one', async () => {
    const { editor, probe } = harness;
    const session = editor.session!;
    const links = controlOf(editor, ['scene', 'links']) as Control;
    await links.updateComplete;
    const firstItem = links.shadowRoot!.querySelector<Control>('li[data-index="0"] [data-kind="object"]')!;
    await firstItem.updateComplete;
    const label = [...firstItem.shadowRoot!.querySelectorAll<Control>('[data-kind="text"]')][1]!;
    typeInto(inside<HTMLInputElement>(label, 'input'), 'Start');
    await waitUntil(() => (session.get(['scene', 'links']) as { label: string }[])[0]?.label === 'Start', 'the label edit accepted');
    expect(session.get(['scene', 'links'])).to.deep.equal([
      { id: 1, label: 'Start' },
      { id: 2, label: 'Shop' },
    ]);
    await templateSaw(
      probe,
      ['scene', 'links'],
      [
        { id: 1, label: 'Start' },
        { id: 2, label: 'Shop' },
      ],
    );
    // The template's own deep edit beside the numeric ids.
    expect((await probe.command('setValue', ['scene', 'links', 1, 'label'], 'Store')).ok).to.equal(true);
    await waitUntil(() => (session.get(['scene', 'links']) as { label: string }[])[1]?.label === 'Store', 'the guest edit accepted');
    // A new misfit is still refused: a number where the list held a string.
    const refused = await probe.command('setValue', ['scene', 'links', 1, 'label'], 7);
    expect(refused.ok).to.equal(false);
    expect((refused.value as { code: string }).code).to.equal('INVALID_VALUE');
    // And so is an unsafe URL, wherever it comes from.
    const unsafe = await probe.command('setValue', ['scene', 'download'], 'javascript:alert(1)');
    expect((unsafe.value as { code: string }).code).to.equal('INVALID_VALUE');
    expect(session.get(['scene', 'download'])).to.equal('');
  });
});

describe('a media control given an unsafe URL another way (issue 23)', () => {
  it('renders no link and loads nothing for javascript: or data:, and links an https URL', async () => {
    defineHostElements();
    for (const [tag, type] of [
      ['platform-file-control', 'file'],
      ['platform-image-control', 'image'],
    ] as const) {
      const control = document.createElement(tag) as Control & { vccType: unknown; value: unknown; path: string[] };
      control.vccType = parseVccType(type);
      control.path = ['s', 'k'];
      document.body.append(control);
      try {
        for (const value of ['javascript:alert(1)', 'data:image/svg+xml,<svg onload=alert(1)>']) {
          control.value = value;
          await control.updateComplete;
          expect(control.shadowRoot!.querySelector('a, img, video, audio'), `${type} ${value}`).to.equal(null);
          expect(inside(control, '#preview').textContent).to.match(/Not shown/);
        }
        control.value = 'https://cdn.example/a.png';
        await control.updateComplete;
        expect(control.shadowRoot!.querySelector(type === 'file' ? 'a' : 'img')).to.not.equal(null);
      } finally {
        control.remove();
      }
    }
  });
});
