/**
 * `ControlOverlay`: the one control `<platform-editor>` opens over the
 * template (what onPresentControl asks for): its popover, its place next to
 * the point it belongs to (kept on screen through resizes and scrolls), the
 * ways it closes (the close button, escape, a click elsewhere, enter in the
 * control) and where the focus goes back to.
 *
 * In the compact layout (a phone) it is a bottom sheet instead: no popover
 * and no placement, the full width of the editor at its bottom, above the
 * bar (and above the keyboard: editor-styles.ts), where a floating box next
 * to a point could not fit.
 */
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { VccFieldDefinition, VccType } from '../../protocol/customization.js';
import type { VccPath } from '../../protocol/data.js';
import type { ControlPosition } from '../../protocol/link.js';
import type { TemplateFrame } from '../template-frame.js';
import type { ControlChangeDetail, ControlErrorDetail } from './controls/control-base.js';
import type { EditorControlDetail } from './editor-events.js';
import { placeOverlay, templateCentre, templateToViewport, type FrameBox, type Placement, type Point } from './overlay-position.js';
import { deepActiveElement } from './deep-focus.js';

/** The control open in the overlay. */
export interface OpenControl {
  /** The path the template asked for (what onSetActivePath reports). */
  readonly path: VccPath;
  /** The path of the value the control edits: the VCC's own path, or a field inside it. */
  readonly valuePath: VccPath;
  readonly type: VccType;
  readonly field: VccFieldDefinition | undefined;
  /** Label of the control (the field's name, else the last path segment). */
  readonly label: string;
  /** Help text of the field. */
  readonly description?: string;
  /** Template coordinates the overlay belongs to; null: the template's centre. */
  readonly position: ControlPosition | null;
}

/** What the overlay needs from the editor element. */
export interface OverlayHost extends ReactiveControllerHost, HTMLElement {
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** Options of {@link ControlOverlay}. */
export interface ControlOverlayOptions {
  /** The template's frame, whose box the overlay is placed against. */
  readonly frame: () => TemplateFrame | null;
  /** True when the control opens as a bottom sheet (the compact layout). */
  readonly sheet: () => boolean;
  /** Draws the control of an open VCC. */
  readonly renderControl: (open: OpenControl) => TemplateResult;
  /** Called when a control opens (its path) or the overlay closes (null), after the state changed. */
  readonly openChanged: (path: VccPath | null) => void;
  readonly onControlChange: (event: CustomEvent<ControlChangeDetail>) => void;
  readonly onControlError: (event: CustomEvent<ControlErrorDetail>) => void;
}

/** The overlay of the editor's open control. See the module comment. */
export class ControlOverlay implements ReactiveController {
  readonly #host: OverlayHost;
  readonly #options: ControlOverlayOptions;
  #open: OpenControl | null = null;
  #returnFocus: HTMLElement | null = null;
  #resizeObserver: ResizeObserver | null = null;
  #placement: Placement | null = null;

