/**
 * The modal sheet that present(url) opens: it slides up from the bottom over
 * the feed and holds one page. The FeedController puts the page's frame in
 * {@link PresentSheet.body} and replaces it when the page presents again.
 * Plain DOM, so it works under `<platform-feed>` and with the controller alone.
 */

/** Options of {@link PresentSheet}. */
export interface PresentSheetOptions {
  /** The element the sheet covers (position: relative or absolute). */
  readonly container: HTMLElement;
  /** Length of the slide in and out; 0 for none. */
  readonly animationMs: number;
  /** The user asked to close it (close button, backdrop, Escape). */
  readonly onCloseRequest: () => void;
  /** Accessible name of the dialog. */
  readonly label?: string;
}

/** A sheet that slides up from the bottom; see the module comment. */
export class PresentSheet {
  /** The sheet's root (dialog). */
  readonly element: HTMLElement;
  /** Where the presented page's frame goes. */
  readonly body: HTMLElement;
  readonly #panel: HTMLElement;
  readonly #animationMs: number;
  #closed = false;

  constructor(options: PresentSheetOptions) {
    this.#animationMs = options.animationMs;
    const root = document.createElement('div');
    root.className = 'pk-sheet';
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-modal', 'true');
    root.setAttribute('aria-label', options.label ?? 'Presented content');
    const backdrop = document.createElement('div');
    backdrop.className = 'pk-sheet-backdrop';
    backdrop.addEventListener('click', () => options.onCloseRequest());
    const panel = document.createElement('div');
    panel.className = 'pk-sheet-panel';
    const bar = document.createElement('div');
    bar.className = 'pk-sheet-bar';
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'pk-sheet-close';
    close.textContent = 'Close';
    close.addEventListener('click', () => options.onCloseRequest());
    bar.append(close);
    const body = document.createElement('div');
    body.className = 'pk-sheet-body';
    const loading = createLoading();
    body.append(loading);
    panel.append(bar, body);
    root.append(backdrop, panel);
    root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') options.onCloseRequest();
    });
    this.element = root;
    this.body = body;
    this.#panel = panel;
    options.container.append(root);
    // The sheet slides in while the caller goes on; #slide never rejects.
    void this.#slide([{ transform: 'translateY(100%)' }, { transform: 'translateY(0)' }]);
    close.focus({ preventScroll: true });
  }

  /** Shows the state of the page in the sheet: loading, loaded, or unframeable (with an offer to open `url` in the browser). */
  setState(state: 'loading' | 'loaded' | 'unframeable', url: string): void {
    this.body.classList.toggle('is-loaded', state === 'loaded');
    this.body.classList.toggle('is-unframeable', state === 'unframeable');
    this.body.querySelector('.pk-feed-offer')?.remove();
    if (state === 'unframeable') this.body.append(createOpenOffer(url));
  }

  /** Slides the sheet out and removes it. Resolves when it is gone. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#slide([{ transform: 'translateY(0)' }, { transform: 'translateY(100%)' }]);
    this.element.remove();
  }

  #slide(keyframes: Keyframe[]): Promise<void> {
    if (this.#animationMs <= 0 || typeof this.#panel.animate !== 'function') return Promise.resolve();
    const animation = this.#panel.animate(keyframes, { duration: this.#animationMs, easing: 'cubic-bezier(0.2, 0.8, 0.2, 1)', fill: 'forwards' });
    // A cancelled animation (element removed early) rejects `finished`: the sheet is gone either way.
    return animation.finished.then(
      () => undefined,
      () => undefined,
    );
  }
}

/** The loading state shown until a template calls load(). */
export function createLoading(): HTMLElement {
  const loading = document.createElement('div');
  loading.className = 'pk-feed-loading';
  const spinner = document.createElement('div');
  spinner.className = 'pk-feed-spinner';
  spinner.setAttribute('aria-hidden', 'true');
  const label = document.createElement('div');
  label.textContent = 'Loading…';
  loading.append(spinner, label);
  return loading;
}

/**
 * The offer to open a page at browser level, for a target that cannot be
 * shown in a frame (X-Frame-Options, CSP frame-ancestors) or is not a template.
 */
export function createOpenOffer(url: string): HTMLElement {
  const offer = document.createElement('div');
  offer.className = 'pk-feed-offer';
  offer.setAttribute('role', 'alert');
  const text = document.createElement('span');
  text.textContent = 'This page cannot be shown here.';
  const link = document.createElement('a');
  link.href = url;
  link.target = '_blank';
  // The opened page gets no handle on the feed's window and no referrer.
  link.rel = 'noopener noreferrer';
  link.textContent = 'Open in browser';
  offer.append(text, link);
  return offer;
}
