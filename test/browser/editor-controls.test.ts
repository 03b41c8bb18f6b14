import { expect } from '@esm-bundle/chai';
import type { PlatformEditor } from '../../host/index.js';
import { controlOf, inside, keystore, mountEditor, templateSaw, typeInto, uploadCalls, uploadGate, type EditorHarness } from './support/editor.js';
import { HOST_ORIGIN, sleep, waitUntil } from './support/probe.js';

type Control = HTMLElement & { updateComplete: Promise<boolean>; uploadFile?: (file: File) => Promise<boolean> };

/** One VCC type: how the user edits it, what the template must get, and a value the template sends back. */
interface Case {
  readonly kind: string;
  readonly path: readonly string[];
  edit(control: Control, editor: PlatformEditor): Promise<void> | void;
  readonly expected: unknown;
  /** A value the template sets; the control must then show it. */
  readonly fromTemplate: unknown;
  shown(control: Control): unknown;
}

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const uploaded = (name: string) => new RegExp(`^${HOST_ORIGIN}/__editor/upload/\\d+-${name.replace('.', '\\.')}$`);

function media(kind: string, key: string, file: File): Case {
  return {
    kind,
    path: ['content', key],
    async edit(control) {
      expect(await control.uploadFile?.(file)).to.equal(true);
    },
    expected: uploaded(file.name),
    // A URL that exists, so the preview loads without a 404.
    fromTemplate: `${HOST_ORIGIN}/test/fixtures/editor/template.html?${key}`,
    shown: (control) => inside(control, '#preview').getAttribute(kind === 'file' ? 'href' : 'src'),
  };
}

const CASES: Case[] = [
  {
    kind: 'text',
    path: ['content', 'title'],
    edit: (control) => typeInto(inside<HTMLInputElement>(control, 'input'), 'Hi there'),
    expected: 'Hi there',
    fromTemplate: 'From template',
    shown: (control) => inside<HTMLInputElement>(control, 'input').value,
  },
  {
    kind: 'textarea',
    path: ['content', 'body'],
    edit: (control) => typeInto(inside<HTMLTextAreaElement>(control, 'textarea'), 'Line one\nLine two'),
    expected: 'Line one\nLine two',
    fromTemplate: 'Back\nagain',
    shown: (control) => inside<HTMLTextAreaElement>(control, 'textarea').value,
  },
  {
    kind: 'range',
    path: ['content', 'size'],
    edit: (control) => typeInto(inside<HTMLInputElement>(control, '#number'), '35'),
    expected: 35,
    fromTemplate: 80,
    shown: (control) => inside<HTMLInputElement>(control, '#slider').valueAsNumber,
  },
  {
    kind: 'boolean',
    path: ['content', 'visible'],
    edit: (control) => inside<HTMLInputElement>(control, 'input').click(),
    expected: false,
    fromTemplate: true,
    shown: (control) => inside<HTMLInputElement>(control, 'input').checked,
  },
  {
    kind: 'color',
    path: ['style', 'accent'],
    edit: (control) => typeInto(inside<HTMLInputElement>(control, '#input'), 'rgb(0, 128, 255)'),
    expected: 'rgb(0, 128, 255)',
    fromTemplate: 'hsla(120, 50%, 40%, 0.5)',
    shown: (control) => inside<HTMLInputElement>(control, '#input').value,
  },
  {
    kind: 'select',
    path: ['style', 'layout'],
    edit: (control) => typeInto(inside<HTMLSelectElement>(control, 'select'), 'cards'),
    expected: 'cards',
    fromTemplate: 'list',
    shown: (control) => inside<HTMLSelectElement>(control, 'select').value,
  },
  media('image', 'photo', new File([png], 'photo.png', { type: 'image/png' })),
  media('sound', 'chime', new File([new Uint8Array(64)], 'chime.wav', { type: 'audio/wav' })),
  media('video', 'clip', new File([new Uint8Array(64)], 'clip.webm', { type: 'video/webm' })),
  media('file', 'attachment', new File(['hello'], 'notes.txt', { type: 'text/plain' })),
  {
    kind: 'secret',
    path: ['content', 'apiKey'],
    async edit(control) {
      inside<HTMLInputElement>(control, 'input').value = 'sk-very-secret';
      inside<HTMLButtonElement>(control, '#store').click();
      await waitUntil(() => keystore.size > 0, 'the keystore call');
    },
    expected: /^platform-keystore:\/\/test\/content\.apiKey\/\d+$/,
    fromTemplate: 'platform-keystore://other/key',
    shown: (control) => inside(control, '#status').textContent?.replace('Stored as ', ''),
  },
  {
    kind: 'array',
    path: ['content', 'tags'],
    async edit(control) {
      inside<HTMLButtonElement>(control, '#add').click();
      await waitUntil(() => control.shadowRoot?.querySelectorAll('li').length === 2, 'a second item');
      const second = control.shadowRoot?.querySelector('li[data-index="1"] [data-kind]') as Control;
      await second.updateComplete;
      typeInto(inside<HTMLInputElement>(second, 'input'), 'b');
    },
    expected: ['a', 'b'],
    fromTemplate: ['x', 'y', 'z'],
    shown: (control) => [...(control.shadowRoot?.querySelectorAll('li [data-kind]') ?? [])].map((item) => inside<HTMLInputElement>(item, 'input').value),
  },
  {
    kind: 'object',
    path: ['content', 'author'],
    edit: (control) => typeInto(inside<HTMLInputElement>(control.shadowRoot?.querySelector('[data-key="name"] [data-kind]') as Element, 'input'), 'Bob'),
    expected: { name: 'Bob', age: 30 },
    fromTemplate: { name: 'Cy', age: 40 },
    shown: (control) => ({
      name: inside<HTMLInputElement>(control.shadowRoot?.querySelector('[data-key="name"] [data-kind]') as Element, 'input').value,
      age: inside<HTMLInputElement>(control.shadowRoot?.querySelector('[data-key="age"] [data-kind]') as Element, '#number').valueAsNumber,
    }),
  },
  {
    kind: 'unknown',
    path: ['content', 'extra'],
    edit: (control) => typeInto(inside<HTMLTextAreaElement>(control, 'textarea'), '{"x": 4, "y": 5, "z": 6}'),
    expected: { x: 4, y: 5, z: 6 },
    fromTemplate: { x: 7, y: 8, z: 9 },
    shown: (control) => JSON.parse(inside<HTMLTextAreaElement>(control, 'textarea').value) as unknown,
  },
];

