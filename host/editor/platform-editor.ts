/**
 * `<platform-editor>`: embeds a template of another origin at full size and
 * lets the user remix it.
 *
 *   - A remix bar: remix / preview, undo, redo, finish.
 *   - `type="instant"`: controls open as overlays where the template asks
 *     (onPresentControl) or where the user last clicked in it.
 *   - `type="full"`: also a side panel with every VCC of the template,
 *     grouped by scope, built from its `@@editor` definitions.
 *   - Narrower than `compact-below` (720 CSS px of the element's own width)
 *     it is laid out for a phone: the template fills the element, the bar
 *     (Preview, Undo, Redo, Customize, Finish) sits at the bottom within
 *     thumb reach, and a control (or the panel, behind Customize) comes up
 *     as a bottom sheet over the template, above the on-screen keyboard.
 *     `layout="wide"` or `"compact"` forces one.
 *   - Every edit goes through the RemixSession (the one source of truth,
 *     which checks it against its VCC type) and reaches the template as
 *     onValueChanged; drafts are saved to IndexedDB as the user types.
 *
 * Register it with `defineHostElements()`. Theme it with CSS custom
 * properties: `--platform-editor-bg`, `--platform-editor-fg`,
 * `--platform-editor-bar-bg`, `--platform-editor-border`,
 * `--platform-editor-panel-width`, `--platform-editor-overlay-bg`,
 * `--platform-editor-overlay-shadow`, in the compact layout
 * `--platform-editor-sheet-shadow` and `--platform-editor-compact-font`
 * (16 px by default: a phone zooms into smaller fields), and every `--platform-control-*`
 * property of the controls (see controls/control-base.ts).
 *
 * This file is the element; its parts: the overlay (control-overlay.ts),
 * the side panel (editor-panel.ts) and its sheet (panel-sheet.ts), the bar
 * (editor-bar.ts), the status line and control errors (editor-status.ts),
 * undo and redo (undo-controller.ts), the session and drafts
 * (session-controller.ts), the layout and keyboard (layout-controller.ts),
 * styles and event types.
 */
import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { VccType } from '../../protocol/customization.js';
import type { VccPath } from '../../protocol/data.js';
import { PlatformError, withoutPrefix } from '../../protocol/errors.js';
import type { ControlPosition } from '../../protocol/link.js';
import type { PresentControlEvent, RemixSession, RemixSessionEvents } from '../remix-session.js';
import type { TemplateFrame } from '../template-frame.js';
import { type ControlChangeDetail, type ControlErrorDetail, type ControlServices, type StoreSecretFunction, type UploadFunction } from './controls/control-base.js';
import { renderControl } from './controls/render-control.js';
import { discardDraft } from './drafts.js';
import { ControlOverlay, type OpenControl } from './control-overlay.js';
import type { Placement } from './overlay-position.js';
import { renderBar } from './editor-bar.js';
import { panelFocusFollower, renderPanel } from './editor-panel.js';
import { EditorStatus } from './editor-status.js';
import { PanelSheet } from './panel-sheet.js';
import { OpenScopes } from './panel-scopes.js';
import { EditorProperties } from './editor-properties.js';
import { editorStyles } from './editor-styles.js';
import type { EditorErrorDetail, EditorReadyDetail, EditorRemixingDetail, EditorValueChangeDetail } from './editor-events.js';
import { EditorLayoutController } from './layout-controller.js';
import { UndoController } from './undo-controller.js';
import { EditorSessionController, type SessionStart } from './session-controller.js';

export type { EditorControlDetail, EditorErrorDetail, EditorReadyDetail, EditorRemixingDetail, EditorValueChangeDetail } from './editor-events.js';

/** The remix editor element. See the module comment. */
export class PlatformEditor extends EditorProperties {
  static override styles = editorStyles;

  readonly #controller: EditorSessionController;
  readonly #undo: UndoController;
  readonly #status = new EditorStatus(this);
  readonly #overlay: ControlOverlay;
  readonly #layout: EditorLayoutController;
  readonly #panel: PanelSheet;
  readonly #scopes = new OpenScopes(() => this.requestUpdate());
  readonly #panelFocus = panelFocusFollower({ session: () => this.session, overlayOpen: () => this.#overlay.open !== null });
  #services: ControlServices = {};
  /** What went wrong before the template's customization was known (one refused by its limits), for the panel. */
  #loadError: string | null = null;
  #started = false;

