/**
 * The feed's own action buttons (Remix, Share) for the current item, drawn
 * by the host when the page asks for them (`actions`), so that no template
 * has to draw them, and none can be covered by them unknowingly:
 *
 *   - On a wide feed (at least `actionsRailMinWidth` CSS px), a rail beside
 *     the items: the track is narrowed by the rail's width, and the buttons
 *     stand outside every iframe, never over one.
 *   - On a narrow feed (a phone), over the bottom right corner of the item,
 *     as phones' feeds do; the corner they cover is measured and told to
 *     every item's template (FeedInsets: FeedSdk.insets and the CSS custom
 *     properties `--platform-feed-inset-right` and `-bottom`), again on every
 *     resize, so a template can keep its text clear of it.
 *
 * The buttons keep their contrast on any template: a dark translucent disc
 * with a light ring and a white icon, the label on its own dark pill. They
 * are 48 px discs (thumbs), real buttons (keyboard: Tab, Enter, Space), and
 * hidden from view while no item is shown (the feed's message, a skipped
 * item). Apart from the controller because the layout (which mode, what is
 * covered, told when) is its own rule; it acts through {@link FeedActionsHost}.
 *
 * The insets reach an item's template (the guest method `insetsChanged`) at
 * every (re)link, so it can lay out before it is shown, again at its load()
 * (a FeedSdk made after the link had no listener yet), and on every change
 * to every linked item's template. Only when something is covered: a
 * template told nothing reads 0. The sheet's template is never told (the
 * sheet is over the buttons).
 */
import { PlatformError } from '../../protocol/errors.js';
import type { FeedInsets } from '../../protocol/link.js';
import type { TemplateFrame } from '../template-frame.js';
import { reportQuietly } from './guest-door.js';

/** An action the feed draws for the current item. */
export type FeedAction = 'remix' | 'share';

/** Every action, in the order the feed draws them. */
export const FEED_ACTIONS: readonly FeedAction[] = ['remix', 'share'];

/** Insets with nothing covered. */
export const NO_INSETS: FeedInsets = Object.freeze({ right: 0, bottom: 0 });

/** Room kept between the buttons and what a template should keep clear of them. */
const CLEARANCE_PX = 8;

const LABELS: { readonly [Action in FeedAction]: string } = { remix: 'Remix', share: 'Share' };

// White line icons (24 px grid): a pencil over a copy (remix) and an arrow out of a tray (share).
const ICONS: { readonly [Action in FeedAction]: string } = {
  remix:
    '<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 20h4L19 9a2.8 2.8 0 0 0-4-4L4 16z"/><path d="M13.5 6.5l4 4"/></svg>',
  share:
    '<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M12 15V3"/><path d="M7 8l5-5 5 5"/><path d="M5 13v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6"/></svg>',
};

/** Checks the `actions` option: a list of known actions, each at most once; throws `INVALID_ARGUMENT`. */
export function checkFeedActions(actions: unknown): readonly FeedAction[] {
  if (!Array.isArray(actions)) throw new PlatformError('INVALID_ARGUMENT', `actions must be a list of ${FEED_ACTIONS.join(', ')}`);
  for (const action of actions) {
    if (!(FEED_ACTIONS as readonly unknown[]).includes(action))
      throw new PlatformError('INVALID_ARGUMENT', `unknown feed action ${JSON.stringify(action)}: use ${FEED_ACTIONS.join(', ')}`);
  }
  // The feed's own order, once each: a page cannot make two Share buttons.
  return FEED_ACTIONS.filter((action) => actions.includes(action));
}

/** What the actions need of the feed. */
export interface FeedActionsHost {
  /** The feed's viewport: measured, and where the buttons are drawn. */
  readonly viewport: HTMLElement;
  /** Narrowest viewport (CSS px) that gets a rail beside the items. */
  readonly railMinWidth: number;
  /** A button was pressed. */
  run(action: FeedAction): void;
  /** The frames of the items' live templates (not the sheet's): each linked one is told when the insets change. */
  itemFrames(): Iterable<TemplateFrame>;
}

/** The buttons and their layout; see the module comment. */
export class FeedActions {
  /** The group of buttons (empty and hidden without actions). */
  readonly element: HTMLElement;
  readonly #host: FeedActionsHost;
  readonly #observer: ResizeObserver | null;
  #actions: readonly FeedAction[] = [];
  #insets: FeedInsets = NO_INSETS;
  #shown = false;

