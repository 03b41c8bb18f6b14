// The editor page: <platform-editor> on one template (`?template=`), starting
// from a published remix when `?from=` names one. Uploads go to the project
// CDN and secrets to the keystore, through the demo server. Finish publishes
// the remix's values as a new feed item and opens the feed on it.
import { defineHostElements, PlatformEditor, type ValueOverrides } from 'platform-kit/host';
import { DEMO_PROJECT_ID } from '../catalog.js';
import { demoApi, findTemplate, templateUrl } from './shared.js';

defineHostElements();
const params = new URLSearchParams(location.search);
const template = findTemplate(params.get('template')) ?? findTemplate('greeting')!;
const from = params.get('from');
const status = document.querySelector<HTMLElement>('.status')!;
const parent = from ? await demoApi.remix(from).catch(() => null) : null;

const editor = new PlatformEditor();
editor.type = 'full';
editor.mode = 'new';
editor.projectId = DEMO_PROJECT_ID;
// One draft per template and starting point: an unfinished remix is there again after a reload.
editor.remixId = `${template.id}-${parent?.id ?? 'template'}`;
editor.templateTitle = template.title;
if (parent && parent.template === template.id) editor.values = parent.values as ValueOverrides;
editor.upload = async (file, { onProgress, signal }) => {
  onProgress(0);
  const { url } = await demoApi.upload(file, signal);
  onProgress(1);
  return url;
};
editor.storeSecret = async (value) => (await demoApi.storeSecret(value)).keyPath;
editor.src = templateUrl(template.id, { context: 'remix' });
document.querySelector('.editor-stage')!.append(editor);
document.title = `Remix ${template.title} · Platform Kit demo`;

editor.addEventListener('platform-editor-ready', () => {
  status.textContent = `Remixing ${template.title}${parent ? ` (from "${parent.title}")` : ''}: click a part of the template, or use the panel`;
  document.body.dataset['ready'] = 'true';
});
editor.addEventListener('platform-editor-error', (event) => {
  status.textContent = event.detail.error.message.replace(/^platform-kit: /, '');
});
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
  for (const [scope, key] of [['card', 'title'], ['board', 'title'], ['station', 'name'], ['vault', 'label']] as const) {
    const value = values[scope]?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return `${template.title} (remix)`;
}