  constructor() {
    super();
    this.#undo = new UndoController({
      session: () => this.session,
      failed: (error, path) => this.#reportError(error, path),
      changed: () => this.requestUpdate(),
    });
    this.#layout = new EditorLayoutController(this, {
      layout: () => (this.layout === 'wide' || this.layout === 'compact' ? this.layout : 'auto'),
      compactBelowPx: () => (Number.isFinite(this.compactBelow) && this.compactBelow > 0 ? this.compactBelow : 720),
      // What one layout drew has no place in the other: a sheet is not a popover next to a point.
      changed: () => {
        this.closeControl();
        this.closePanel();
      },
    });
    this.#panel = new PanelSheet(this, { compact: () => this.#layout.compact, full: () => this.type === 'full' });
    this.#overlay = new ControlOverlay(this, {
      frame: () => this.frame,
      sheet: () => this.#layout.compact,
      renderControl: (open) => this.#renderOpenControl(open),
      openChanged: (path) => {
        this.requestUpdate();
        this.session?.setActivePath(path);
      },
      onControlChange: this.#onControlChange,
      onControlError: this.#onControlError,
    });
    this.#controller = new EditorSessionController(this, {
      config: () => this.sessionConfig(),
      container: () => this.renderRoot.querySelector<HTMLElement>('.stage'),
      handlers: {
        sessionChanged: () => this.#onSessionChanged(),
        sessionEvent: (name, payload) => this.#onSessionEvent(name, payload),
        started: (start) => this.#onStarted(start),
        failed: (error, path) => this.#reportError(error, path),
      },
    });
  }

  /** The session of the current remix: values, active path, remix state. */
  get session(): RemixSession | null {
    return this.#controller.session;
  }

  /** The template's frame (null while the editor is not in the page). */
  get frame(): TemplateFrame | null {
    return this.#controller.frame;
  }

  /** Resolves when the template described its VCCs and the draft was restored. */
  whenReady(): Promise<SessionStart> {
    return this.updateComplete.then(() => this.#controller.whenStarted());
  }

  /** True when there is an edit to undo. */
  get canUndo(): boolean {
    return this.#undo.canUndo;
  }

  /** True when there is an edit to redo. */
  get canRedo(): boolean {
    return this.#undo.canRedo;
  }

  /** Path of the control open in the overlay, or null. */
  get openControlPath(): readonly string[] | null {
    return this.#overlay.open?.path ?? null;
  }

  /** Where the overlay was placed (viewport coordinates), while one is open; null for a sheet (the compact layout). */
  get overlayPlacement(): Placement | null {
    return this.#overlay.placement;
  }

  /**
   * Opens the control of `path` as an overlay at `position` (template
   * coordinates), or where the user last clicked in the template, or at its
   * centre. What the template's onPresentControl does.
   */
  openControl(path: readonly string[], position?: ControlPosition): void {
    const session = this.session;
    if (!session) throw new PlatformError('LINK_CLOSED', 'the editor has no template (set src)');
    session.presentControl(path, position);
  }

  /** True while the editor is laid out for a narrow screen (see `layout` and `compactBelow`). */
  get compact(): boolean {
    return this.#layout.compact;
  }

  /** True while the panel's sheet is up (the compact layout of `type="full"`). */
  get panelSheetOpen(): boolean {
    return this.#panel.open;
  }

  /** In the compact layout of `type="full"`: brings up the sheet of every control, as the Customize button does. */
  openPanel(): void {
    this.#panel.show();
  }

  /** Closes the panel's sheet, if it is up; the focus goes back where it was (the Customize button). */
  closePanel(): void {
    this.#panel.hide();
  }

  /** Closes the overlay, if one is open; the template's onSetActivePath hears null. */
  closeControl(): void {
    this.#overlay.close();
  }

  /** Undoes the last edit (a burst of typing in one field is one edit). Returns false when there was none. */
  undo(): boolean {
    return this.#undo.undo();
  }

  /** Redoes the last undone edit. Returns false when there was none. */
  redo(): boolean {
    return this.#undo.redo();
  }

  /** Moves to the preview, as the template's finish() does. */
  finish(): void {
    this.session?.finish();
  }

  /** Switches between remixing (true) and the preview (false). */
  setRemixing(isRemixing: boolean): void {
    const session = this.session;
    if (!session || session.remixing === isRemixing) return;
    if (!isRemixing) {
      this.closeControl();
      this.closePanel();
    }
    session.setRemixing(isRemixing);
  }

  /** Writes the pending draft now (it is written anyway within draftDelayMs). */
  flushDraft(): Promise<void> {
    return this.#controller.flushDraft();
  }

  /** Deletes this remix's draft; the values on screen stay. */
  async discardDraft(): Promise<void> {
    this.#controller.cancelDraft();
    await this.#controller.flushDraft();
    if (this.projectId && this.remixId) await discardDraft(this.projectId, this.remixId);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.addEventListener('keydown', this.#undo.onKeydown);
  }

  override disconnectedCallback(): void {
    this.closeControl();
    this.removeEventListener('keydown', this.#undo.onKeydown);
    super.disconnectedCallback();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // One services object per pair of functions: a new object would redraw every control.
    if (changed.has('upload') || changed.has('storeSecret')) {
      const services: { upload?: UploadFunction; storeSecret?: StoreSecretFunction } = {};
      if (this.upload) services.upload = this.upload;
      if (this.storeSecret) services.storeSecret = this.storeSecret;
      this.#services = services;
    }
    if ((changed.has('type') || changed.has('mode')) && this.session && this.#started) {
      const attributes = this.editorAttributes();
      const current = this.session.editorAttributes;
      if (attributes.type !== current.type || attributes.mode !== current.mode) this.session.setRemixing(this.session.remixing, attributes);
    }
  }

  protected override render(): TemplateResult {
    const session = this.session;
    const remixing = session?.remixing ?? true;
    const full = this.type === 'full';
    const compact = this.#layout.compact;
    // One shape for both layouts: the stage (which holds the template's iframe) must stay the
    // same element when the layout changes, since moving an iframe reloads it.
    return html`<div class="editor">${renderBar({
      remixing,
      compact,
      full,
      canUndo: this.#undo.canUndo,
      canRedo: this.#undo.canRedo,
      status: this.#status.message,
      panelOpen: this.#panel.open,
      switchTo: (isRemixing) => this.#switchTo(isRemixing),
      undo: () => this.undo(),
      redo: () => this.redo(),
      togglePanel: this.#panel.toggle,
      finish: () => this.finish(),
    })}
      <div class=${compact ? 'body compact' : 'body'} @platform-control-change=${this.#onControlChange} @platform-control-error=${this.#onControlError}>
        <div class="stage"></div>
        ${
          full
            ? renderPanel({
                customization: session?.customization ?? null,
                loadError: this.#loadError,
                remixing,
                renderField: (path, field, type, disabled) =>
                  session ? this.#renderFieldControl(session, path, type, field.name ?? field.key, field.description, disabled) : html``,
                focus: this.#panelFocus,
                scopes: session?.customization ? this.#scopes.pass(session.customization, this.panelOpenFields) : null,
                sheet: compact ? { open: this.#panel.open, close: () => this.closePanel() } : null,
              })
            : nothing
        }
        ${session ? this.#overlay.render() : nothing}
      </div></div>`;
  }

  /** Remix or Preview from the bar. In the compact bar the pressed one is hidden: the focus moves to the other. */
  #switchTo(isRemixing: boolean): void {
    this.setRemixing(isRemixing);
    if (!this.#layout.compact) return;
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(isRemixing ? '#preview' : '#remix')?.focus());
  }

  #renderFieldControl(session: RemixSession, path: VccPath, type: VccType, label: string, description: string | undefined, disabled: boolean): TemplateResult {
    const error = this.#status.errorOf(path);
    return renderControl({
      path,
      type,
      value: session.get(path),
      label,
      ...(description !== undefined ? { description } : {}),
      services: this.#services,
      disabled,
      ...(error !== undefined ? { error } : {}),
    });
  }

  #renderOpenControl(open: OpenControl): TemplateResult {
    const session = this.session;
    return session ? this.#renderFieldControl(session, open.valuePath, open.type, open.label, open.description, false) : html``;
  }

  #onSessionChanged(): void {
    this.closeControl();
    this.closePanel();
    this.#undo.clear();
    this.#status.forgetControlErrors();
    this.#loadError = null;
    this.#started = false;
    this.requestUpdate();
  }

  #onStarted(start: SessionStart): void {
    this.#started = true;
    if (start.restored > 0 || start.refused.length > 0) {
      this.#status.note(`Draft restored (${start.restored} value${start.restored === 1 ? '' : 's'}${start.refused.length > 0 ? `, ${start.refused.length} refused` : ''})`);
    }
    this.dispatchEvent(new CustomEvent<EditorReadyDetail>('platform-editor-ready', { detail: start, bubbles: true, composed: true }));
  }

  #onSessionEvent<Name extends keyof RemixSessionEvents & string>(name: Name, payload: RemixSessionEvents[Name]): void {
    switch (name) {
      case 'valuechange':
        this.#onValueChange(payload as RemixSessionEvents['valuechange']);
        break;
      case 'presentcontrol':
        this.#onPresentControl(payload as PresentControlEvent);
        break;
      case 'pointer':
        // A click in the template is a click outside the overlay; a control it asks for next opens again.
        this.closeControl();
        break;
      case 'finish':
        this.closeControl();
        this.dispatchEvent(new CustomEvent('platform-finish', { bubbles: true, composed: true }));
        break;
      case 'remixingchange': {
        const { isRemixing } = payload as RemixSessionEvents['remixingchange'];
        if (!isRemixing) {
          this.closeControl();
          this.closePanel();
        }
        // What went wrong while editing is not news in the preview, nor after it.
        this.#status.clear();
        this.dispatchEvent(new CustomEvent<EditorRemixingDetail>('platform-remixing-change', { detail: { isRemixing }, bubbles: true, composed: true }));
        this.requestUpdate();
        break;
      }
      case 'refusedvalue': {
        const { path, error } = payload as RemixSessionEvents['refusedvalue'];
        // The path is the template's, unchecked: a segment that is not a string has no field to name (and String() of an object with its own toString throws).
        const fieldPath = Array.isArray(path) && path.every((segment) => typeof segment === 'string') ? path : undefined;
        this.#reportError(new PlatformError(error.code, `the template sent a value that was refused: ${withoutPrefix(error.message)}`), fieldPath);
        break;
      }
      case 'error':
        if (!this.session?.customization) this.#loadError = withoutPrefix((payload as PlatformError).message);
        this.#reportError(payload as PlatformError);
        break;
      // Events the panel draws from the session's own state: a render is all they need. Listed, not a
      // default, so that an event added to RemixSessionEvents is named here by the linter.
      case 'activepathchange':
      case 'customization':
      case 'defaultmisfits':
        this.requestUpdate();
    }
  }

  #onValueChange(change: RemixSessionEvents['valuechange']): void {
    const [scope, key] = change.path;
    if (scope !== undefined && key !== undefined) {
      this.#undo.noteChange(scope, key, this.#started);
      this.#status.accepted(scope, key);
    }
    this.requestUpdate();
    this.dispatchEvent(new CustomEvent<EditorValueChangeDetail>('platform-value-change', { detail: change, bubbles: true, composed: true }));
  }

  #onPresentControl(event: PresentControlEvent): void {
    const session = this.session;
    // In the preview the template is shown as a viewer sees it: no controls open.
    if (!session?.remixing) return;
    // A deep path (['general', 'reveal', 'image']) opens that nested field's own control.
    const { path, controlPath, type, field, label, description, position } = event;
    this.#overlay.show({ path, valuePath: controlPath, type, field, label, ...(description !== undefined ? { description } : {}), position });
  }

  readonly #onControlChange = (event: CustomEvent<ControlChangeDetail>): void => {
    // The overlay sits inside .body's sibling; stop here so the same change is not handled twice.
    event.stopPropagation();
    const { path, value } = event.detail;
    const session = this.session;
    if (!session) return;
    try {
      session.setValue(path, value);
    } catch (error) {
      const coded = error instanceof PlatformError ? error : new PlatformError('INVALID_VALUE', String(error));
      this.#status.refused(path, coded);
      this.#dispatchError(coded, path);
    }
  };

  readonly #onControlError = (event: CustomEvent<ControlErrorDetail>): void => {
    event.stopPropagation();
    this.#dispatchError(event.detail.error, event.detail.path);
  };

  #reportError(error: PlatformError, path?: readonly string[]): void {
    this.#status.report(error, path);
    this.#dispatchError(error, path);
  }

  #dispatchError(error: PlatformError, path?: readonly string[]): void {
    const detail: EditorErrorDetail = path ? { error, path } : { error };
    this.dispatchEvent(new CustomEvent<EditorErrorDetail>('platform-editor-error', { detail, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'platform-editor': PlatformEditor;
  }
}
