/**
 * The Editor pane: the kit's <platform-editor> twice, at the window's size and in a 390 × 844
 * phone frame, with one remix between them (an edit in either shows in both), the line that
 * says the last good customization is in use, and Finish, which publishes the remix locally.
 */
import type { PlatformEditor } from 'platform-kit/host';
import type { Checks } from './checks.js';
import { brief, type WorkbenchLog } from './log.js';
import type { ProblemOverlay } from './overlay.js';
import { frameUrl, identityFor, type DevRemix, type WorkbenchState } from './state.js';

/** How long a template has to call ready() and load() before the checks say it did not. */
const CALL_WAIT_MS = 6_000;

export function startEditorPane(
  pane: HTMLElement,
  state: WorkbenchState,
  parts: { log: WorkbenchLog; checks: Checks; overlay: ProblemOverlay; published: (remix: DevRemix) => void },
): void {
  const desktop = column(pane, 'frame', 'Editor');
  const phone = column(pane, 'phone-column', 'Phone · 390 × 844');
  const stale = document.createElement('p');
  parts.overlay.addStaleLine(stale);
  desktop.querySelector('h2')?.after(stale);
  const editors = [editorIn(desktop, state, 'editor'), editorIn(phoneFrame(phone), state, 'editor-phone')];
  let mirroring = false;
  editors.forEach((editor, index) => {
    const other = editors[1 - index]!;
    const name = index === 0 ? 'editor' : 'phone';
    editor.addEventListener('platform-value-change', ({ detail }) => {
      if (mirroring) return;
      parts.log.add(name, `value ${detail.path.join('.')} = ${brief(detail.value)} (${detail.source})`);
      // One remix in two editors: the other shows the same value.
      mirroring = true;
      try {
        other.session?.setValue(detail.path, detail.value);
      } catch {
        // The other editor's template is not linked yet; it starts from the same values anyway.
      } finally {
        mirroring = false;
      }
    });
    editor.addEventListener('platform-control-open', ({ detail }) => parts.log.add(name, `presentControl ${detail.path.join('.')}`));
    editor.addEventListener('platform-editor-error', ({ detail }) => parts.log.add(name, `error ${detail.error.code}: ${detail.error.message}`));
    editor.addEventListener('platform-finish', () => {
      parts.log.add(name, 'finish');
      const values = editor.session?.overrides ?? {};
      void fetch('/__platform/remixes', { method: 'POST', body: JSON.stringify({ values }) })
        .then((response) => (response.ok ? (response.json() as Promise<DevRemix>) : Promise.reject(new Error(`publish answered ${response.status}`))))
        .then(parts.published, (error: unknown) => parts.log.add(name, `publish failed: ${String(error)}`));
    });
  });
  watchCalls(editors[0]!, parts);
}

function column(pane: HTMLElement, className: string, title: string): HTMLElement {
  const element = document.createElement('div');
  element.className = className;
  const heading = document.createElement('h2');
  heading.textContent = title;
  element.append(heading);
  pane.append(element);
  return element;
}

function phoneFrame(column: HTMLElement): HTMLElement {
  const frame = document.createElement('div');
  frame.className = 'phone';
  column.append(frame);
  return frame;
}

function editorIn(container: HTMLElement, state: WorkbenchState, frame: string): PlatformEditor {
  const editor = document.createElement('platform-editor');
  Object.assign(editor, { type: 'full', src: frameUrl(state, frame, 'remix'), templateProjectId: state.projectId, noDrafts: true, templateTitle: 'Your template' });
  editor.getIdentityToken = identityFor(0);
  if (frame === 'editor-phone') editor.layout = 'compact';
  container.append(editor);
  return editor;
}

/** ready() and load() of the desktop editor's template, as the checks need them. */
function watchCalls(editor: PlatformEditor, parts: { log: WorkbenchLog; checks: Checks }): void {
  const start = (): void => {
    const frame = editor.frame;
    if (!frame) return void requestAnimationFrame(start);
    frame.on('link', ({ relinked }) => {
      parts.log.add('editor', relinked ? 'the template reloaded and linked again' : 'linked');
      setTimeout(() => {
        if (frame.state !== 'ready' && parts.checks.state('ready') !== 'ok')
          parts.checks.warn('ready', `not called within ${CALL_WAIT_MS / 1000} s: an editor shows no values or controls`);
        if (parts.checks.state('load') !== 'ok') parts.checks.warn('load', `not called within ${CALL_WAIT_MS / 1000} s: a feed skips this template`);
      }, CALL_WAIT_MS);
    });
    frame.on('ready', () => {
      parts.log.add('editor', 'ready()');
      parts.checks.pass('ready');
    });
    frame.on('load', () => {
      parts.log.add('editor', 'load()');
      parts.checks.pass('load');
    });
  };
  start();
}