function matches(actual: unknown, expected: unknown): boolean {
  return expected instanceof RegExp ? typeof actual === 'string' && expected.test(actual) : JSON.stringify(actual) === JSON.stringify(expected);
}

describe('<platform-editor> controls, against a cross-origin template', () => {
  let harness: EditorHarness;
  afterEach(() => harness?.dispose());

  it('draws one control per VCC of the template, grouped by scope, labelled', async () => {
    harness = await mountEditor({ type: 'full' });
    const root = harness.editor.shadowRoot as ShadowRoot;
    expect([...root.querySelectorAll('.panel h2')].map((heading) => heading.textContent)).to.deep.equal(['Content', 'Style']);
    const kinds = [...root.querySelectorAll('.panel [data-kind]')].map((control) => control.getAttribute('data-kind'));
    expect(kinds).to.deep.equal(['text', 'textarea', 'range', 'boolean', 'image', 'sound', 'video', 'file', 'secret', 'array', 'object', 'unknown', 'color', 'select']);
    for (const control of root.querySelectorAll<Control>('.panel [data-kind]')) {
      await control.updateComplete;
      // Every control's inputs have an accessible name: a label, a legend or an aria-label.
      for (const input of control.shadowRoot?.querySelectorAll<HTMLElement>('input:not([type=file]), textarea, select, button') ?? []) {
        const id = input.id;
        const labelled =
          input.hasAttribute('aria-label') ||
          (id !== '' && control.shadowRoot?.querySelector(`label[for="${id}"]`) !== null) ||
          (input.tagName === 'BUTTON' && (input.textContent ?? '').trim() !== '');
        expect(labelled, `${control.getAttribute('data-kind')} ${input.tagName} #${id}`).to.equal(true);
      }
    }
  });

  it('every control type edits a value that reaches the template, and a value from the template comes back', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    for (const testCase of CASES) {
      const control = controlOf(editor, testCase.path) as Control;
      await control.updateComplete;
      await testCase.edit(control, editor);
      await waitUntil(
        () => probe.of('valueChanged').some((change) => JSON.stringify(change['path']) === JSON.stringify(testCase.path) && matches(change['value'], testCase.expected)),
        `the template to get the ${testCase.kind} edit`,
      );
      const inTemplate = (await probe.command('get', testCase.path)).value;
      expect(matches(inTemplate, testCase.expected), `${testCase.kind}: template get() = ${JSON.stringify(inTemplate)}`).to.equal(true);
      expect(matches(editor.session?.get(testCase.path), testCase.expected), `${testCase.kind} in the session`).to.equal(true);

      const back = await probe.command('setValue', testCase.path, testCase.fromTemplate);
      expect(back.ok, `${testCase.kind}: ${JSON.stringify(back.value)}`).to.equal(true);
      await waitUntil(
        () => matches(testCase.shown(controlOf(editor, testCase.path) as Control), testCase.fromTemplate),
        `the ${testCase.kind} control to show the template's value`,
      );
    }
    // The secret itself never reached the template, the session or anything stored.
    expect(JSON.stringify(probe.reports)).to.not.include('sk-very-secret');
    expect(JSON.stringify(editor.session?.overrides)).to.not.include('sk-very-secret');
    expect([...keystore.values()]).to.include('sk-very-secret');
  });

  it('an unknown VCC type gets the JSON fallback, which refuses text that is not JSON', async () => {
    harness = await mountEditor({ type: 'full' });
    const control = controlOf(harness.editor, ['content', 'extra']) as Control;
    expect(control.tagName.toLowerCase()).to.equal('platform-json-control');
    typeInto(inside<HTMLTextAreaElement>(control, 'textarea'), '{"x": ');
    await control.updateComplete;
    expect(inside(control, '#error').textContent).to.match(/not valid JSON/);
    expect(harness.editor.session?.get(['content', 'extra'])).to.deep.equal({ x: 1, y: 2, z: 3 });
  });

  it('a control refuses input of the wrong shape and keeps the last good value', async () => {
    harness = await mountEditor({ type: 'full' });
    const color = controlOf(harness.editor, ['style', 'accent']) as Control;
    typeInto(inside<HTMLInputElement>(color, '#input'), 'not-a-color');
    await color.updateComplete;
    expect(inside(color, '#error').textContent).to.match(/color/);
    expect(inside<HTMLInputElement>(color, '#input').getAttribute('aria-invalid')).to.equal('true');
    expect(harness.editor.session?.get(['style', 'accent'])).to.equal('#ff0000');
    expect(harness.errors.some((error) => error.code === 'INVALID_VALUE')).to.equal(true);
    // The format list converts; the swatch and alpha keep working.
    typeInto(inside<HTMLSelectElement>(color, '#format'), 'hsl');
    await waitUntil(() => harness.editor.session?.get(['style', 'accent']) === 'hsl(0, 100%, 50%)', 'hsl conversion');
    typeInto(inside<HTMLInputElement>(color, '#alpha'), '0.5');
    await templateSaw(harness.probe, ['style', 'accent'], 'hsla(0, 100%, 50%, 0.5)');
  });

  it('a value of the wrong type from the template is refused with a clear error; the last good value stays', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    const reply = await probe.command('setValue', ['content', 'size'], 'huge');
    expect(reply.ok).to.equal(false);
    expect((reply.value as { code: string }).code).to.equal('INVALID_VALUE');
    expect((reply.value as { message: string }).message).to.match(/must be a number for a range VCC/);
    await waitUntil(() => harness.errors.length > 0, 'an editor error');
    expect(harness.errors[0]).to.deep.include({ code: 'INVALID_VALUE', path: ['content', 'size'] });
    expect(harness.errors[0]?.message).to.match(/content\.size must be a number/);
    expect(editor.session?.get(['content', 'size'])).to.equal(10);
    expect((await probe.command('get', ['content', 'size'])).value).to.equal(10);
    expect(inside<HTMLInputElement>(controlOf(editor, ['content', 'size']), '#number').valueAsNumber).to.equal(10);
    expect(editor.shadowRoot?.querySelector('.status')?.textContent).to.match(/refused/);
  });

  it('a skipUpdate edit from the template updates the control but is not echoed to the template', async () => {
    harness = await mountEditor({ type: 'full' });
    const { editor, probe } = harness;
    await probe.command('setValue', ['content', 'title'], 'typed in template', true);
    await waitUntil(() => inside<HTMLInputElement>(controlOf(editor, ['content', 'title']), 'input').value === 'typed in template', 'the control to show it');
    await sleep(50);
    expect(probe.of('valueChanged')).to.deep.equal([]);
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'title']), 'input'), 'typed in editor');
    await templateSaw(probe, ['content', 'title'], 'typed in editor');
  });

  it('media: type and size are checked before upload; progress and a preview show while it uploads; a dropped file uploads', async () => {
    harness = await mountEditor({ type: 'full' });
    const photo = controlOf(harness.editor, ['content', 'photo']) as Control;
    const callsBefore = uploadCalls.length;
    expect(await photo.uploadFile?.(new File(['gif'], 'a.gif', { type: 'image/gif' }))).to.equal(false);
    await photo.updateComplete;
    expect(inside(photo, '#error').textContent).to.match(/a\.gif is image\/gif; Photo takes image\/png, image\/jpeg/);
    expect(await photo.uploadFile?.(new File([new Uint8Array(100001)], 'big.png', { type: 'image/png' }))).to.equal(false);
    await photo.updateComplete;
    // Sizes in decimal units, as browsers and file managers print them (100,001 bytes is 100 kB).
    expect(inside(photo, '#error').textContent).to.match(/big\.png is 100 kB; Photo takes up to 100 kB/);
    expect(uploadCalls.length, 'no upload for a refused file').to.equal(callsBefore);

    let release!: () => void;
    uploadGate.hold = new Promise<void>((resolve) => (release = resolve));
    const done = photo.uploadFile?.(new File([png], 'held.png', { type: 'image/png' }));
    await waitUntil(() => photo.shadowRoot?.querySelector('progress') !== null, 'the progress bar');
    expect(inside<HTMLProgressElement>(photo, 'progress').value).to.equal(0.25);
    expect(inside<HTMLImageElement>(photo, '#preview').src).to.match(/^blob:/);
    uploadGate.hold = null;
    release();
    expect(await done).to.equal(true);
    await photo.updateComplete;
    expect(photo.shadowRoot?.querySelector('progress')).to.equal(null);
    expect(inside<HTMLImageElement>(photo, '#preview').src).to.match(uploaded('held.png'));

    const transfer = new DataTransfer();
    transfer.items.add(new File([png], 'dropped.png', { type: 'image/png' }));
    inside(photo, '.drop').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true, composed: true }));
    await waitUntil(() => uploaded('dropped.png').test(String(harness.editor.session?.get(['content', 'photo']))), 'the dropped file to upload');
    // The template can load what was uploaded.
    await waitUntil(() => harness.probe.of('valueChanged').some((change) => uploaded('dropped.png').test(String(change['value']))), 'the template to get it');
    const response = await fetch(String(harness.editor.session?.get(['content', 'photo'])));
    expect(new Uint8Array(await response.arrayBuffer())).to.deep.equal(png);
  });

  it('array: add, remove and reorder within min and max', async () => {
    harness = await mountEditor({ type: 'full' });
    const session = harness.editor.session;
    const tags = controlOf(harness.editor, ['content', 'tags']) as Control;
    const settle = () => tags.updateComplete.then(() => sleep(20));
    expect(inside<HTMLButtonElement>(tags, 'button.remove').disabled, 'min 1').to.equal(true);
    inside<HTMLButtonElement>(tags, '#add').click();
    await settle();
    inside<HTMLButtonElement>(tags, '#add').click();
    await settle();
    expect(session?.get(['content', 'tags'])).to.deep.equal(['a', '', '']);
    expect(inside<HTMLButtonElement>(tags, '#add').disabled, 'max 3').to.equal(true);
    session?.setValue(['content', 'tags'], ['a', 'b', 'c']);
    await settle();
    (tags.shadowRoot?.querySelector('li[data-index="2"] button.up') as HTMLButtonElement).click();
    await settle();
    expect(session?.get(['content', 'tags'])).to.deep.equal(['a', 'c', 'b']);
    (tags.shadowRoot?.querySelector('li[data-index="0"] button.down') as HTMLButtonElement).click();
    await settle();
    expect(session?.get(['content', 'tags'])).to.deep.equal(['c', 'a', 'b']);
    (tags.shadowRoot?.querySelector('li[data-index="1"] button.remove') as HTMLButtonElement).click();
    await settle();
    expect(session?.get(['content', 'tags'])).to.deep.equal(['c', 'b']);
    await templateSaw(harness.probe, ['content', 'tags'], ['c', 'b']);
  });

  it('finish() from the template and the finish button move to the preview; the toggle goes back', async () => {
    harness = await mountEditor({ type: 'full', mode: 'edit' });
    const { editor, probe } = harness;
    expect(probe.of('remixing')[0]).to.deep.equal({ isRemixing: true, editorAttributes: { type: 'full', mode: 'edit' } });
    let finished = 0;
    editor.addEventListener('platform-finish', () => finished++);
    await probe.command('finish');
    await waitUntil(() => finished === 1, 'platform-finish');
    expect(editor.session?.remixing).to.equal(false);
    await editor.updateComplete;
    const root = editor.shadowRoot as ShadowRoot;
    expect(root.querySelector('#preview')?.getAttribute('aria-pressed')).to.equal('true');
    expect((root.querySelector('#finish') as HTMLButtonElement).disabled).to.equal(true);
    await waitUntil(() => probe.of('remixing').length === 2, 'the template to hear the preview');
    expect(probe.of('remixing')[1]).to.deep.equal({ isRemixing: false, editorAttributes: { type: 'full', mode: 'edit' } });

    (root.querySelector('#remix') as HTMLButtonElement).click();
    await waitUntil(() => probe.of('remixing').length === 3, 'remixing again');
    expect(probe.of('remixing')[2]).to.deep.include({ isRemixing: true });
    await editor.updateComplete;
    (root.querySelector('#finish') as HTMLButtonElement).click();
    await waitUntil(() => finished === 2, 'the finish button');
    await waitUntil(() => probe.of('remixing').length === 4, 'the preview again');
    expect(probe.of('remixing')[3]).to.deep.include({ isRemixing: false });
  });

  it("type 'instant' has no side panel", async () => {
    harness = await mountEditor({ type: 'instant' });
    expect(harness.editor.shadowRoot?.querySelector('.panel')).to.equal(null);
    expect(harness.probe.of('remixing')[0]).to.deep.equal({ isRemixing: true, editorAttributes: { type: 'instant', mode: 'new' } });
  });
});