  constructor(host: OverlayHost, options: ControlOverlayOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  /** The open control, or null. */
  get open(): OpenControl | null {
    return this.#open;
  }

  /** Where the overlay was placed (viewport coordinates), while one is open. */
  get placement(): Placement | null {
    return this.#open ? this.#placement : null;
  }

  hostUpdated(): void {
    if (this.#open) this.place();
  }

  hostDisconnected(): void {
    this.close();
  }

  /** Opens `open` (replacing the control open now, if any), then places and focuses it once drawn. */
  show(open: OpenControl): void {
    const wasOpen = this.#open !== null;
    if (!wasOpen) this.#returnFocus = deepActiveElement();
    this.#open = open;
    this.#options.openChanged(open.path);
    if (!wasOpen) {
      window.addEventListener('resize', this.place);
      window.addEventListener('scroll', this.place, true);
      document.addEventListener('pointerdown', this.#onDocumentPointerDown, true);
      document.addEventListener('keydown', this.#onDocumentKeydown);
    }
    this.#host.requestUpdate();
    void this.#host.updateComplete.then(async () => {
      const overlay = this.#element();
      if (!overlay || this.#open !== open) return;
      const control = overlay.querySelector<HTMLElement & { updateComplete?: Promise<boolean> }>('[data-kind]');
      // The control draws its inputs in its own update: place the overlay (it stays hidden until
      // then) and focus the inputs once they exist, so it shows at its final size and place
      // instead of jumping when the control grows. Later size changes re-place it.
      await control?.updateComplete;
      if (this.#open !== open) return;
      this.#resizeObserver ??= new ResizeObserver(() => this.place());
      this.#resizeObserver.observe(overlay);
      this.place();
      control?.focus({ preventScroll: true });
      this.#host.dispatchEvent(new CustomEvent<EditorControlDetail>('platform-control-open', { detail: { path: open.path }, bubbles: true, composed: true }));
    });
  }

  /** Closes the overlay, if one is open; returns what was open. The focus goes back where it was. */
  close(): OpenControl | null {
    const open = this.#open;
    if (!open) return null;
    this.#open = null;
    this.#resizeObserver?.disconnect();
    this.#resizeObserver = null;
    window.removeEventListener('resize', this.place);
    window.removeEventListener('scroll', this.place, true);
    document.removeEventListener('pointerdown', this.#onDocumentPointerDown, true);
    document.removeEventListener('keydown', this.#onDocumentKeydown);
    const overlay = this.#element();
    if (overlay?.matches('[popover]:popover-open')) overlay.hidePopover();
    this.#options.openChanged(null);
    const back = this.#returnFocus;
    this.#returnFocus = null;
    if (back?.isConnected) back.focus({ preventScroll: true });
    this.#host.dispatchEvent(new CustomEvent<EditorControlDetail>('platform-control-close', { detail: { path: open.path }, bubbles: true, composed: true }));
    return open;
  }

  /** The overlay's element, with the open control in it; nothing when none is open. */
  render(): TemplateResult | typeof nothing {
    const open = this.#open;
    if (!open) return nothing;
    if (this.#options.sheet()) {
      return html`<div
        class="overlay sheet"
        role="dialog"
        aria-modal="false"
        aria-label=${open.label}
        data-path=${JSON.stringify(open.valuePath)}
        @platform-control-change=${this.#options.onControlChange}
        @platform-control-error=${this.#options.onControlError}
        @platform-control-commit=${this.#onCommit}
      >
        <header class="sheet-head">
          <span class="handle" aria-hidden="true"></span>
          <button class="close" type="button" aria-label=${`Close ${open.label}`} @click=${() => this.close()}>✕</button>
        </header>
        ${this.#options.renderControl(open)}
      </div>`;
    }
    return html`<div
      class="overlay"
      popover="manual"
      role="dialog"
      aria-modal="false"
      aria-label=${open.label}
      data-path=${JSON.stringify(open.valuePath)}
      style="left: 0; top: 0; visibility: hidden"
      @platform-control-change=${this.#options.onControlChange}
      @platform-control-error=${this.#options.onControlError}
      @platform-control-commit=${this.#onCommit}
    >
      <header>
        <!-- The control shows its own label; a second visible title would repeat it. -->
        <button class="close" type="button" aria-label=${`Close ${open.label}`} @click=${() => this.close()}>✕</button>
      </header>
      ${this.#options.renderControl(open)}
    </div>`;
  }

  /** Puts the overlay next to its point, on screen. Also runs on resize, scroll and when the control changes size. */
  readonly place = (): void => {
    const open = this.#open;
    const overlay = this.#element();
    const iframe = this.#options.frame()?.iframe;
    if (!open || !overlay || !iframe) return;
    if (this.#options.sheet()) {
      // A sheet has its place in the styles: the bottom of the editor.
      this.#placement = null;
      return;
    }
    if (!overlay.matches(':popover-open')) overlay.showPopover();
    const rect = iframe.getBoundingClientRect();
    const box: FrameBox = {
      rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
      borderLeft: iframe.clientLeft,
      borderTop: iframe.clientTop,
      contentWidth: iframe.clientWidth,
      contentHeight: iframe.clientHeight,
    };
    const anchor: Point = templateToViewport(open.position ?? templateCentre(box), box);
    const size = overlay.getBoundingClientRect();
    const viewport = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
    const placement = placeOverlay({ anchor, size: { width: size.width, height: size.height }, viewport });
    this.#placement = placement;
    overlay.style.left = `${placement.left}px`;
    overlay.style.top = `${placement.top}px`;
    overlay.style.visibility = 'visible';
    overlay.dataset['flippedX'] = String(placement.flippedX);
    overlay.dataset['flippedY'] = String(placement.flippedY);
  };

  #element(): HTMLElement | null {
    return this.#host.renderRoot.querySelector<HTMLElement>('.overlay');
  }

  readonly #onDocumentPointerDown = (event: PointerEvent): void => {
    const overlay = this.#element();
    if (overlay && event.composedPath().includes(overlay)) return;
    this.close();
  };

  /** Escape closes the overlay wherever the focus is in this page (a control that uses escape itself stops it first). */
  readonly #onDocumentKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && !event.defaultPrevented) {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    }
  };

  readonly #onCommit = (): void => {
    this.close();
  };
}
