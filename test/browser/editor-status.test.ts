// What the editor says goes when it stops being true (issue 17): the status
// line after a fix or a switch to and from Preview, and an upload's error
// under its field after a later upload succeeds, wherever either happened
// (the panel, the overlay, a deep field) and whoever refused it (the control
// or the session).
import { expect } from '@esm-bundle/chai';
import type { PlatformEditor, UploadFunction } from '../../host/index.js';
import { controlOf, inside, mountEditor, testUpload, typeInto, type EditorHarness } from './support/editor.js';
import { waitUntil } from './support/probe.js';

type Control = HTMLElement & { updateComplete: Promise<boolean>; uploadFile?: (file: File) => Promise<boolean> };

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const pngFile = (name: string): File => new File([png], name, { type: 'image/png' });

/** The bar's status line. */
function statusLine(editor: PlatformEditor): string {
  return editor.shadowRoot?.querySelector('.bar [role=status]')?.textContent?.trim() ?? '';
}

/** The error under a control ('' when none shows). */
async function errorUnder(control: Control): Promise<string> {
  await control.updateComplete;
  const error = inside(control, '#error');
  return error.hidden ? '' : (error.textContent ?? '').trim();
}

/** An upload function that fails as a host's would (its server refused the file). */
const failingUpload: UploadFunction = async () => {
  throw new Error('the server refused it (507)');
};

/** An upload that answers a URL the session refuses (larger than a value may be), though the control's type check passes. */
const hugeUrlUpload: UploadFunction = async () => `https://cdn.example/${'a'.repeat(300_000)}.png`;

async function openOverlay(harness: EditorHarness, path: readonly string[]): Promise<Control> {
  await harness.probe.command('presentControl', path, { position: { x: 40, y: 40 } });
  await waitUntil(() => JSON.stringify(harness.editor.openControlPath) === JSON.stringify(path), `the overlay of ${path.join('.')}`);
  await harness.editor.updateComplete;
  const control = controlOf(harness.editor, path, 'overlay') as Control;
  await control.updateComplete;
  return control;
}

