/**
 * The feed's focus: which item is current and moving to another (the index, the way the user was going, the announcement, a skipped item's successor); apart from the controller, which keeps the public API and the wiring.
 *
 * Focus moves when a swipe is released, not when the snap animation ends:
 * the next template starts at once. When the current item is skipped (or
 * the feed gets its first item) the focus moves on the way the user was
 * going, else back. Every move is announced (the status region and a
 * 'focuschange' event); with no item to show, the feed's message shows why.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { EmitFeedEvent } from './feed-events.js';
import type { FeedMessage } from './feed-message.js';
import type { FeedTrack } from './feed-track.js';
import type { FeedWindow } from './feed-window.js';
import type { LiveFrame } from './live-frame.js';

/** What the focus needs of the feed. */
export interface FeedFocusHost {
  readonly window: FeedWindow;
  readonly track: FeedTrack;
  /** The visually hidden status region the moves are announced in. */
  readonly status: HTMLElement;
  readonly message: FeedMessage;
  readonly snapMs: number;
  readonly loadTimeoutMs: number;
  readonly emit: EmitFeedEvent;
  isDestroyed(): boolean;
  /** Throws `LINK_CLOSED` once the feed is destroyed. */
  assertAlive(): void;
  /** Tells the templates who plays now (FeedPlayback). */
  reconcilePlayback(): void;
  /** Asks the loader for more items when the current one is near the end. */
  loadMore(): void;
  /** Whether the loader is asked now, and whether it said there is nothing more. */
  loaderState(): { readonly busy: boolean; readonly ended: boolean };
  /** Forgets a gesture in progress (the focus moved under it). */
  resetGesture(): void;
  /** Shows the feed's own buttons while there is an item to act on. */
  setActionsShown(shown: boolean): void;
}

/** The current item and moving to another; see the module comment. */
export class FeedFocus {
  readonly #host: FeedFocusHost;
  #index = -1;
  #direction: 1 | -1 = 1;

  constructor(host: FeedFocusHost) {
    this.#host = host;
  }

  /** Index of the current item; -1 while the feed is empty. */
  get index(): number {
    return this.#index;
  }

  /** No item is current (the items were replaced); the next sync() moves to the first. */
  reset(): void {
    this.#index = -1;
  }

  /** Brings the window, focus and playback in line with the current index. */
  sync(): void {
    const host = this.#host;
    if (host.isDestroyed()) return;
    const feedWindow = host.window;
    const currentEntry = feedWindow.entry(this.#index);
    if (!currentEntry || currentEntry.skipped) {
      // The first item, or the current one was skipped: move on the way the user was going (else back).
      const first = feedWindow.entry(0);
      const target =
        this.#index < 0
          ? first && !first.skipped
            ? 0
            : feedWindow.nearest(0, 1)
          : (feedWindow.nearest(this.#index, this.#direction) ?? feedWindow.nearest(this.#index, this.#direction === 1 ? -1 : 1));
      if (target !== null) {
        const animate = this.#index >= 0;
        this.#index = target;
        this.#announce();
        host.track.apply(animate ? host.snapMs : 0);
      }
    }
    // Pause before anything is removed or started, so a template leaving focus hears it first.
    host.reconcilePlayback();
    feedWindow.showCurrent();
    host.reconcilePlayback();
    feedWindow.schedule();
    host.loadMore();
    this.showMessage();
  }

  /** With no item to show: loading while the loader is asked, else why there is none (announced too). */
  showMessage(): void {
    const host = this.#host;
    const entry = host.window.entry(this.#index);
    if (host.isDestroyed()) return;
    host.setActionsShown(entry !== undefined && !entry.skipped);
    if (!host.message.update(entry !== undefined && !entry.skipped, host.loaderState())) return;
    if (host.message.state !== 'none') host.status.textContent = host.message.element.textContent ?? '';
  }

  /** Moves to the nearest item that is not skipped in `direction`. False when there is none (the loader is asked for more). */
  step(direction: 1 | -1): boolean {
    this.#host.assertAlive();
    if (this.#index < 0) return false;
    const target = this.#host.window.nearest(this.#index, direction);
    if (target === null) {
      this.#host.loadMore();
      return false;
    }
    this.moveTo(target, true);
    return true;
  }

  /** Makes `index` current and snaps the track to it (animated or at once). */
  moveTo(index: number, animate: boolean): void {
    const host = this.#host;
    if (index !== this.#index) {
      this.#direction = index > this.#index ? 1 : -1;
      this.#index = index;
      host.resetGesture();
      this.#announce();
    }
    host.track.dragPx = 0;
    host.track.apply(animate ? host.snapMs : 0);
    this.sync();
  }

  /** An item's template did not call load() in time: it is skipped and the feed moves past it. */
  skip(live: LiveFrame): void {
    // Why, in words: a template that made a FeedSdk must call load(); one that made none is shown once its page loads.
    const within = `within ${this.#host.loadTimeoutMs} ms; it was skipped`;
    const frame = live.frame;
    const why =
      frame.state === 'loading'
        ? live.pageLoaded
          ? 'loaded a page that never said hello (not found, or a page without the kit); it was skipped'
          : `did not link (no hello) ${within}`
        : frame.pageFeedSdk === true
          ? `made a FeedSdk and did not call load() ${within}`
          : `did not finish loading its page ${within}`;
    const error = new PlatformError('LOAD_TIMEOUT', `the template ${live.src} ${why}`);
    const entry = this.#host.window.skip(live.index);
    if (!entry) return;
    this.#host.emit('skip', { index: live.index, item: entry.item, reason: 'load-timeout', error });
    this.sync();
  }

  #announce(): void {
    const feedWindow = this.#host.window;
    const entry = feedWindow.entry(this.#index);
    if (!entry) return;
    this.#host.status.textContent = `Item ${this.#index + 1} of ${feedWindow.length}${entry.item.title ? `: ${entry.item.title}` : ''}`;
    this.#host.emit('focuschange', { index: this.#index, item: entry.item });
  }
}
