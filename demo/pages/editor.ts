// The editor page: <platform-editor> on one template (`?template=`), starting
// from a published remix when `?from=` names one. Uploads go to the project
// CDN and secrets to the keystore, through the demo server. Finish publishes
// the remix's values as a new feed item and opens the feed on it.
import { defineHostElements, PlatformEditor, type ValueOverrides } from 'platform-kit/host';
import { DEMO_PROJECT_ID, DEMO_TEMPLATES, type DemoTemplate, type PublishedRemix } from '../catalog.js';
import { demoApi, demoIdentity, editorUrl, findTemplate, templateUrl } from './shared.js';

defineHostElements();
const params = new URLSearchParams(location.search);
const status = document.querySelector<HTMLElement>('.status')!;
const requested = params.get('template') ?? 'greeting';
const from = params.get('from');
const template = findTemplate(requested);
const parent = from ? await demoApi.remix(from).catch(() => null) : null;
// A link that names something missing says so: opening something else in its place would
// leave the user editing what they did not ask for.
const problem = linkProblem();
if (problem) showProblem(problem);
else if (template) openEditor(template, parent);

type Link = readonly [label: string, href: string];

function linkProblem(): { text: string; offer: string; links: readonly Link[] } | null {
  if (!template) {
    return { text: `There is no template "${requested}".`, offer: 'Remix one of these:', links: DEMO_TEMPLATES.map((entry): Link => [entry.title, editorUrl(entry.id)]) };
  }
  if (from && !parent) {
    return {
      text: `There is no published remix "${from}" (removed, or the link is wrong).`,
      offer: 'Start from the template instead:',
      links: [[template.title, editorUrl(template.id)]],
    };
  }
  if (parent && parent.template !== template.id) {
    const itsTemplate = findTemplate(parent.template)?.title ?? parent.template;
    return {
      text: `The remix "${parent.title}" is of ${itsTemplate}, not of ${template.title}.`,
      offer: 'Open it with its own template:',
      links: [[parent.title, editorUrl(parent.template, parent.id)]],
    };
  }
  return null;
}

/** Says why nothing opens, with links to what can. */
function showProblem({ text, offer, links }: { text: string; offer: string; links: readonly Link[] }): void {
  status.textContent = text;
  document.title = 'Not found · Platform Kit demo';
  const notice = document.createElement('section');
  notice.className = 'notice';
  notice.setAttribute('role', 'alert');
  const list = document.createElement('ul');
  for (const [label, href] of links) {
    const item = document.createElement('li');
    item.append(Object.assign(document.createElement('a'), { href, textContent: label }));
    list.append(item);
  }
  notice.append(Object.assign(document.createElement('h1'), { textContent: text }), Object.assign(document.createElement('p'), { textContent: offer }), list);
  document.querySelector('.editor-stage')!.append(notice);
}

function openEditor(template: DemoTemplate, parent: PublishedRemix | null): void {
  const editor = new PlatformEditor();
  editor.type = 'full';
  editor.mode = 'new';
  editor.projectId = DEMO_PROJECT_ID;
  // One draft per template and starting point: an unfinished remix is there again after a reload.
  editor.remixId = `${template.id}-${parent?.id ?? 'template'}`;
  editor.templateTitle = template.title;
  if (parent) editor.values = parent.values as ValueOverrides;
  editor.upload = async (file, { onProgress, signal }) => {
    onProgress(0);
    const { url } = await demoApi.upload(file, signal);
    onProgress(1);
    return url;
  };
  editor.storeSecret = async (value) => (await demoApi.storeSecret(value)).keyPath;
  editor.getIdentityToken = demoIdentity;
  // Preview shows what the backend will see: the values being edited are those of a previewed
  // remix, which the template names as it names a published one (`?remix=`), and which the
  // demo server forwards to the template's backend, signed, as the platform does.
  const previewId = `preview-${crypto.randomUUID()}`;
  const sendPreview = previewSender(previewId, template.id, () => editor.session?.overrides);
  editor.addEventListener('platform-value-change', sendPreview);
  editor.addEventListener('platform-editor-ready', sendPreview);
  editor.src = templateUrl(template.id, { context: 'remix', remix: previewId });
  document.querySelector('.editor-stage')!.append(editor);
  document.title = `Remix ${template.title} · Platform Kit demo`;

  // The header says what is true now: an error shows until the next accepted change or a
  // switch between editing and Preview, not for the rest of the session.
  // A phone's header has two short lines for it: the title, not the instructions (Customize is in sight below).
  const editingText = (): string =>
    `Remixing ${template.title}${parent ? ` (from "${parent.title}")` : ''}${editor.compact ? '' : ': click a part of the template, or use the panel'}`;
  const showState = (): void => {
    status.textContent =
      editor.session?.remixing === false ? (editor.compact ? `Preview of your ${template.title}` : `Preview of your ${template.title}: as viewers will see it`) : editingText();
    delete status.dataset['error'];
  };
  editor.addEventListener('platform-editor-ready', () => {
    showState();
    document.body.dataset['ready'] = 'true';
  });
  editor.addEventListener('platform-editor-error', (event) => {
    status.textContent = event.detail.error.message.replace(/^platform-kit: /, '');
    status.dataset['error'] = 'true';
  });
  editor.addEventListener('platform-value-change', showState);
  editor.addEventListener('platform-remixing-change', showState);
  editor.addEventListener('platform-finish', () => {
    void publish();
  });

  async function publish(): Promise<void> {
    const session = editor.session;
    if (!session) return;
    status.textContent = 'Publishing…';
    try {
      const values = session.overrides;
      const remix = await demoApi.publish({ template: template.id, title: titleOf(values), values, parent: parent?.id ?? null });
      await editor.discardDraft();
      location.href = `/?item=${encodeURIComponent(remix.id)}`;
    } catch (error) {
      status.textContent = `Not published: ${(error as Error).message}`;
      editor.setRemixing(true);
    }
  }

  /** A title for the feed: the remix's own headline when the template has one. */
  function titleOf(values: ValueOverrides): string {
    for (const [scope, key] of [
      ['card', 'title'],
      ['board', 'title'],
      ['station', 'name'],
      ['vault', 'label'],
    ] as const) {
      const value = values[scope]?.[key];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    }
    return `${template.title} (remix)`;
  }
}

/**
 * Sends the current values as preview `id` after each change: one request at a time, and
 * the newest values after it when more changes came meanwhile (typing sends a few, not one a key).
 */
function previewSender(id: string, template: string, values: () => ValueOverrides | undefined): () => void {
  let sending = false;
  let again = false;
  return () => {
    if (sending) {
      again = true;
      return;
    }
    sending = true;
    void (async () => {
      do {
        again = false;
        const current = values();
        if (current) await demoApi.preview(id, { template, values: current }).catch((error: unknown) => console.warn('platform-kit demo: the preview values were not sent', error));
      } while (again);
      sending = false;
    })();
  };
}
