/**
 * The track: the element that holds the items one viewport height apart,
 * moved by a transform (not a native scroller; see the controller's
 * comment) to the current item plus the finger's drag, and the 'settle'
 * when a snap ends. Apart because the gestures, the sheets and the focus
 * all move it, and only this file knows how.
 */

const SNAP_EASING = 'cubic-bezier(0.2, 0.8, 0.2, 1)';

/** The track; see the module comment. */
export class FeedTrack {
  readonly element: HTMLElement;
  /** How far the finger dragged the track from the current item (CSS px, + is down). */
  dragPx = 0;
  readonly #currentIndex: () => number;
  readonly #settled: () => void;
  #settleTimer: ReturnType<typeof setTimeout> | undefined;

  /** `currentIndex`: the item the track shows; `settled`: a snap (or a move without one) ended. */
  constructor(currentIndex: () => number, settled: () => void) {
    this.element = document.createElement('div');
    this.element.className = 'pk-feed-track';
    this.#currentIndex = currentIndex;
    this.#settled = settled;
  }

  /** Moves the track to the current item plus the drag; animated over `durationMs` (0: at once). */
  apply(durationMs: number): void {
    const track = this.element;
    clearTimeout(this.#settleTimer);
    track.style.transition = durationMs > 0 ? `transform ${durationMs}ms ${SNAP_EASING}` : 'none';
    // Percentages of the track's own height (the viewport's): no measuring, and a resize needs nothing.
    track.style.transform = `translate3d(0, calc(${-this.#currentIndex() * 100}% + ${this.dragPx}px), 0)`;
    track.removeEventListener('transitionend', this.#onSettled);
    if (this.dragPx !== 0) return;
    if (durationMs <= 0) {
      this.#settleTimer = setTimeout(() => this.#onSettled(), 0);
      return;
    }
    // The transition's own end, or a little after its length when it never runs (a hidden tab).
    track.addEventListener('transitionend', this.#onSettled);
    this.#settleTimer = setTimeout(() => this.#onSettled(), durationMs + 100);
  }

  /** Ends a drag: back to the current item over `durationMs`. */
  snapBack(durationMs: number): void {
    this.dragPx = 0;
    this.apply(durationMs);
  }

  /** Stops waiting for a settle. */
  stop(): void {
    clearTimeout(this.#settleTimer);
  }

  readonly #onSettled = (event?: Event): void => {
    // transitionend bubbles: a template's iframe fading in is not the track settling.
    if (event && (event.target !== this.element || (event as TransitionEvent).propertyName !== 'transform')) return;
    clearTimeout(this.#settleTimer);
    this.element.removeEventListener('transitionend', this.#onSettled);
    this.#settled();
  };
}

/**
 * Undoes a native scroll of the viewport or an item (a template's
 * scrollIntoView() chains to them). They clip (feed-styles.ts), so this
 * matters only in a browser without `overflow: clip`, where they are
 * scroll containers. Returns what removes it.
 */
export function keepUnscrolled(viewport: HTMLElement): () => void {
  const onScroll = (event: Event): void => {
    const target = event.target;
    if (!(target instanceof HTMLElement) || (target !== viewport && !target.classList.contains('pk-feed-item'))) return;
    if (target.scrollTop !== 0) target.scrollTop = 0;
    if (target.scrollLeft !== 0) target.scrollLeft = 0;
  };
  // Capture: a scroll event does not bubble, and an item's is heard only on the way down.
  viewport.addEventListener('scroll', onScroll, { capture: true, passive: true });
  return () => viewport.removeEventListener('scroll', onScroll, { capture: true });
}