describe('<platform-editor> status line and field errors go stale no more', () => {
  let harness: EditorHarness;
  afterEach(() => harness?.dispose());

  it('a value the template sends at a malformed path (segments that are objects, one with a toString of its own) is reported with its code', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    const reported: { code: string; path?: readonly string[] }[] = [];
    editor.addEventListener('platform-editor-error', (event) => {
      const { error, path } = (event as CustomEvent<{ error: { code: string }; path?: readonly string[] }>).detail;
      reported.push(path ? { code: error.code, path } : { code: error.code });
    });
    for (const path of [[{ toString: 'content' }, 'title'], ['content', { valueOf: 1 }], 'content.title']) {
      const reply = await probe.command('raw', 'setValue', [path, 'x']);
      expect((reply.value as { code?: string }).code, JSON.stringify(path)).to.equal('INVALID_PATH');
    }
    await waitUntil(() => reported.length === 3, 'three reported refusals');
    expect(reported.map((report) => report.code)).to.deep.equal(['INVALID_PATH', 'INVALID_PATH', 'INVALID_PATH']);
    expect(statusLine(editor)).to.match(/refused/);
    expect(editor.session?.get(['content', 'title'])).to.not.equal('x');
  });

  it('a refused value from the template shows in the status line until the next accepted change of that path', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    await probe.command('setValue', ['content', 'size'], 'huge');
    await waitUntil(() => /refused/.test(statusLine(editor)), 'the refusal in the status line');
    // A change of another path leaves it (it is still true of content.size)…
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'title']), 'input'), 'Other');
    await editor.updateComplete;
    expect(statusLine(editor)).to.match(/refused/);
    // …the accepted value of content.size clears it.
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'size']), '#number'), '20');
    await waitUntil(() => editor.session?.get(['content', 'size']) === 20, 'the fixed value');
    await editor.updateComplete;
    expect(statusLine(editor)).to.equal('');
  });

  it('the status line clears when switching to Preview and back', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    await probe.command('setValue', ['content', 'size'], 'huge');
    await waitUntil(() => /refused/.test(statusLine(editor)), 'the refusal in the status line');
    editor.setRemixing(false);
    await editor.updateComplete;
    expect(statusLine(editor), 'in Preview').to.equal('');
    await probe.command('setValue', ['content', 'size'], 'huge again');
    await waitUntil(() => /refused/.test(statusLine(editor)), 'a refusal during Preview');
    editor.setRemixing(true);
    await editor.updateComplete;
    expect(statusLine(editor), 'back to remixing').to.equal('');
  });

  it('an upload the session refuses shows under the field and in the status line; a later good upload clears both', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor } = harness;
    const photo = controlOf(editor, ['content', 'photo']) as Control;
    editor.upload = hugeUrlUpload;
    await editor.updateComplete;
    expect(await photo.uploadFile?.(pngFile('huge.png'))).to.equal(true);
    expect(await errorUnder(photo)).to.match(/too large|bytes/i);
    expect(statusLine(editor)).to.match(/too large|bytes/i);
    editor.upload = testUpload;
    await editor.updateComplete;
    expect(await photo.uploadFile?.(pngFile('good.png'))).to.equal(true);
    await editor.updateComplete;
    expect(String(editor.session?.get(['content', 'photo']))).to.match(/good\.png$/);
    expect(await errorUnder(photo)).to.equal('');
    expect(statusLine(editor)).to.equal('');
  });

  it("a failed upload in the panel, then a good one in the overlay: the panel's error goes too (and the other way round)", async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor } = harness;
    const panelPhoto = controlOf(editor, ['content', 'photo']) as Control;
    editor.upload = failingUpload;
    await editor.updateComplete;
    expect(await panelPhoto.uploadFile?.(pngFile('bad.png'))).to.equal(false);
    expect(await errorUnder(panelPhoto)).to.match(/refused it/);

    editor.upload = testUpload;
    await editor.updateComplete;
    const overlayPhoto = await openOverlay(harness, ['content', 'photo']);
    expect(await overlayPhoto.uploadFile?.(pngFile('good.png'))).to.equal(true);
    await editor.updateComplete;
    expect(await errorUnder(panelPhoto), 'the panel after the overlay succeeded').to.equal('');

    editor.upload = failingUpload;
    await editor.updateComplete;
    expect(await overlayPhoto.uploadFile?.(pngFile('bad2.png'))).to.equal(false);
    expect(await errorUnder(overlayPhoto)).to.match(/refused it/);
    editor.upload = testUpload;
    await editor.updateComplete;
    expect(await panelPhoto.uploadFile?.(pngFile('good2.png'))).to.equal(true);
    await editor.updateComplete;
    expect(await errorUnder(overlayPhoto), 'the overlay after the panel succeeded').to.equal('');
  });

  it('a deep field (an image inside an object) opened by onPresentControl: the refused upload, then a good one, leaves no error', async () => {
    harness = await mountEditor({ type: 'instant', template: 'original-template.html' });
    const { editor } = harness;
    const path = ['general', 'reveal', 'image'];
    let image = await openOverlay(harness, path);
    editor.upload = hugeUrlUpload;
    await editor.updateComplete;
    expect(await image.uploadFile?.(pngFile('huge.png'))).to.equal(true);
    await editor.updateComplete;
    expect(await errorUnder(image)).to.match(/too large|bytes/i);
    editor.upload = testUpload;
    await editor.updateComplete;
    expect(await image.uploadFile?.(pngFile('reveal.png'))).to.equal(true);
    await editor.updateComplete;
    expect(String((editor.session?.get(['general', 'reveal']) as Record<string, unknown>)['image'])).to.match(/reveal\.png$/);
    expect(await errorUnder(image)).to.equal('');
    expect(statusLine(editor)).to.equal('');
    // Opened again, the field still shows no error.
    editor.closeControl();
    image = await openOverlay(harness, path);
    expect(await errorUnder(image)).to.equal('');
  });
});
