import { expect } from '@esm-bundle/chai';
import { createStore, set } from 'idb-keyval';
import { discardDraft, listDrafts, loadDraft, saveDraft, type PlatformEditor } from '../../host/index.js';
import { controlOf, inside, mountEditor, templateSaw, typeInto, type EditorHarness } from './support/editor.js';
import { Probe, rejectionOf, sleep, waitUntil } from './support/probe.js';

const PROJECT = 'draft-project';
let remixCounter = 0;
const freshRemix = (): string => `remix-${Date.now()}-${++remixCounter}`;

/** The editor in a same-origin host page inside an iframe, so the test can reload that page for real. */
interface HostPage {
  readonly iframe: HTMLIFrameElement;
  editor(): PlatformEditor;
  probe(): Probe;
  reload(): Promise<void>;
  dispose(): void;
}

async function openHostPage(remixId: string): Promise<HostPage> {
  const iframe = document.createElement('iframe');
  iframe.style.cssText = 'width: 900px; height: 600px; border: 0';
  iframe.src = `/test/fixtures/editor/host.html?project=${PROJECT}&remix=${remixId}`;
  document.body.append(iframe);
  let probe: Probe | null = null;
  const editor = (): PlatformEditor => {
    const found = iframe.contentDocument?.querySelector('platform-editor');
    if (!found) throw new Error('the host page has no editor yet');
    return found;
  };
  const whenLoaded = async (): Promise<void> => {
    await waitUntil(() => iframe.contentDocument?.querySelector('platform-editor') != null, 'the host page');
    probe?.dispose();
    // Listening at once: the template may report before the draft is restored or the page has loaded.
    const current = editor();
    probe = new Probe(() => current.frame?.iframe.contentWindow ?? null);
    await current.whenReady();
    // The template called ready(): its listeners are set and what the host queued was sent.
    await waitUntil(() => current.frame?.state === 'ready', 'the template to be ready');
  };
  await whenLoaded();
  return {
    iframe,
    editor,
    probe: () => probe as Probe,
    async reload() {
      const old = iframe.contentDocument;
      iframe.contentWindow?.location.reload();
      await waitUntil(() => iframe.contentDocument !== old && iframe.contentDocument !== null, 'a new document');
      await whenLoaded();
    },
    dispose() {
      probe?.dispose();
      iframe.remove();
    },
  };
}

