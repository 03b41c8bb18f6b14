/**
 * The checks: what a host will do to the template, told before a host does it.
 *
 * - ready(): an editor waits for it (values and controls arrive after it);
 * - load(): a feed skips a template that never calls it;
 * - not listed `here` in a shard while not in focus: a preloaded feed item may join early, but away
 *   (Platform.dispatch does it by itself; a template that forces its state defeats it);
 * - nothing drawn under the feed's insets (its Remix and Share buttons);
 * - no long task over 200 ms;
 * - the built JavaScript within the budget, gzipped (bundle-size.ts says which and why).
 * Each is waiting, ok or a warning with what was seen; a warning goes to the log too.
 */
import type { WorkbenchLog } from './log.js';

/** The checks by name, in the order the bar shows them. */
export const CHECKS = {
  ready: 'calls ready()',
  load: 'calls load() (a feed shows it)',
  focus: 'listed here only in focus',
  insets: "keeps clear of the feed's buttons",
  longtask: 'no task over 200 ms',
  bundle: 'built JS within budget (gzipped)',
} as const;

export type CheckName = keyof typeof CHECKS;
type CheckState = 'wait' | 'ok' | 'warn';

export class Checks {
  readonly #bar: HTMLElement;
  readonly #log: WorkbenchLog;
  readonly #states = new Map<CheckName, { state: CheckState; detail: string }>();

  constructor(bar: HTMLElement, log: WorkbenchLog) {
    this.#bar = bar;
    this.#log = log;
    for (const name of Object.keys(CHECKS) as CheckName[]) this.#states.set(name, { state: name === 'ready' || name === 'load' || name === 'bundle' ? 'wait' : 'ok', detail: '' });
    this.#render();
  }

  /** `detail` says what was measured (the bundle's size); a warning of a check that happened stays. */
  pass(name: CheckName, detail = ''): void {
    if (this.#states.get(name)?.state === 'warn' && name !== 'bundle') return; // a warning stays until the page is reloaded: it happened
    this.#set(name, 'ok', detail);
  }

  /** The bundle is measured again after a change: it is a state of the files, not an event that happened. */
  wait(name: CheckName, detail: string): void {
    this.#set(name, 'wait', detail);
  }

  warn(name: CheckName, detail: string): void {
    const current = this.#states.get(name);
    if (current?.state === 'warn' && current.detail === detail) return;
    this.#set(name, 'warn', detail);
    this.#log.add('check', `${CHECKS[name]}: ${detail}`);
  }

  state(name: CheckName): CheckState {
    return this.#states.get(name)?.state ?? 'wait';
  }

  #set(name: CheckName, state: CheckState, detail: string): void {
    this.#states.set(name, { state, detail });
    this.#render();
  }

  #render(): void {
    this.#bar.replaceChildren(
      ...[...this.#states].map(([name, { state, detail }]) => {
        const span = document.createElement('span');
        span.className = state;
        span.dataset['check'] = name;
        span.textContent = detail === '' ? CHECKS[name] : `${CHECKS[name]}: ${detail}`;
        return span;
      }),
    );
  }
}
