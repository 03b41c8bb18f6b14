/**
 * What the feed's viewport shows when it has no item to show (no items
 * yet, every one skipped, or a loader that ended with none): a loading state
 * while the loader is asked, else a message, never a black box. Apart
 * because it is the one part of the feed's view that depends on no item.
 */
import { createLoading } from './present-sheet.js';

/** What the message says; `none` while an item is shown. */
export type FeedMessageState = 'none' | 'loading' | 'empty' | 'ended';

const TEXTS: { readonly [State in 'empty' | 'ended']: string } = {
  empty: 'Nothing to show here yet.',
  ended: 'You have reached the end of the feed.',
};

/** The message over the viewport; see the module comment. */
export class FeedMessage {
  readonly element: HTMLElement;
  #state: FeedMessageState = 'none';

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'pk-feed-message';
    this.element.hidden = true;
  }

  get state(): FeedMessageState {
    return this.#state;
  }

  /**
   * Shows what fits: nothing while an item is shown, else loading while the
   * loader is asked, the end once it said so, or that there is nothing yet.
   * Returns whether that changed.
   */
  update(itemShown: boolean, loader: { readonly busy: boolean; readonly ended: boolean }): boolean {
    const state: FeedMessageState = itemShown ? 'none' : loader.busy ? 'loading' : loader.ended ? 'ended' : 'empty';
    if (state === this.#state) return false;
    this.#state = state;
    this.element.hidden = state === 'none';
    if (state === 'none') this.element.replaceChildren();
    else if (state === 'loading') this.element.replaceChildren(createLoading());
    else this.element.textContent = TEXTS[state];
    return true;
  }
}
