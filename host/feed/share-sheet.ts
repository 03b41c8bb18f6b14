/**
 * The feed's own share sheet, for browsers without the Web Share API (or
 * when it refuses): the link in a field and a copy-link button.
 * Plain DOM, so it works under `<platform-feed>` and with the controller alone.
 */

/** Options of {@link ShareSheet}. */
export interface ShareSheetOptions {
  readonly container: HTMLElement;
  /** The link to share. */
  readonly url: string;
  /** What is shared, for the heading. */
  readonly title?: string;
  /** The user closed it. */
  readonly onClose: () => void;
}

/** Outcome of the copy-link button. */
export type CopyOutcome = 'copied' | 'selected';

/** A share sheet with a copy-link button; see the module comment. */
export class ShareSheet {
  readonly element: HTMLElement;
  readonly #input: HTMLInputElement;
  readonly #status: HTMLElement;
  readonly #url: string;

  constructor(options: ShareSheetOptions) {
    this.#url = options.url;
    const root = document.createElement('div');
    root.className = 'pk-share';
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-modal', 'true');
    root.setAttribute('aria-label', 'Share');
    const backdrop = document.createElement('div');
    backdrop.className = 'pk-sheet-backdrop';
    backdrop.addEventListener('click', () => options.onClose());
    const panel = document.createElement('div');
    panel.className = 'pk-sheet-panel pk-share-panel';
    const heading = document.createElement('h2');
    heading.textContent = options.title ? `Share “${options.title}”` : 'Share';
    const input = document.createElement('input');
    input.readOnly = true;
    input.value = options.url;
    input.setAttribute('aria-label', 'Link');
    const actions = document.createElement('div');
    actions.className = 'pk-share-actions';
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'pk-share-copy';
    copy.textContent = 'Copy link';
    copy.addEventListener('click', () => void this.copy());
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'pk-share-close';
    close.textContent = 'Close';
    close.addEventListener('click', () => options.onClose());
    actions.append(copy, close);
    const status = document.createElement('p');
    status.className = 'pk-share-status';
    status.setAttribute('role', 'status');
    panel.append(heading, input, actions, status);
    root.append(backdrop, panel);
    root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') options.onClose();
    });
    this.element = root;
    this.#input = input;
    this.#status = status;
    options.container.append(root);
    copy.focus({ preventScroll: true });
  }

  /** The link shown. */
  get url(): string {
    return this.#url;
  }

  /**
   * Copies the link: the async clipboard when allowed, else the older copy
   * command; when both are refused the link is left selected for the user to copy.
   */
  async copy(): Promise<CopyOutcome> {
    let copied: boolean;
    try {
      await navigator.clipboard.writeText(this.#url);
      copied = true;
    } catch (error) {
      // Refused (no focus or no permission): the older command may still work inside this click.
      console.debug('platform-kit: the clipboard refused the link; trying the copy command', error);
      this.#input.select();
      copied = document.execCommand('copy');
    }
    this.#input.select();
    this.#status.textContent = copied ? 'Link copied' : 'Press Ctrl+C (⌘C) to copy the selected link';
    return copied ? 'copied' : 'selected';
  }

  /** Removes the sheet. */
  close(): void {
    this.element.remove();
  }
}
