// The editor-large bench page (http://localhost:PORT/bench/editor-large.html?big=SxF&openFields=N).
// A real <platform-editor type="full"> on a template of the largest legal customization. It
// records every long task of this page (PerformanceObserver 'longtask': tasks over 50 ms) from
// before the element exists, and reports:
//   - readyMs: from appending the element to whenReady() and its first render drawn;
//   - interactiveMs: time to interactive in Lighthouse's sense, shortened: the end of the last
//     long task before a quiet window of QUIET_MS (or readyMs, when that is later);
//   - the longest task up to then.
// ?openFields=N sets panelOpenFields (Infinity: every scope open, still drawn 25 controls a task).
// ?baseline=DIR loads the host from DIR instead, a copy of the code before issue 23 (the bench
// writes it from git): every control drawn in one render, the baseline the issue names.
import type { PlatformEditor } from '../../host/index.js';
import type * as HostIndex from '../../host/index.js';

export interface LoadFigures {
  readonly readyMs: number;
  readonly interactiveMs: number;
  readonly longestTaskMs: number;
  readonly longTasks: number;
  readonly controls: number;
}

export interface OpenFigures {
  /** Click on a closed scope's heading → all its controls in the DOM, drawn (after the next frame). */
  readonly openMs: number;
  readonly longestTaskMs: number;
  readonly controls: number;
}

export interface EditorLargeApi {
  loaded(): Promise<LoadFigures>;
  /** Clicks scope `key`'s heading (a real click from Node would do the same; this one is timed here). */
  open(key: string): Promise<OpenFigures>;
}

declare global {
  interface Window {
    __editorLarge?: EditorLargeApi;
  }
}

const QUIET_MS = 1_000;
const params = new URLSearchParams(location.search);
const tasks: { start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) tasks.push({ start: entry.startTime, end: entry.startTime + entry.duration });
}).observe({ type: 'longtask', buffered: true });

const longest = (from: number, to = Number.POSITIVE_INFINITY): number =>
  tasks.filter((task) => task.end > from && task.start < to).reduce((max, task) => Math.max(max, task.end - task.start), 0);
const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const controls = (editor: PlatformEditor): number => editor.shadowRoot?.querySelectorAll('.panel [data-kind]').length ?? 0;

async function load(): Promise<{ editor: PlatformEditor; figures: LoadFigures }> {
  // Imported here, not at the top: the baseline's copy of the host is another module, chosen by the
  // query. Its .ts by name: the dev server maps a .js specifier to .ts only where it can read it.
  const baseline = params.get('baseline');
  const host = (await import(baseline !== null ? `${baseline}/host/index.ts` : '../../host/index.js')) as typeof HostIndex;
  host.defineHostElements();
  const editor: PlatformEditor = document.createElement('platform-editor');
  const template = new URL('/bench/pages/editor-large-template.html', `http://127.0.0.1:${location.port}`);
  template.searchParams.set('big', params.get('big') ?? '100x5');
  editor.src = template.toString();
  editor.type = 'full';
  editor.layout = params.get('layout') === 'auto' ? 'auto' : 'wide';
  editor.noDrafts = true;
  const openFields = params.get('openFields');
  if (openFields !== null) editor.panelOpenFields = Number(openFields);
  editor.style.height = '100vh';
  const startedAt = performance.now();
  document.body.append(editor);

  await editor.whenReady();
  await editor.updateComplete;
  await frame();
  const readyAt = performance.now();
  // Quiet: no long task has ended within the last QUIET_MS.
  for (;;) {
    const lastEnd = tasks.reduce((max, task) => Math.max(max, task.end), 0);
    if (performance.now() - Math.max(lastEnd, readyAt) >= QUIET_MS) break;
    await sleep(100);
  }
  const lastEnd = tasks.reduce((max, task) => Math.max(max, task.end), 0);
  return {
    editor,
    figures: {
      readyMs: readyAt - startedAt,
      interactiveMs: Math.max(readyAt, lastEnd) - startedAt,
      longestTaskMs: longest(0),
      longTasks: tasks.length,
      controls: controls(editor),
    },
  };
}

const loading = load();
window.__editorLarge = {
  loaded: async () => (await loading).figures,
  async open(key) {
    const { editor } = await loading;
    const button = editor.shadowRoot?.querySelector<HTMLButtonElement>(`.panel section[data-scope='${key}'] h2 button`);
    if (!button) throw new Error(`bench: no scope ${key}`);
    const before = performance.now();
    button.click();
    // Drawn: every control of the scope in the DOM (25 a task), then a frame.
    const fields = (): number => editor.shadowRoot?.querySelectorAll(`.panel section[data-scope='${key}'] [data-kind]`).length ?? 0;
    const total = Number((params.get('big') ?? '100x5').split('x')[1]);
    while (fields() < total) await sleep(0);
    await frame();
    const openMs = performance.now() - before;
    // A long task is reported after it ends; give the observer a moment.
    await sleep(100);
    return { openMs, longestTaskMs: longest(before), controls: controls(editor) };
  },
};