  constructor(host: FeedActionsHost, actions: readonly FeedAction[]) {
    this.#host = host;
    this.element = document.createElement('div');
    this.element.className = 'pk-feed-actions';
    this.element.setAttribute('role', 'group');
    this.element.setAttribute('aria-label', 'Item actions');
    this.element.setAttribute('part', 'actions');
    this.#observer = typeof ResizeObserver === 'function' ? new ResizeObserver(() => this.layout()) : null;
    this.#observer?.observe(host.viewport);
    // The buttons too: their labels may change width when a web font arrives.
    this.#observer?.observe(this.element);
    this.set(actions);
  }

  /** The actions drawn. */
  get actions(): readonly FeedAction[] {
    return this.#actions;
  }

  /** The corner of an item the buttons cover now (0, 0 on a rail or without actions). */
  get insets(): FeedInsets {
    return this.#insets;
  }

  /** Replaces the actions (checked) and lays them out again. */
  set(actions: readonly FeedAction[]): void {
    this.#actions = checkFeedActions(actions);
    this.element.replaceChildren(...this.#actions.map((action) => this.#button(action)));
    this.element.hidden = this.#actions.length === 0;
    this.layout();
  }

  /** Shows the buttons while there is an item to act on; otherwise they are invisible and out of the tab order. */
  setShown(shown: boolean): void {
    if (shown === this.#shown) return;
    this.#shown = shown;
    this.element.classList.toggle('is-idle', !shown);
    this.element.inert = !shown;
  }

  /** Chooses rail or overlay for the viewport's width, measures what the buttons cover and tells the feed when it changed. */
  layout(): void {
    const viewport = this.#host.viewport;
    const width = viewport.clientWidth;
    const height = viewport.clientHeight;
    const any = this.#actions.length > 0;
    // Not laid out (detached, display: none): keep what was told until there is something to measure.
    if (width === 0 || height === 0) return;
    const rail = any && width >= this.#host.railMinWidth;
    viewport.classList.toggle('pk-actions-rail', rail);
    viewport.classList.toggle('pk-actions-overlay', any && !rail);
    let insets = NO_INSETS;
    if (any && !rail) {
      const box = viewport.getBoundingClientRect();
      const buttons = this.element.getBoundingClientRect();
      insets = {
        right: Math.max(0, Math.ceil(box.right - buttons.left + CLEARANCE_PX)),
        bottom: Math.max(0, Math.ceil(box.bottom - buttons.top + CLEARANCE_PX)),
      };
    }
    // For the feed's own UI over an item (the open-in-browser offer).
    viewport.style.setProperty('--pk-feed-inset-right', `${insets.right}px`);
    viewport.style.setProperty('--pk-feed-inset-bottom', `${insets.bottom}px`);
    if (insets.right === this.#insets.right && insets.bottom === this.#insets.bottom) return;
    this.#insets = Object.freeze(insets);
    for (const frame of this.#host.itemFrames()) if (frame.state === 'linked' || frame.state === 'ready') this.#tell(frame, this.#insets);
  }

  /** Tells an item's template the insets at each (re)link and load(), when something is covered; returns the listeners' removers. */
  tellOnLink(frame: TemplateFrame): (() => void)[] {
    const tell = (): void => {
      const insets = this.#insets;
      if (insets.right > 0 || insets.bottom > 0) this.#tell(frame, insets);
    };
    return [frame.on('link', tell), frame.on('load', tell)];
  }

  /** Stops measuring and removes the buttons. */
  destroy(): void {
    this.#observer?.disconnect();
    this.element.remove();
  }

  #tell(frame: TemplateFrame, insets: FeedInsets): void {
    frame.request('insetsChanged', insets).catch((error: unknown) => reportQuietly(error));
  }

  #button(action: FeedAction): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'pk-feed-action';
    button.dataset['action'] = action;
    button.setAttribute('part', `action action-${action}`);
    button.innerHTML = `<span class="pk-feed-action-icon">${ICONS[action]}</span><span class="pk-feed-action-label">${LABELS[action]}</span>`;
    button.addEventListener('click', (event) => {
      event.stopPropagation();
      this.#host.run(action);
    });
    return button;
  }
}