describe("<platform-editor> under a page's own CSS", () => {
  let harness: EditorHarness | undefined;
  let sheet: HTMLStyleElement | undefined;
  afterEach(() => {
    harness?.dispose();
    sheet?.remove();
  });

  it('keeps its layout when the page sets display: block on it (a common rule for custom elements)', async () => {
    sheet = document.createElement('style');
    sheet.textContent = 'platform-editor { display: block; }';
    document.head.append(sheet);
    for (const layout of ['wide', 'compact'] as const) {
      harness = await mountEditor({ type: 'full', layout, style: 'position: fixed; left: 0; top: 0; width: 800px; height: 600px;' });
      const iframe = harness.editor.frame!.iframe.getBoundingClientRect();
      const bar = harness.editor.shadowRoot!.querySelector('.bar')!.getBoundingClientRect();
      expect(getComputedStyle(harness.editor).display).to.equal('block');
      // The template takes what the bar leaves (a flex layout), not 0 px or its content's height.
      expect(iframe.height, `${layout}: the template's height`).to.be.above(600 - bar.height - 2 - 1);
      expect(bar.bottom <= iframe.top + 1 || bar.top >= iframe.bottom - 1, `${layout}: the bar beside the template`).to.equal(true);
      harness.dispose();
      harness = undefined;
    }
  });
});