describe('<platform-editor> drafts (IndexedDB)', () => {
  let harness: EditorHarness | null = null;
  let page: HostPage | null = null;
  afterEach(() => {
    harness?.dispose();
    harness = null;
    page?.dispose();
    page = null;
  });

  it('saves every change within 500 ms of the edit, without a flush', async () => {
    const remixId = freshRemix();
    harness = await mountEditor({ projectId: PROJECT, remixId });
    const input = inside<HTMLInputElement>(controlOf(harness.editor, ['content', 'title']), 'input');
    for (const text of ['D', 'Dr', 'Dra', 'Draf', 'Draft']) {
      typeInto(input, text);
      const editedAt = performance.now();
      let savedAt = 0;
      while (savedAt === 0) {
        const draft = await loadDraft(PROJECT, remixId);
        if (draft?.values['content']?.['title'] === text) savedAt = performance.now();
        else if (performance.now() - editedAt > 2_000) throw new Error(`"${text}" was not saved`);
        else await sleep(5);
      }
      expect(savedAt - editedAt, `"${text}" saved after ${Math.round(savedAt - editedAt)} ms`).to.be.below(500);
    }
  });

  it('restores every value after a real reload of the host page', async () => {
    const remixId = freshRemix();
    page = await openHostPage(remixId);
    const editor = page.editor();
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'title']), 'input'), 'Saved title');
    typeInto(inside<HTMLInputElement>(controlOf(editor, ['content', 'size']), '#number'), '45');
    typeInto(inside<HTMLSelectElement>(controlOf(editor, ['style', 'layout']), 'select'), 'list');
    editor.session?.setValue(['content', 'tags'], ['x', 'y']);
    await sleep(600);
    await page.reload();
    const restored = page.editor();
    expect(restored).to.not.equal(editor);
    expect(restored.session?.get(['content', 'title'])).to.equal('Saved title');
    expect(restored.session?.get(['content', 'size'])).to.equal(45);
    expect(restored.session?.get(['style', 'layout'])).to.equal('list');
    expect(restored.session?.get(['content', 'tags'])).to.deep.equal(['x', 'y']);
    // The template of the new page got them too.
    await templateSaw(page.probe(), ['content', 'title'], 'Saved title');
    expect((await page.probe().command('get', ['content', 'size'])).value).to.equal(45);
    await restored.updateComplete;
    expect(inside<HTMLInputElement>(controlOf(restored, ['content', 'title']), 'input').value).to.equal('Saved title');
  });

  it('a reload in the middle of typing keeps what was typed (saved on pagehide)', async () => {
    const remixId = freshRemix();
    page = await openHostPage(remixId);
    const input = inside<HTMLInputElement>(controlOf(page.editor(), ['content', 'title']), 'input');
    typeInto(input, 'Typed just before');
    // No wait: the save timer has not fired; only the pagehide flush can keep it.
    await page.reload();
    expect(page.editor().session?.get(['content', 'title'])).to.equal('Typed just before');
  });

  it('refuses draft values of the wrong type with INVALID_VALUE and restores the good ones', async () => {
    const remixId = freshRemix();
    await saveDraft(PROJECT, remixId, {
      content: { title: 'Good title', size: 'huge', tags: ['fine'] },
      style: { accent: 'not a color', layout: 'cards' },
      serviceMap: { backend: 'https://evil.example' },
    });
    harness = await mountEditor({ projectId: PROJECT, remixId });
    const start = await harness.editor.whenReady();
    expect(start.restored).to.equal(3);
    expect(start.refused.map((refused) => [refused.path.join('.'), refused.error.code])).to.deep.equal([
      ['content.size', 'INVALID_VALUE'],
      ['style.accent', 'INVALID_VALUE'],
      ['serviceMap.backend', 'INVALID_PATH'],
    ]);
    expect(harness.errors.map((error) => error.code)).to.include.members(['INVALID_VALUE', 'INVALID_PATH']);
    expect(harness.errors.find((error) => error.path?.join('.') === 'content.size')?.message).to.match(/content\.size was not restored: .*must be a number/);
    const session = harness.editor.session;
    expect(session?.get(['content', 'title'])).to.equal('Good title');
    expect(session?.get(['content', 'size'])).to.equal(10);
    expect(session?.get(['style', 'accent'])).to.equal('#ff0000');
    expect(session?.get(['style', 'layout'])).to.equal('cards');
    expect((await harness.probe.command('get', ['serviceMap', 'backend'])).value).to.equal('https://backend.example');
    await templateSaw(harness.probe, ['content', 'title'], 'Good title');
    expect(harness.probe.of('valueChanged').some((change) => change['value'] === 'huge')).to.equal(false);
    // What stays stored is what was restored.
    await harness.editor.flushDraft();
    await sleep(300);
    expect((await loadDraft(PROJECT, remixId))?.values).to.deep.equal({ content: { title: 'Good title', tags: ['fine'] }, style: { layout: 'cards' } });
  });

  it('a stored record that is not a draft is reported and the template starts from its built values', async () => {
    const remixId = freshRemix();
    await set(`${PROJECT}:${remixId}`, { version: 99, values: 'junk' }, createStore('platform-kit', 'drafts'));
    expect((await rejectionOf(loadDraft(PROJECT, remixId))).code).to.equal('INVALID_VALUE');
    harness = await mountEditor({ projectId: PROJECT, remixId });
    expect(harness.errors.some((error) => error.code === 'INVALID_VALUE' && /unreadable/.test(error.message))).to.equal(true);
    expect(harness.editor.session?.get(['content', 'title'])).to.equal('Hello');
  });

  it('lists and discards drafts', async () => {
    const first = freshRemix();
    const second = freshRemix();
    await saveDraft(PROJECT, first, { content: { title: 'one' } });
    await sleep(5);
    await saveDraft(PROJECT, second, { content: { title: 'two', size: 20 } });
    const listed = (await listDrafts()).filter((draft) => draft.remixId === first || draft.remixId === second);
    expect(listed.map((draft) => [draft.remixId, draft.valueCount])).to.deep.equal([
      [second, 2],
      [first, 1],
    ]);
    await discardDraft(PROJECT, first);
    expect(await loadDraft(PROJECT, first)).to.equal(undefined);
    expect((await listDrafts()).some((draft) => draft.remixId === first)).to.equal(false);

    harness = await mountEditor({ projectId: PROJECT, remixId: second });
    expect(harness.editor.session?.get(['content', 'title'])).to.equal('two');
    await harness.editor.discardDraft();
    expect(await loadDraft(PROJECT, second)).to.equal(undefined);
    expect((await rejectionOf(saveDraft('with:colon', 'r', {}))).code).to.equal('INVALID_ARGUMENT');
  });
});
