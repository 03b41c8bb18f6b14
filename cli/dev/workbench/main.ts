/**
 * The workbench page (`platform-kit dev`): the template in the kit's real elements (Editor,
 * Feed, Players), the log of what crossed the link, the checks, and the customization overlay,
 * all fed by the dev server's API and its event stream (dev-api.ts).
 */
import { defineHostElements } from 'platform-kit/host';
import { Checks } from './checks.js';
import { startEditorPane } from './editor-pane.js';
import { FeedPane } from './feed-pane.js';
import { WorkbenchLog } from './log.js';
import { ProblemOverlay } from './overlay.js';
import { PlayersPane } from './players-pane.js';
import type { DevRemix, WorkbenchState } from './state.js';

defineHostElements();
const $ = <T extends HTMLElement>(selector: string): T => document.querySelector<T>(selector)!;
const state = (await (await fetch('/__platform/state')).json()) as WorkbenchState;
const log = new WorkbenchLog($<HTMLOListElement>('#log'));
const checks = new Checks($('#checks'), log);
const overlay = new ProblemOverlay($('#overlay'));
const remixes: DevRemix[] = [...state.remixes];
let feed: FeedPane | null = null;
let players: PlayersPane | null = null;

startEditorPane($('#editor-pane'), state, {
  log,
  checks,
  overlay,
  published: (remix) => {
    remixes.push(remix);
    log.add('server', `published ${remix.title}`);
    // The feed shows it: made now if it was never opened, with the remix in it.
    if (feed) feed.published(remix);
    show('feed');
  },
});
overlay.show(state.problems);

/** Panes are made on first view: a feed and players are more template instances than a first look needs. */
function show(pane: string): void {
  for (const tab of document.querySelectorAll<HTMLButtonElement>('nav button')) tab.setAttribute('aria-selected', String(tab.dataset['pane'] === pane));
  for (const section of document.querySelectorAll<HTMLElement>('main > section')) section.hidden = section.dataset['pane'] !== pane;
  if (pane === 'feed') feed ??= new FeedPane($('#feed-pane'), { ...state, remixes }, { log, checks });
  if (pane === 'players') players ??= new PlayersPane($('#players-pane'), state, log);
}
for (const tab of document.querySelectorAll<HTMLButtonElement>('nav button')) tab.addEventListener('click', () => show(tab.dataset['pane'] ?? 'editor'));

const events = new EventSource('/__platform/events');
const on = <T>(name: string, listener: (data: T) => void): void => events.addEventListener(name, (event) => listener(JSON.parse((event as MessageEvent<string>).data) as T));
on<{ problems: string[] }>('problems', ({ problems }) => {
  overlay.show(problems);
  log.add('customization', problems.length === 0 ? 'every file is valid again' : `${problems.length} problem(s); the last good version is in use`);
});
on<{ frame: string; kind: string; detail: string }>('report', ({ frame, kind, detail }) => {
  log.add(frame, `${kind}: ${detail}`);
  if (kind === 'longtask') checks.warn('longtask', `${detail} in ${frame}`);
  else if (kind === 'insets') checks.warn('insets', detail);
});
/** The built template's JavaScript against the budget (dev-api's GET /__platform/bundle and its `bundle` event). */
type BundleReport = { ok: true; gzipBytes: number; budgetBytes: number; files: { name: string; gzipBytes: number }[] } | { ok: false; error: string; budgetBytes: number };
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
function showBundle(report: BundleReport): void {
  if (!report.ok) return checks.wait('bundle', `not measured: the build failed (${report.error})`);
  const detail = `${kib(report.gzipBytes)} of ${kib(report.budgetBytes)} (${report.files.length} file${report.files.length === 1 ? '' : 's'})`;
  if (report.gzipBytes <= report.budgetBytes) checks.pass('bundle', detail);
  else checks.warn('bundle', `${detail}: a phone on slow 4G (about 200 KB/s) takes ${((report.gzipBytes / 200_000) * 1000).toFixed(0)} ms to download it`);
}
checks.wait('bundle', 'building…');
fetch('/__platform/bundle')
  .then((response) => response.json() as Promise<BundleReport>)
  .then(showBundle, (error: unknown) => checks.wait('bundle', `not measured: ${String(error)}`));
on<BundleReport>('bundle', showBundle);
let lastPresence = new Map<string, number>();
on<{ shards: { project: string; name: string; members: string[] }[] }>('presence', ({ shards }) => {
  const now = new Map(shards.map((shard) => [`${shard.project}/${shard.name}`, shard.members.length]));
  for (const [key, count] of now) if (lastPresence.get(key) !== count) log.add('server', `shard ${key}: ${count} member(s)`);
  for (const key of lastPresence.keys()) if (!now.has(key)) log.add('server', `shard ${key}: empty`);
  lastPresence = now;
  feed?.presence(shards.filter((shard) => shard.project === state.feedProjectId).reduce((sum, shard) => sum + shard.members.length, 0));
});
