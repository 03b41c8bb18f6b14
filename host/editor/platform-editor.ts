/**
 * `<platform-editor>`: embeds a template of another origin at full size and
 * lets the user remix it.
 *
 *   - A remix bar: remix / preview, undo, redo, finish.
 *   - `type="instant"`: controls open as overlays where the template asks
 *     (onPresentControl) or where the user last clicked in it.
 *   - `type="full"`: also a side panel with every VCC of the template,
 *     grouped by scope, built from its `@@editor` definitions.
 *   - Every edit goes through the RemixSession (the one source of truth,
 *     which checks it against its VCC type) and reaches the template as
 *     onValueChanged; drafts are saved to IndexedDB as the user types.
 *
 * Register it with `defineHostElements()`. Theme it with CSS custom
 * properties: `--platform-editor-bg`, `--platform-editor-fg`,
 * `--platform-editor-bar-bg`, `--platform-editor-border`,
 * `--platform-editor-panel-width`, `--platform-editor-overlay-bg`,
 * `--platform-editor-overlay-shadow`, and every `--platform-control-*`
 * property of the controls (see controls/control-base.ts).
 */
import { css, html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { parseVccType, PREDEFINED_SCOPES, type BuiltCustomization, type VccFieldDefinition, type VccType } from '../../protocol/customization.js';
import { samePath, type PlainData, type VccPath } from '../../protocol/data.js';
import { PlatformError } from '../../protocol/errors.js';
import type { ControlPosition, EditorAttributes, ValueOverrides } from '../../protocol/link.js';
import type { PresentControlEvent, RemixSession, RemixSessionEvents, ValueSource } from '../remix-session.js';
import type { TemplateFrame } from '../template-frame.js';
import {
  CONTROL_CHANGE_EVENT,
  type ControlChangeDetail,
  type ControlErrorDetail,
  type ControlServices,
  type StoreSecretFunction,
  type UploadFunction,
} from './controls/control-base.js';
import { renderControl } from './controls/render-control.js';
import { discardDraft } from './drafts.js';
import { EditHistory } from './history.js';
import { placeOverlay, templateCentre, templateToViewport, type FrameBox, type Placement, type Point } from './overlay-position.js';
import { EditorSessionController, type SessionConfig, type SessionStart } from './session-controller.js';

/** Detail of `platform-editor-ready`. */
export interface EditorReadyDetail extends SessionStart {}

/** Detail of `platform-value-change`: a value changed (by a control, the template, undo/redo or a draft). */
export interface EditorValueChangeDetail {
  readonly path: readonly string[];
  readonly value: PlainData;
  readonly source: ValueSource;
}

/** Detail of `platform-editor-error`: a refused value (from the template, a draft or a control) or a failure. */
export interface EditorErrorDetail {
  readonly error: PlatformError;
  /** The VCC path concerned, when there is one. */
  readonly path?: readonly string[];
}

/** Detail of `platform-control-open` and `platform-control-close`. */
export interface EditorControlDetail {
  readonly path: readonly string[];
}

/** Detail of `platform-remixing-change`. */
export interface EditorRemixingDetail {
  readonly isRemixing: boolean;
}

declare global {
  interface HTMLElementTagNameMap {
    'platform-editor': PlatformEditor;
  }
  interface HTMLElementEventMap {
    'platform-editor-ready': CustomEvent<EditorReadyDetail>;
    'platform-value-change': CustomEvent<EditorValueChangeDetail>;
    'platform-editor-error': CustomEvent<EditorErrorDetail>;
    'platform-control-open': CustomEvent<EditorControlDetail>;
    'platform-control-close': CustomEvent<EditorControlDetail>;
    'platform-remixing-change': CustomEvent<EditorRemixingDetail>;
    'platform-finish': CustomEvent<undefined>;
  }
}

/** The control open in the overlay. */
interface OpenControl {
  /** The path the template asked for (what onSetActivePath reports). */
  readonly path: VccPath;
  /** `[scope, key]`: the value the control edits. */
  readonly valuePath: VccPath;
  readonly type: VccType;
  readonly field: VccFieldDefinition | undefined;
  /** Template coordinates the overlay belongs to; null: the template's centre. */
  readonly position: ControlPosition | null;
}

const pathKey = (path: readonly string[]): string => JSON.stringify(path);

/** The remix editor element. See the module comment. */
export class PlatformEditor extends LitElement {
  static override properties: PropertyDeclarations = {
    src: { type: String },
    type: { type: String, reflect: true },
    mode: { type: String, reflect: true },
    projectId: { type: String, attribute: 'project-id' },
    remixId: { type: String, attribute: 'remix-id' },
    noDrafts: { type: Boolean, attribute: 'no-drafts' },
    draftDelayMs: { type: Number, attribute: 'draft-delay-ms' },
    templateTitle: { type: String, attribute: 'template-title' },
    values: { attribute: false },
    allowedOrigins: { attribute: false },
    upload: { attribute: false },
    storeSecret: { attribute: false },
    openPath: { state: true },
    status: { state: true },
  };

  static override styles = css`
    :host {
      display: flex;
      flex-direction: column;
      height: 100%;
      min-height: 240px;
      box-sizing: border-box;
      font: var(--platform-control-font, 14px/1.4 system-ui, sans-serif);
      color: var(--platform-editor-fg, #1b1b1f);
      background: var(--platform-editor-bg, #f4f4f6);
    }
    :host([hidden]) {
      display: none;
    }
    .bar {
      flex: none;
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 6px;
      padding: 6px 8px;
      background: var(--platform-editor-bar-bg, #fff);
      border-bottom: 1px solid var(--platform-editor-border, #d4d4da);
    }
    .bar button {
      font: inherit;
      padding: 4px 12px;
      border-radius: var(--platform-control-radius, 6px);
      border: 1px solid var(--platform-editor-border, #d4d4da);
      background: transparent;
      color: inherit;
      cursor: pointer;
    }
    .bar button[aria-pressed='true'] {
      background: var(--platform-control-accent, #3b5bdb);
      border-color: var(--platform-control-accent, #3b5bdb);
      color: var(--platform-control-accent-fg, #fff);
    }
    .bar button.finish {
      margin-left: auto;
      background: var(--platform-control-accent, #3b5bdb);
      border-color: var(--platform-control-accent, #3b5bdb);
      color: var(--platform-control-accent-fg, #fff);
    }
    .bar button:disabled {
      opacity: 0.45;
      cursor: default;
    }
    .bar button:focus-visible,
    .overlay button:focus-visible {
      outline: none;
      box-shadow: var(--platform-control-focus-ring, 0 0 0 3px color-mix(in srgb, var(--platform-control-accent, #3b5bdb) 45%, transparent));
    }
    .status {
      color: var(--platform-control-muted, #5c5c66);
      font-size: 0.9em;
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .body {
      flex: 1;
      display: flex;
      min-height: 0;
    }
    .stage {
      flex: 1;
      position: relative;
      min-width: 0;
    }
    .stage iframe {
      position: absolute;
      inset: 0;
      width: 100%;
      height: 100%;
      border: 0;
      background: #fff;
    }
    .panel {
      flex: none;
      width: var(--platform-editor-panel-width, 320px);
      overflow: auto;
      padding: 8px 12px;
      box-sizing: border-box;
      border-left: 1px solid var(--platform-editor-border, #d4d4da);
      background: var(--platform-editor-bar-bg, #fff);
    }
    .panel h2 {
      font-size: 1em;
      margin: 12px 0 6px;
    }
    .panel .field {
      margin-bottom: 12px;
    }
    .overlay {
      position: fixed;
      inset: auto;
      margin: 0;
      box-sizing: border-box;
      width: max-content;
      min-width: 220px;
      max-width: min(360px, calc(100vw - 16px));
      max-height: calc(100vh - 16px);
      overflow: auto;
      /* Room on the right for the close button beside the control's label. */
      padding: 10px 40px 10px 12px;
      color: inherit;
      background: var(--platform-editor-overlay-bg, #fff);
      border: 1px solid var(--platform-editor-border, #d4d4da);
      border-radius: 8px;
      box-shadow: var(--platform-editor-overlay-shadow, 0 8px 28px rgb(0 0 0 / 0.18));
    }
    .overlay header {
      position: absolute;
      top: 6px;
      right: 6px;
    }
    .overlay header h2 {
      font-size: 0.95em;
      margin: 0;
    }
    .overlay .close {
      font: inherit;
      border: 0;
      background: transparent;
      color: inherit;
      cursor: pointer;
      padding: 2px 6px;
      border-radius: 4px;
    }
  `;

  /** URL of the template (another origin). */
  declare src: string;
  /** `instant`: remixing in place; `full`: adds the side panel of every VCC. */
  declare type: EditorAttributes['type'];
  /** `new`: a new remix; `edit`: editing an existing one. */
  declare mode: EditorAttributes['mode'];
  /** The project being remixed: with remixId, names the draft. */
  declare projectId: string;
  /** The remix: with projectId, names the draft. */
  declare remixId: string;
  /** Turns drafts off. */
  declare noDrafts: boolean;
  /** Longest wait between an edit and its draft save, in ms (at most 500). */
  declare draftDelayMs: number;
  /** Accessible title of the template's iframe. */
  declare templateTitle: string;
  /** Values the remix starts with (an existing remix in `edit` mode); a draft is restored over them. */
  declare values: ValueOverrides;
  /** More origins the template may answer from (a CDN it redirects to). */
  declare allowedOrigins: readonly string[];
  /** The host's upload function for image, sound, video and file VCCs. */
  declare upload: UploadFunction | undefined;
  /** The host's keystore function for secret VCCs. */
  declare storeSecret: StoreSecretFunction | undefined;
  /** Path of the control open in the overlay, or null. */
  declare protected openPath: VccPath | null;
  /** The last message of the status line. */
  declare protected status: string;

  readonly #controller: EditorSessionController;
  readonly #history = new EditHistory();
  /** Last value seen at each `[scope, key]`: the `before` of the next history step. */
  readonly #known = new Map<string, PlainData | undefined>();
  /** Errors shown under controls, by path. */
  readonly #errors = new Map<string, string>();
  #open: OpenControl | null = null;
  #services: ControlServices = {};
  #started = false;
  #applyingHistory = false;
  #returnFocus: HTMLElement | null = null;
  #resizeObserver: ResizeObserver | null = null;
  #placement: Placement | null = null;

  constructor() {
    super();
    this.src = '';
    this.type = 'instant';
    this.mode = 'new';
    this.projectId = '';
    this.remixId = '';
    this.noDrafts = false;
    this.draftDelayMs = 200;
    this.templateTitle = 'Template';
    this.values = {};
    this.allowedOrigins = [];
    this.upload = undefined;
    this.storeSecret = undefined;
    this.openPath = null;
    this.status = '';
    this.#controller = new EditorSessionController(this, {
      config: () => this.#sessionConfig(),
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
    return this.#history.canUndo;
  }

  /** True when there is an edit to redo. */
  get canRedo(): boolean {
    return this.#history.canRedo;
  }

  /** Path of the control open in the overlay, or null. */
  get openControlPath(): readonly string[] | null {
    return this.#open?.path ?? null;
  }

  /** Where the overlay was placed (viewport coordinates), while one is open. */
  get overlayPlacement(): Placement | null {
    return this.#open ? this.#placement : null;
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

  /** Closes the overlay, if one is open; the template's onSetActivePath hears null. */
  closeControl(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = null;
    this.openPath = null;
    this.#resizeObserver?.disconnect();
    this.#resizeObserver = null;
    window.removeEventListener('resize', this.#placeOverlay);
    window.removeEventListener('scroll', this.#placeOverlay, true);
    document.removeEventListener('pointerdown', this.#onDocumentPointerDown, true);
    document.removeEventListener('keydown', this.#onDocumentKeydown);
    const overlay = this.renderRoot.querySelector<HTMLElement>('.overlay');
    if (overlay?.matches(':popover-open')) overlay.hidePopover();
    this.session?.setActivePath(null);
    const back = this.#returnFocus;
    this.#returnFocus = null;
    if (back?.isConnected) back.focus({ preventScroll: true });
    this.dispatchEvent(new CustomEvent<EditorControlDetail>('platform-control-close', { detail: { path: open.path }, bubbles: true, composed: true }));
  }

  /** Undoes the last edit (a burst of typing in one field is one edit). Returns false when there was none. */
  undo(): boolean {
    return this.#applyHistory('undo');
  }

  /** Redoes the last undone edit. Returns false when there was none. */
  redo(): boolean {
    return this.#applyHistory('redo');
  }

  /** Moves to the preview, as the template's finish() does. */
  finish(): void {
    this.session?.finish();
  }

  /** Switches between remixing (true) and the preview (false). */
  setRemixing(isRemixing: boolean): void {
    const session = this.session;
    if (!session || session.remixing === isRemixing) return;
    if (!isRemixing) this.closeControl();
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
    this.addEventListener('keydown', this.#onKeydown);
  }

  override disconnectedCallback(): void {
    this.closeControl();
    this.removeEventListener('keydown', this.#onKeydown);
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
      const attributes = this.#editorAttributes();
      const current = this.session.editorAttributes;
      if (attributes.type !== current.type || attributes.mode !== current.mode) this.session.setRemixing(this.session.remixing, attributes);
    }
  }

  protected override render(): TemplateResult {
    const session = this.session;
    const remixing = session?.remixing ?? true;
    const full = this.type === 'full';
    return html`<div class="bar" role="toolbar" aria-label="Remix" @keydown=${this.#onToolbarKeydown}>
        <button id="remix" type="button" aria-pressed=${remixing ? 'true' : 'false'} @click=${() => this.setRemixing(true)}>Remix</button>
        <button id="preview" type="button" aria-pressed=${remixing ? 'false' : 'true'} @click=${() => this.setRemixing(false)}>Preview</button>
        <button id="undo" type="button" aria-keyshortcuts="Control+Z" ?disabled=${!this.#history.canUndo} @click=${() => this.undo()}>Undo</button>
        <button id="redo" type="button" aria-keyshortcuts="Control+Shift+Z Control+Y" ?disabled=${!this.#history.canRedo} @click=${() => this.redo()}>Redo</button>
        <span class="status" role="status">${this.status}</span>
        <button id="finish" class="finish" type="button" ?disabled=${!remixing} @click=${() => this.finish()}>Finish</button>
      </div>
      <div class="body" @platform-control-change=${this.#onControlChange} @platform-control-error=${this.#onControlError}>
        <div class="stage"></div>
        ${full ? this.#renderPanel(session, remixing) : nothing}
      </div>
      ${this.#renderOverlay(session)}`;
  }

  protected override updated(): void {
    if (this.#open) this.#placeOverlay();
  }

  #renderPanel(session: RemixSession | null, remixing: boolean): TemplateResult {
    const customization = session?.customization;
    return html`<aside class="panel" aria-label="Customize" @focusin=${this.#onPanelFocus} @focusout=${this.#onPanelBlur}>
      ${customization ? this.#panelScopes(customization, session, remixing) : html`<p class="status">Loading the template…</p>`}
    </aside>`;
  }

  #panelScopes(customization: BuiltCustomization, session: RemixSession, remixing: boolean): TemplateResult[] {
    return customization.editor
      .filter((scope) => !PREDEFINED_SCOPES.has(scope.key))
      .map(
        (scope) => html`<section aria-labelledby=${`scope-${scope.key}`}>
          <h2 id=${`scope-${scope.key}`}>${scope.name ?? scope.key}</h2>
          ${scope.description ? html`<p class="status">${scope.description}</p>` : nothing}
          ${scope.fields.map((field) => {
            const path = [scope.key, field.key];
            return html`<div class="field" data-path=${pathKey(path)}>${this.#renderFieldControl(session, path, field, typeOf(field), !remixing)}</div>`;
          })}
        </section>`,
      );
  }

  #renderFieldControl(session: RemixSession, path: VccPath, field: VccFieldDefinition | undefined, type: VccType, disabled: boolean): TemplateResult {
    const error = this.#errors.get(pathKey(path));
    return renderControl({
      path,
      type,
      value: session.get(path),
      label: field?.name ?? path[path.length - 1] ?? '',
      ...(field?.description !== undefined ? { description: field.description } : {}),
      services: this.#services,
      disabled,
      ...(error !== undefined ? { error } : {}),
    });
  }

  #renderOverlay(session: RemixSession | null): TemplateResult | typeof nothing {
    const open = this.#open;
    if (!open || !session) return nothing;
    const label = open.field?.name ?? open.valuePath[open.valuePath.length - 1] ?? 'Value';
    return html`<div
      class="overlay"
      popover="manual"
      role="dialog"
      aria-modal="false"
      aria-label=${label}
      data-path=${pathKey(open.valuePath)}
      style="left: 0; top: 0; visibility: hidden"
      @platform-control-change=${this.#onControlChange}
      @platform-control-error=${this.#onControlError}
      @platform-control-commit=${this.#onCommit}
    >
      <header>
        <!-- The control shows its own label; a second visible title would repeat it. -->
        <button class="close" type="button" aria-label=${`Close ${label}`} @click=${() => this.closeControl()}>✕</button>
      </header>
      ${this.#renderFieldControl(session, open.valuePath, open.field, open.type, false)}
    </div>`;
  }

  #sessionConfig(): SessionConfig {
    return {
      src: this.src,
      projectId: this.projectId,
      remixId: this.remixId,
      editorAttributes: this.#editorAttributes(),
      values: this.values,
      allowedOrigins: this.allowedOrigins,
      drafts: !this.noDrafts,
      draftDelayMs: this.draftDelayMs,
      title: this.templateTitle,
    };
  }

  #editorAttributes(): EditorAttributes {
    return { type: this.type === 'full' ? 'full' : 'instant', mode: this.mode === 'edit' ? 'edit' : 'new' };
  }

  #onSessionChanged(): void {
    this.closeControl();
    this.#history.clear();
    this.#known.clear();
    this.#errors.clear();
    this.#started = false;
    this.requestUpdate();
  }

  #onStarted(start: SessionStart): void {
    this.#started = true;
    if (start.restored > 0 || start.refused.length > 0) {
      this.status = `Draft restored (${start.restored} value${start.restored === 1 ? '' : 's'}${start.refused.length > 0 ? `, ${start.refused.length} refused` : ''})`;
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
        if (!isRemixing) this.closeControl();
        this.dispatchEvent(new CustomEvent<EditorRemixingDetail>('platform-remixing-change', { detail: { isRemixing }, bubbles: true, composed: true }));
        this.requestUpdate();
        break;
      }
      case 'refusedvalue': {
        const { path, error } = payload as RemixSessionEvents['refusedvalue'];
        this.#reportError(new PlatformError(error.code, `the template sent a value that was refused: ${error.message.replace(/^platform-kit: /, '')}`), Array.isArray(path) ? path.map(String) : undefined);
        break;
      }
      case 'error':
        this.#reportError(payload as PlatformError);
        break;
      default:
        this.requestUpdate();
    }
  }

  #onValueChange(change: RemixSessionEvents['valuechange']): void {
    const [scope, key] = change.path;
    if (scope !== undefined && key !== undefined) {
      const entryPath = [scope, key];
      const entryKey = pathKey(entryPath);
      const session = this.session;
      const after = session?.get(entryPath);
      if (this.#started && !this.#applyingHistory && after !== undefined) {
        const before = this.#known.has(entryKey) ? this.#known.get(entryKey) : builtValue(session?.customization ?? null, scope, key);
        this.#history.record(entryPath, before, after, performance.now());
      }
      this.#known.set(entryKey, after);
      this.#errors.delete(entryKey);
    }
    this.requestUpdate();
    this.dispatchEvent(new CustomEvent<EditorValueChangeDetail>('platform-value-change', { detail: change, bubbles: true, composed: true }));
  }

  #onPresentControl(event: PresentControlEvent): void {
    const session = this.session;
    // In the preview the template is shown as a viewer sees it: no controls open.
    if (!session?.remixing) return;
    const [scope, key] = event.path;
    if (scope === undefined || key === undefined) {
      this.#reportError(new PlatformError('INVALID_PATH', 'a control opens for a [scope, key] path'), event.path);
      return;
    }
    const wasOpen = this.#open !== null;
    if (!wasOpen) this.#returnFocus = deepActiveElement();
    this.#open = { path: event.path, valuePath: [scope, key], type: event.type, field: event.field, position: event.position };
    this.openPath = event.path;
    session.setActivePath(event.path);
    if (!wasOpen) {
      window.addEventListener('resize', this.#placeOverlay);
      window.addEventListener('scroll', this.#placeOverlay, true);
      document.addEventListener('pointerdown', this.#onDocumentPointerDown, true);
      document.addEventListener('keydown', this.#onDocumentKeydown);
    }
    void this.updateComplete.then(async () => {
      const overlay = this.renderRoot.querySelector<HTMLElement>('.overlay');
      if (!overlay || this.#open?.path !== event.path) return;
      const control = overlay.querySelector<HTMLElement & { updateComplete?: Promise<boolean> }>('[data-kind]');
      // The control draws its inputs in its own update: place the overlay (it stays hidden until
      // then) and focus the inputs once they exist, so it shows at its final size and place
      // instead of jumping when the control grows. Later size changes re-place it.
      await control?.updateComplete;
      if (this.#open?.path !== event.path) return;
      this.#resizeObserver ??= new ResizeObserver(() => this.#placeOverlay());
      this.#resizeObserver.observe(overlay);
      this.#placeOverlay();
      control?.focus({ preventScroll: true });
      this.dispatchEvent(new CustomEvent<EditorControlDetail>('platform-control-open', { detail: { path: event.path }, bubbles: true, composed: true }));
    });
  }

  /** Puts the overlay next to its point, on screen. Also runs on resize, scroll and when the control changes size. */
  readonly #placeOverlay = (): void => {
    const open = this.#open;
    const overlay = this.renderRoot.querySelector<HTMLElement>('.overlay');
    const iframe = this.frame?.iframe;
    if (!open || !overlay || !iframe) return;
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

  readonly #onDocumentPointerDown = (event: PointerEvent): void => {
    const overlay = this.renderRoot.querySelector('.overlay');
    if (overlay && event.composedPath().includes(overlay)) return;
    this.closeControl();
  };

  /** Escape closes the overlay wherever the focus is in this page (a control that uses escape itself stops it first). */
  readonly #onDocumentKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && !event.defaultPrevented) {
      event.preventDefault();
      event.stopPropagation();
      this.closeControl();
    }
  };

  readonly #onCommit = (): void => {
    this.closeControl();
  };

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
      this.#errors.set(pathKey(path), coded.message.replace(/^platform-kit: /, ''));
      this.#reportError(coded, path);
      this.requestUpdate();
    }
  };

  readonly #onControlError = (event: CustomEvent<ControlErrorDetail>): void => {
    event.stopPropagation();
    this.dispatchEvent(new CustomEvent<EditorErrorDetail>('platform-editor-error', { detail: { error: event.detail.error, path: event.detail.path }, bubbles: true, composed: true }));
  };

  readonly #onPanelFocus = (event: FocusEvent): void => {
    if (this.#open) return;
    const holder = (event.target as Element).closest<HTMLElement>('[data-path]');
    const path = holder ? (JSON.parse(holder.dataset['path'] ?? '[]') as string[]) : null;
    if (path && this.session?.remixing && !samePath(path, this.session.activePath)) this.session.setActivePath(path);
  };

  readonly #onPanelBlur = (event: FocusEvent): void => {
    if (this.#open) return;
    const next = event.relatedTarget as Node | null;
    const panel = this.renderRoot.querySelector('.panel');
    if (next && panel?.contains(next)) return;
    this.session?.setActivePath(null);
  };

  readonly #onKeydown = (event: KeyboardEvent): void => {
    const modifier = event.ctrlKey || event.metaKey;
    if (!modifier || event.altKey) return;
    const key = event.key.toLowerCase();
    const isUndo = key === 'z' && !event.shiftKey;
    const isRedo = (key === 'z' && event.shiftKey) || key === 'y';
    if (!isUndo && !isRedo) return;
    // Text fields keep their own undo of what is being typed.
    const target = event.composedPath()[0];
    if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && /^(text|search|password|url|email|number|)$/.test(target.type))) return;
    event.preventDefault();
    if (isUndo) this.undo();
    else this.redo();
  };

  readonly #onToolbarKeydown = (event: KeyboardEvent): void => {
    // Arrow keys move between the bar's buttons (the toolbar pattern); tab still leaves it.
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const buttons = [...this.renderRoot.querySelectorAll<HTMLButtonElement>('.bar button:not(:disabled)')];
    const index = buttons.indexOf(event.target as HTMLButtonElement);
    if (index < 0) return;
    event.preventDefault();
    buttons[(index + (event.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
  };

  #applyHistory(direction: 'undo' | 'redo'): boolean {
    const session = this.session;
    const entry = direction === 'undo' ? this.#history.undo() : this.#history.redo();
    if (!session || !entry) return false;
    const value = direction === 'undo' ? entry.before : entry.after;
    if (value === undefined) {
      this.requestUpdate();
      return false;
    }
    this.#applyingHistory = true;
    try {
      session.setValue(entry.path, value);
    } catch (error) {
      this.#reportError(error instanceof PlatformError ? error : new PlatformError('INTERNAL', String(error)), entry.path);
    } finally {
      this.#applyingHistory = false;
    }
    this.requestUpdate();
    return true;
  }

  #reportError(error: PlatformError, path?: readonly string[]): void {
    this.status = error.message.replace(/^platform-kit: /, '');
    const detail: EditorErrorDetail = path ? { error, path } : { error };
    this.dispatchEvent(new CustomEvent<EditorErrorDetail>('platform-editor-error', { detail, bubbles: true, composed: true }));
  }
}

function typeOf(field: VccFieldDefinition): VccType {
  try {
    return parseVccType(field.type, field.typeOptions);
  } catch {
    // A definition with bad options still gets a control: the JSON fallback.
    return { kind: 'unknown', name: field.type };
  }
}

function builtValue(customization: BuiltCustomization | null, scope: string, key: string): PlainData | undefined {
  const entries = customization?.values[scope];
  return entries && Object.prototype.hasOwnProperty.call(entries, key) ? entries[key] : undefined;
}

/** The focused element, looking inside open shadow roots. */
function deepActiveElement(): HTMLElement | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}
