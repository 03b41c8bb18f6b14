/**
 * `PanelSheet`: in the compact layout of `<platform-editor type="full">`,
 * whether the panel of every control is up as a bottom sheet, and where the
 * focus goes: into the sheet when it comes up, back where it was (the
 * Customize button) when it goes.
 */
import type { ReactiveControllerHost } from 'lit';
import { deepActiveElement } from './deep-focus.js';

/** What the sheet needs from the editor element. */
export interface PanelSheetHost extends ReactiveControllerHost {
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** Options of {@link PanelSheet}. */
export interface PanelSheetOptions {
  /** The compact layout: the only one with a sheet (the wide one has a side panel). */
  readonly compact: () => boolean;
  /** `type="full"`: the only type with a panel. */
  readonly full: () => boolean;
}

/** The panel's sheet. See the module comment. */
export class PanelSheet {
  readonly #host: PanelSheetHost;
  readonly #options: PanelSheetOptions;
  #open = false;
  /** Where the focus was when the sheet came up. */
  #returnFocus: HTMLElement | null = null;

  constructor(host: PanelSheetHost, options: PanelSheetOptions) {
    this.#host = host;
    this.#options = options;
  }

  /** True while the sheet is up. */
  get open(): boolean {
    return this.#open;
  }

  /** Brings the sheet up, if it may come up; the focus moves into it. */
  show(): void {
    if (this.#open || !this.#options.compact() || !this.#options.full()) return;
    const root = this.#host.renderRoot;
    this.#returnFocus = deepActiveElement(root instanceof ShadowRoot ? root : document);
    this.#open = true;
    this.#host.requestUpdate();
    void this.#host.updateComplete.then(() => {
      if (this.#open) this.#host.renderRoot.querySelector<HTMLElement>('.panel')?.focus({ preventScroll: true });
    });
  }

  /**
   * Takes the sheet down, if it is up; in the compact layout the focus goes
   * back where it was, if that is still in the page. (After a switch to the
   * wide layout there is no sheet to come back from.)
   */
  hide(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#host.requestUpdate();
    const back = this.#returnFocus ?? this.#host.renderRoot.querySelector<HTMLElement>('#customize');
    this.#returnFocus = null;
    if (this.#options.compact() && back?.isConnected) void this.#host.updateComplete.then(() => back.focus({ preventScroll: true }));
  }

  readonly toggle = (): void => {
    if (this.#open) this.hide();
    else this.show();
  };
}
