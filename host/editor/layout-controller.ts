/**
 * `EditorLayoutController`: whether `<platform-editor>` lays itself out for
 * a narrow screen (a phone) and how far the on-screen keyboard covers it.
 *
 *   - Compact or wide is decided by the element's own width (a
 *     ResizeObserver), not the window's: an editor in a narrow column of a
 *     wide page is narrow too. Below the breakpoint the template takes the
 *     whole element; the controls come up as bottom sheets and the bar sits
 *     at the bottom, within thumb reach.
 *   - The keyboard: where the browser does not resize the layout for it (iOS
 *     Safari; Chrome without `interactive-widget=resizes-content`), the
 *     visual viewport shrinks over the page instead. The part of the
 *     element's body it covers is given to the styles as `--_lift`, so a
 *     sheet rises above the keyboard, and the focused field is scrolled into
 *     view within its sheet.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** What the controller needs from the editor element. */
export interface LayoutHost extends ReactiveControllerHost, HTMLElement {
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** Options of {@link EditorLayoutController}. */
export interface LayoutOptions {
  /** `auto`: by width; `wide` or `compact`: forced. Read at every measure. */
  readonly layout: () => 'auto' | 'wide' | 'compact';
  /** Narrowest width (CSS px) that is still wide. */
  readonly compactBelowPx: () => number;
  /** Called after compact changed (the editor closes what the other layout drew). */
  readonly changed: (compact: boolean) => void;
}

/** The editor's layout. See the module comment. */
export class EditorLayoutController implements ReactiveController {
  readonly #host: LayoutHost;
  readonly #options: LayoutOptions;
  #compact = false;
  #width = 0;
  #resizeObserver: ResizeObserver | null = null;
  #liftPx = 0;

  constructor(host: LayoutHost, options: LayoutOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  /** True while the editor is laid out for a narrow screen. */
  get compact(): boolean {
    return this.#compact;
  }

  hostConnected(): void {
    this.#resizeObserver ??= new ResizeObserver((entries) => {
      const entry = entries[entries.length - 1];
      if (entry) this.#setWidth(entry.contentRect.width);
    });
    this.#resizeObserver.observe(this.#host);
    // Measured now as well: the first render already has the right layout, the template never
    // starts squeezed beside a panel that is about to go.
    this.#setWidth(this.#host.getBoundingClientRect().width);
    window.visualViewport?.addEventListener('resize', this.#onViewport);
    window.visualViewport?.addEventListener('scroll', this.#onViewport);
    this.#host.addEventListener('focusin', this.#onFocusIn);
  }

  hostDisconnected(): void {
    this.#resizeObserver?.disconnect();
    window.visualViewport?.removeEventListener('resize', this.#onViewport);
    window.visualViewport?.removeEventListener('scroll', this.#onViewport);
    this.#host.removeEventListener('focusin', this.#onFocusIn);
  }

  hostUpdate(): void {
    // A forced layout or a new breakpoint takes effect in this update.
    this.#decide();
  }

  #setWidth(width: number): void {
    this.#width = width;
    this.#decide();
  }

  #decide(): void {
    const layout = this.#options.layout();
    let compact = this.#compact;
    if (layout !== 'auto') compact = layout === 'compact';
    // Before the element has a size (not in the page yet, display: none) it keeps what it had.
    else if (this.#width > 0) compact = this.#width < this.#options.compactBelowPx();
    if (compact === this.#compact) return;
    this.#compact = compact;
    this.#onViewport();
    this.#options.changed(compact);
    this.#host.requestUpdate();
  }

  readonly #onViewport = (): void => {
    const viewport = window.visualViewport;
    const body = this.#host.renderRoot.querySelector<HTMLElement>('.body');
    let lift = 0;
    if (this.#compact && viewport && body) {
      const visibleBottom = viewport.offsetTop + viewport.height;
      lift = Math.max(0, Math.round(body.getBoundingClientRect().bottom - visibleBottom));
    }
    if (lift !== this.#liftPx) {
      this.#liftPx = lift;
      this.#host.style.setProperty('--_lift', `${lift}px`);
    }
    if (this.#compact) this.#revealFocus();
  };

  readonly #onFocusIn = (): void => {
    // The keyboard comes up after the focus moves: once now, and again on the viewport's resize.
    if (this.#compact) requestAnimationFrame(() => this.#revealFocus());
  };

  /** Scrolls the focused field into view inside its sheet (not the page). */
  #revealFocus(): void {
    let active: Element | null = this.#host.shadowRoot?.activeElement ?? null;
    const sheet = active?.closest('.sheet');
    if (!active || !sheet) return;
    while (active.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    const target = active.getBoundingClientRect();
    const box = sheet.getBoundingClientRect();
    const viewport = window.visualViewport;
    const visibleBottom = Math.min(box.bottom, viewport ? viewport.offsetTop + viewport.height : box.bottom);
    if (target.bottom > visibleBottom) sheet.scrollTop += target.bottom - visibleBottom + 8;
    else if (target.top < box.top) sheet.scrollTop -= box.top - target.top + 8;
  }
}
