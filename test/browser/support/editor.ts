/**
 * Test support for the editor suites: mounts a real <platform-editor> on the
 * test page (origin localhost) with the editor fixture template on the
 * second origin (127.0.0.1), and gives the host functions a real host would:
 * an upload that really uploads (XHR to the test server, with progress) and
 * a keystore that keeps secrets in memory and returns key paths.
 */
import { defineHostElements, type PlatformEditor, type UploadFunction, type StoreSecretFunction } from '../../../host/index.js';
import { HOST_ORIGIN, Probe, TEMPLATE_ORIGIN, waitUntil } from './probe.js';

/** URL of the editor fixture template on the template origin. */
export function templateUrl(query: Record<string, string> = {}, file = 'template.html'): string {
  const url = new URL(`/test/fixtures/editor/${file}`, TEMPLATE_ORIGIN);
  url.searchParams.set('parent', HOST_ORIGIN);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}

/** Every upload the test upload function was asked for, in order. */
export const uploadCalls: { name: string; type: string; size: number; path: readonly string[] }[] = [];
/** When set, the upload function reports this fraction and waits for it to resolve before sending. */
export const uploadGate: { hold: Promise<void> | null } = { hold: null };

/** The host's upload function of the tests: a real XHR upload to the test server (test/wtr/editor.mjs). */
export const testUpload: UploadFunction = async (file, { path, onProgress, signal }) => {
  uploadCalls.push({ name: file.name, type: file.type, size: file.size, path });
  onProgress(0.25);
  if (uploadGate.hold) await uploadGate.hold;
  return new Promise<string>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/__editor/upload');
    request.setRequestHeader('content-type', file.type || 'application/octet-stream');
    request.setRequestHeader('x-file-name', file.name);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(0.25 + 0.75 * (event.loaded / event.total));
    };
    request.onload = () => {
      if (request.status !== 200) reject(new Error(`upload failed with ${request.status}`));
      else resolve((JSON.parse(request.responseText) as { url: string }).url);
    };
    request.onerror = () => reject(new Error('upload failed'));
    signal.addEventListener('abort', () => request.abort());
    request.send(file);
  });
};

/** Secrets the test keystore holds (a real host sends them to its backend). */
export const keystore = new Map<string, string>();

/** The host's keystore function of the tests. */
export const testStoreSecret: StoreSecretFunction = async (value, { path }) => {
  const keyPath = `platform-keystore://test/${path.join('.')}/${keystore.size + 1}`;
  keystore.set(keyPath, value);
  return keyPath;
};

/** A mounted editor and a probe of its template. */
export interface EditorHarness {
  readonly editor: PlatformEditor;
  readonly probe: Probe;
  readonly errors: { code: string; message: string; path?: readonly string[] }[];
  dispose(): void;
}

/** Options of {@link mountEditor}. */
export interface MountOptions {
  readonly type?: 'instant' | 'full';
  readonly mode?: 'new' | 'edit';
  readonly projectId?: string;
  readonly remixId?: string;
  readonly query?: Record<string, string>;
  readonly style?: string;
  /** The fixture template's file in test/fixtures/editor/. Default template.html. */
  readonly template?: string;
  /** The editor's layout. Default auto (compact below 720 px of its width). */
  readonly layout?: 'auto' | 'wide' | 'compact';
}

/** Mounts <platform-editor> filling the viewport and waits until it is ready (template described, draft restored). */
export async function mountEditor(options: MountOptions = {}): Promise<EditorHarness> {
  defineHostElements();
  const editor = document.createElement('platform-editor');
  editor.src = templateUrl(options.query, options.template);
  editor.type = options.type ?? 'full';
  editor.mode = options.mode ?? 'new';
  if (options.projectId !== undefined) editor.projectId = options.projectId;
  if (options.remixId !== undefined) editor.remixId = options.remixId;
  if (options.layout !== undefined) editor.layout = options.layout;
  editor.upload = testUpload;
  editor.storeSecret = testStoreSecret;
  editor.setAttribute('style', options.style ?? 'position: fixed; inset: 0; height: 100vh;');
  const errors: EditorHarness['errors'] = [];
  editor.addEventListener('platform-editor-error', (event) => {
    errors.push({ code: event.detail.error.code, message: event.detail.error.message, ...(event.detail.path ? { path: event.detail.path } : {}) });
  });
  document.body.append(editor);
  const probe = new Probe(() => editor.frame?.iframe.contentWindow ?? null);
  await editor.whenReady();
  await probe.waitFor('remixing');
  return {
    editor,
    probe,
    errors,
    dispose() {
      probe.dispose();
      editor.remove();
    },
  };
}

/** The top-level control element of `path` in the side panel (or in the overlay with `where`). */
export function controlOf(editor: PlatformEditor, path: readonly string[], where: 'panel' | 'overlay' = 'panel'): HTMLElement {
  const root = editor.shadowRoot;
  if (!root) throw new Error('the editor has no shadow root');
  const scope = where === 'panel' ? '.panel' : '.overlay';
  const control = root.querySelector<HTMLElement>(`${scope} [data-path='${JSON.stringify(path)}'] [data-kind], ${scope}[data-path='${JSON.stringify(path)}'] [data-kind]`);
  if (!control) throw new Error(`no ${where} control for ${JSON.stringify(path)}`);
  return control;
}

/** An element inside a control's shadow root. */
export function inside<T extends Element = HTMLElement>(control: Element, selector: string): T {
  const found = control.shadowRoot?.querySelector<T & Element>(selector);
  if (!found) throw new Error(`nothing matches ${selector} in ${control.tagName.toLowerCase()}`);
  return found;
}

/** Sets an input's value as typing would and fires input (and change). */
export function typeInto(input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
}

/** Waits until the template reported onValueChanged for `path` with `value`. */
export async function templateSaw(probe: Probe, path: readonly string[], value: unknown, timeoutMs = 5_000): Promise<void> {
  const wanted = JSON.stringify({ path, value });
  await waitUntil(() => probe.of('valueChanged').some((change) => JSON.stringify(change) === wanted), `the template's onValueChanged(${wanted})`, timeoutMs);
}

/** The deepest focused element, through shadow roots. */
export function deepFocus(): Element | null {
  let active: Element | null = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}
