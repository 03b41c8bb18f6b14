// The editor with a template written for the original platform: object<Name>,
// object<Name>[], secret<image>, coordinate and size get real controls (not the JSON
// box), deep onPresentControl paths open the nested field's control, undeclared deep
// paths are refused, and a nested field typed from the template's own input box stays
// in sync keystroke by keystroke while onValueChanged hears [scope, key] and the whole value.
import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import { controlOf, inside, keystore, mountEditor, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

type Control = HTMLElement & { updateComplete: Promise<boolean>; uploadFile?: (file: File) => Promise<boolean> };
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

describe('editor: customization types of the original platform', () => {
  let harness: EditorHarness;
  beforeEach(async () => {
    harness = await mountEditor({ type: 'full', template: 'original-template.html' });
  });
  afterEach(() => harness.dispose());

  const kindsIn = (control: Element): string[] => [...(control.shadowRoot?.querySelectorAll<HTMLElement>('[data-kind]') ?? [])].map((element) => element.dataset['kind'] ?? '');

  it('draws a real, labelled control for each type, with nested fields getting their own controls', async () => {
    const { editor } = harness;
    const reveal = controlOf(editor, ['general', 'reveal']) as Control;
    expect(reveal.dataset['kind']).to.equal('object');
    await reveal.updateComplete;
    expect(kindsIn(reveal)).to.deep.equal(['text', 'image', 'color', 'range', 'select', 'secret']);
    expect(inside(reveal, 'legend').textContent).to.equal('Reveal');
    const caption = reveal.shadowRoot!.querySelector<Control>('[data-kind="text"]')!;
    expect(inside(caption, 'label').textContent).to.equal('Caption');
    expect(inside(caption, '#description').textContent).to.equal('Shown over the image');

    const enemies = controlOf(editor, ['general', 'enemies']) as Control;
    expect(enemies.dataset['kind']).to.equal('array');
    expect(kindsIn(enemies)).to.deep.equal(['object']);
    expect(controlOf(editor, ['general', 'spot']).dataset['kind']).to.equal('coordinate');
    expect(controlOf(editor, ['general', 'box']).dataset['kind']).to.equal('size');
    expect(controlOf(editor, ['general', 'badge']).dataset['kind']).to.equal('secret-image');
    expect(editor.shadowRoot!.querySelectorAll('.panel [data-kind="unknown"]').length).to.equal(0);
  });

  it('object<Name>[]: add, remove and reorder items within min 1 and max 3', async () => {
    const { editor } = harness;
    const session = editor.session!;
    const enemies = controlOf(editor, ['general', 'enemies']) as Control;
    const add = inside<HTMLButtonElement>(enemies, '#add');
    expect(inside<HTMLButtonElement>(enemies, 'li[data-index="0"] button.remove').disabled, 'at the minimum').to.equal(true);
    add.click();
    await waitUntil(() => (session.get(['general', 'enemies']) as unknown[]).length === 2, 'an added enemy');
    expect((session.get(['general', 'enemies']) as unknown[])[1]).to.deep.equal({ name: '', sprite: '', strLevel: 0 });
    add.click();
    await waitUntil(() => (session.get(['general', 'enemies']) as unknown[]).length === 3, 'a third enemy');
    await enemies.updateComplete;
    expect(inside<HTMLButtonElement>(enemies, '#add').disabled, 'at the maximum').to.equal(true);
    inside<HTMLButtonElement>(enemies, 'li[data-index="0"] button.down').click();
    await waitUntil(() => (session.get(['general', 'enemies']) as { name: string }[])[1]?.name === 'Orc', 'Orc moved down');
    inside<HTMLButtonElement>(enemies, 'li[data-index="2"] button.remove').click();
    await waitUntil(() => (session.get(['general', 'enemies']) as unknown[]).length === 2, 'an enemy removed');
  });

  it('coordinate and size are edited from the keyboard, as whole {x, y} and {width, height} values', async () => {
    const { editor } = harness;
    const session = editor.session!;
    const spot = controlOf(editor, ['general', 'spot']) as Control;
    inside<HTMLInputElement>(spot, '#x').focus();
    await sendKeys({ press: 'ArrowUp' });
    await waitUntil(() => JSON.stringify(session.get(['general', 'spot'])) === JSON.stringify({ x: 11, y: 20 }), 'x stepped up');
    const box = controlOf(editor, ['general', 'box']) as Control;
    expect(inside<HTMLInputElement>(box, '#width').getAttribute('aria-label')).to.equal('Box Width');
    inside<HTMLInputElement>(box, '#height').select();
    await sendKeys({ type: '75' });
    await waitUntil(() => JSON.stringify(session.get(['general', 'box'])) === JSON.stringify({ width: 100, height: 75 }), 'height typed');
    expect(() => session.setValue(['general', 'box'], { width: -1, height: 2 }))
      .to.throw()
      .with.property('code', 'INVALID_VALUE');
  });

  it('secret<image>: the image is uploaded, its URL goes to the keystore and only the key path is kept', async () => {
    const { editor } = harness;
    const badge = controlOf(editor, ['general', 'badge']) as Control;
    expect(await badge.uploadFile!(new File([png], 'badge.png', { type: 'image/png' }))).to.equal(true);
    const value = editor.session!.get(['general', 'badge']) as string;
    expect(value).to.match(/^platform-keystore:\/\/test\/general\.badge\//);
    expect(keystore.get(value)).to.match(/\/__editor\/upload\/\d+-badge\.png$/);
    await badge.updateComplete;
    expect(inside(badge, '#preview').textContent).to.contain(value);
  });

  it('onPresentControl on a deep path opens that nested field control; changing it edits only that field', async () => {
    const { editor, probe } = harness;
    editor.type = 'instant';
    await editor.updateComplete;
    const reply = await probe.command('presentControl', ['general', 'reveal', 'image'], { position: { x: 40, y: 40 } });
    expect(reply.ok).to.equal(true);
    await waitUntil(() => editor.openControlPath !== null, 'the overlay');
    const overlay = editor.shadowRoot!.querySelector<HTMLElement>('.overlay')!;
    expect(overlay.dataset['path']).to.equal(JSON.stringify(['general', 'reveal', 'image']));
    expect(overlay.getAttribute('aria-label')).to.equal('Image');
    const image = controlOf(editor, ['general', 'reveal', 'image'], 'overlay') as Control;
    expect(image.dataset['kind']).to.equal('image');
    expect(await image.uploadFile!(new File([png], 'reveal.png', { type: 'image/png' }))).to.equal(true);
    const reveal = editor.session!.get(['general', 'reveal']) as Record<string, unknown>;
    expect(reveal['image']).to.match(/reveal\.png$/);
    expect(reveal['caption']).to.equal('Tap');
    // The template hears [scope, key] and the whole object.
    await waitUntil(
      () =>
        probe
          .of('valueChanged')
          .some((change) => JSON.stringify(change['path']) === '["general","reveal"]' && String((change['value'] as Record<string, unknown>)['image']).endsWith('reveal.png')),
      'onValueChanged([general, reveal], whole value)',
    );
    expect(probe.of('valueChanged').every((change) => (change['path'] as unknown[]).length === 2)).to.equal(true);

    const item = await probe.command('presentControl', ['general', 'enemies', '0', 'name']);
    expect(item.ok).to.equal(true);
    await waitUntil(
      () => editor.shadowRoot!.querySelector<HTMLElement>('.overlay')?.dataset['path'] === JSON.stringify(['general', 'enemies', '0', 'name']),
      'the item field overlay',
    );
  });

  it('a deep path the template never declared is refused with INVALID_PATH and opens nothing', async () => {
    const { editor, probe, errors } = harness;
    for (const path of [
      ['general', 'reveal', 'nope'],
      ['general', 'spot', 'z'],
      ['general', 'enemies', '7', 'name'],
      ['general', 'nothing'],
      ['metadata', 'projectId'],
    ]) {
      const reply = await probe.command('presentControl', path);
      expect(reply.ok, path.join('.')).to.equal(false);
      expect((reply.value as { code: string }).code, path.join('.')).to.equal('INVALID_PATH');
    }
    expect(editor.openControlPath).to.equal(null);
    expect(errors.filter((error) => error.code === 'INVALID_PATH').length).to.be.at.least(5);
  });

  it('RemixSession.setValue accepts declared nested paths and refuses undeclared ones', async () => {
    const session = harness.editor.session!;
    session.setValue(['general', 'reveal', 'zoom'], 3);
    expect((session.get(['general', 'reveal']) as Record<string, unknown>)['zoom']).to.equal(3);
    session.setValue(['general', 'enemies', '0', 'strLevel'], 42);
    expect(session.get(['general', 'enemies'])).to.deep.equal([{ name: 'Orc', sprite: '', strLevel: 42 }]);
    for (const path of [
      ['general', 'reveal', 'nope'],
      ['general', 'reveal', 'zoom', 'deeper'],
      ['general', 'enemies', '1', 'name'],
      ['general', 'enemies', 'first', 'name'],
    ]) {
      expect(() => session.setValue(path, 1), path.join('.'))
        .to.throw()
        .with.property('code', 'INVALID_PATH');
    }
    expect(() => session.setValue(['general', 'reveal', 'zoom'], 9))
      .to.throw()
      .with.property('code', 'INVALID_VALUE');
    const refused = await harness.probe.command('setValue', ['general', 'reveal', 'nope'], 'x');
    expect((refused.value as { code: string }).code).to.equal('INVALID_PATH');
  });

  it("typing in the template's own box: one onSetValue per keystroke, nothing lost, [scope, key] and the whole value heard", async () => {
    const { editor, probe } = harness;
    const session = editor.session!;
    const guestSets: string[] = [];
    session.on('valuechange', ({ path, value, source }) => {
      if (source === 'guest') guestSets.push(`${JSON.stringify(path)} ${String((value as Record<string, unknown>)['caption'])}`);
    });
    editor.frame!.iframe.focus();
    await probe.command('focusCaption');
    await probe.command('setValue', ['general', 'reveal', 'caption'], '');
    await waitUntil(() => (session.get(['general', 'reveal']) as Record<string, unknown>)['caption'] === '', 'cleared');
    guestSets.length = 0;
    const text = 'Hello, world';
    await sendKeys({ type: text });
    await waitUntil(() => (session.get(['general', 'reveal']) as Record<string, unknown>)['caption'] === text, 'the whole text on the host');
    expect(guestSets.length, 'one set per keystroke').to.equal(text.length);
    expect(guestSets.every((entry) => entry.startsWith('["general","reveal"] '))).to.equal(true);
    await waitUntil(() => probe.of('valueChanged').some((change) => (change['value'] as Record<string, unknown>)?.['caption'] === text), 'the last echo');
    const shown = (await probe.command('shown')).value as { input: string; shown: string };
    expect(shown).to.deep.equal({ input: text, shown: text });
    for (const change of probe.of('valueChanged')) {
      expect(change['path']).to.deep.equal(['general', 'reveal']);
      expect(Object.keys(change['value'] as object)).to.include.members(['caption', 'image', 'tint', 'zoom', 'mode', 'token']);
    }
    expect((session.get(['general', 'reveal']) as Record<string, unknown>)['tint']).to.equal('#00ff00');
  });
});
