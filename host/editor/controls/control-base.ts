/**
 * What every VCC control element shares: its reactive properties, the events
 * it sends, the services the editor hands it (upload, keystore), and the
 * themable styles.
 *
 * A control never writes to the session itself. It sends
 * `platform-control-change` with the whole new value of its path, after
 * checking it against its own VCC type; the editor (or a parent array or
 * object control) decides what to do with it. That keeps one source of truth
 * (RemixSession) and lets composite controls build their value from their
 * children's.
 */
import { css, html, LitElement, nothing, type CSSResultGroup, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { VccType } from '../../../protocol/customization.js';
import { assertFitsBeside } from '../../../protocol/value-fit.js';
import type { PlainData, VccPath } from '../../../protocol/data.js';
import { PlatformError, withoutPrefix } from '../../../protocol/errors.js';

/** Options the editor passes to the host's upload function. */
export interface UploadOptions {
  /** The VCC path the file is for. */
  readonly path: VccPath;
  /** Call with the fraction sent so far, 0 to 1: the control shows it in a progress bar. */
  readonly onProgress: (fraction: number) => void;
  /** Aborted when the user cancels (escape) or the control goes away; honouring it is up to the host. */
  readonly signal: AbortSignal;
}

/** The host's upload function: stores `file` and resolves with its URL (http(s) or a path). */
export type UploadFunction = (file: File, options: UploadOptions) => Promise<string>;

/** Options the editor passes to the host's keystore function. */
export interface StoreSecretOptions {
  /** The VCC path the secret is for. */
  readonly path: VccPath;
}

/**
 * The host's keystore function: stores the secret `value` and resolves with
 * its key path (`platform-keystore://…`). Only the key path is ever stored in
 * the remix; the secret itself never leaves this call.
 */
export type StoreSecretFunction = (value: string, options: StoreSecretOptions) => Promise<string>;

/** What the editor gives its controls. */
export interface ControlServices {
  readonly upload?: UploadFunction;
  readonly storeSecret?: StoreSecretFunction;
}

/** Detail of `platform-control-change`: the whole new value of `path`. */
export interface ControlChangeDetail {
  readonly path: VccPath;
  readonly value: PlainData;
}

/** Detail of `platform-control-commit`: the user confirmed (enter); an overlay may close. */
export interface ControlCommitDetail {
  readonly path: VccPath;
}

/** Detail of `platform-control-error`: the control refused the user's input. */
export interface ControlErrorDetail {
  readonly path: VccPath;
  readonly error: PlatformError;
}

/** Sent (bubbling, composed) when the user changed the value. */
export const CONTROL_CHANGE_EVENT = 'platform-control-change';
/** Sent (bubbling, composed) when the user confirmed with enter. */
export const CONTROL_COMMIT_EVENT = 'platform-control-commit';
/** Sent (bubbling, composed) when the control refused the user's input (bad type, too large, a failed upload). */
export const CONTROL_ERROR_EVENT = 'platform-control-error';

declare global {
  interface HTMLElementEventMap {
    'platform-control-change': CustomEvent<ControlChangeDetail>;
    'platform-control-commit': CustomEvent<ControlCommitDetail>;
    'platform-control-error': CustomEvent<ControlErrorDetail>;
  }
}

/**
 * What a text box shows for a value: the string, or a number or boolean as
 * written (a template's default such as `appearAfter: 3` kept as it is: the
 * box shows 3, and the first edit stores a string, as the original's did).
 */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/**
 * The custom properties every control reads, so a host page themes them all
 * at once (they inherit through shadow roots):
 *
 * `--platform-control-font`, `--platform-control-fg`, `--platform-control-bg`,
 * `--platform-control-muted`, `--platform-control-border`,
 * `--platform-control-radius`, `--platform-control-accent`,
 * `--platform-control-accent-fg`, `--platform-control-error`,
 * `--platform-control-gap`, `--platform-control-focus-ring`,
 * `--platform-control-target-size` (the least height of inputs and buttons:
 * 44px in the editor's compact layout), `--platform-control-check-size`.
 */
export const controlStyles = css`
  :host {
    display: block;
    font: var(--platform-control-font, 14px/1.4 system-ui, sans-serif);
    color: var(--platform-control-fg, #1b1b1f);
    --_gap: var(--platform-control-gap, 6px);
    --_border: var(--platform-control-border, #b8b8c0);
    --_radius: var(--platform-control-radius, 6px);
    --_accent: var(--platform-control-accent, #3b5bdb);
    --_focus: var(--platform-control-focus-ring, 0 0 0 3px color-mix(in srgb, var(--_accent) 45%, transparent));
  }
  :host([hidden]) {
    display: none;
  }
  .field {
    display: grid;
    gap: var(--_gap);
  }
  label,
  legend,
  .label {
    font-weight: 600;
  }
  .description {
    margin: 0;
    color: var(--platform-control-muted, #5c5c66);
    font-size: 0.9em;
  }
  .error {
    margin: 0;
    color: var(--platform-control-error, #c92a2a);
    font-size: 0.9em;
  }
  .row {
    display: flex;
    gap: var(--_gap);
    align-items: center;
    flex-wrap: wrap;
  }
  input:not([type='checkbox']):not([type='range']):not([type='color']),
  textarea,
  select {
    font: inherit;
    color: inherit;
    background: var(--platform-control-bg, #fff);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 4px 8px;
    min-width: 0;
  }
  input[aria-invalid='true'],
  textarea[aria-invalid='true'] {
    border-color: var(--platform-control-error, #c92a2a);
  }
  button {
    font: inherit;
    color: var(--platform-control-accent-fg, #fff);
    background: var(--_accent);
    border: 0;
    border-radius: var(--_radius);
    padding: 4px 10px;
    cursor: pointer;
  }
  button.secondary {
    color: inherit;
    background: transparent;
    border: 1px solid var(--_border);
  }
  button:disabled {
    opacity: 0.5;
    cursor: default;
  }
  :is(input, textarea, select, button):focus-visible {
    outline: none;
    box-shadow: var(--_focus);
  }
  /* The editor's compact layout (a phone) asks for touch targets of 44 px. */
  input:not([type='checkbox']):not([type='radio']),
  textarea,
  select,
  button {
    min-height: var(--platform-control-target-size, auto);
    box-sizing: border-box;
  }
  button {
    min-width: var(--platform-control-target-size, auto);
  }
  .row:has(> input[type='checkbox']) {
    min-height: var(--platform-control-target-size, auto);
  }
  input[type='checkbox'] {
    width: var(--platform-control-check-size, 13px);
    height: var(--platform-control-check-size, 13px);
  }
  fieldset {
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    margin: 0;
    padding: 8px;
    display: grid;
    gap: var(--_gap);
  }
`;

/**
 * Base class of the control elements. Subclasses render their inputs and
 * call {@link VccControl.commitValue} with a new value.
 */
export abstract class VccControl extends LitElement {
  static override properties: PropertyDeclarations = {
    path: { attribute: false },
    label: { type: String },
    description: { type: String },
    vccType: { attribute: false },
    value: { attribute: false },
    disabled: { type: Boolean, reflect: true },
    services: { attribute: false },
    error: { type: String },
  };

  static override styles: CSSResultGroup = controlStyles;

  /** The VCC path this control edits. */
  declare path: VccPath;
  /** The visible (and accessible) name of the control. */
  declare label: string;
  /** Help text under the control. */
  declare description: string;
  /** The parsed VCC type. */
  declare vccType: VccType;
  /** The current value (from the session). */
  declare value: PlainData | undefined;
  declare disabled: boolean;
  /** Upload and keystore functions of the host. */
  declare services: ControlServices;
  /** A message shown under the control (the last refused input); empty when none. */
  declare error: string;

  constructor() {
    super();
    this.path = [];
    this.label = '';
    this.description = '';
    this.vccType = { kind: 'unknown', name: 'json' };
    this.value = undefined;
    this.disabled = false;
    this.services = {};
    this.error = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    // A refused input (a failed upload, text that is not a color) is news until the field holds
    // another value: one from the template, undo, or the same field shown elsewhere (the panel
    // and the overlay are two controls). Compared by content: the editor hands a fresh copy of an
    // object value at every render. An error given in the same update is the news itself.
    if (this.error && changed.has('value') && !changed.has('error') && changed.get('value') !== undefined && JSON.stringify(changed.get('value')) !== JSON.stringify(this.value)) {
      this.error = '';
    }
  }

  /** Also waits for nested controls (array items, object fields), so focus() finds their inputs. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const result = await super.getUpdateComplete();
    const nested = [...this.renderRoot.querySelectorAll<VccControl>('[data-kind]')];
    await Promise.all(nested.map((control) => control.updateComplete));
    return result;
  }

  /** Moves the keyboard focus to the control's first input. */
  override focus(options?: FocusOptions): void {
    const root = this.renderRoot;
    const target =
      root.querySelector<HTMLElement>('[data-autofocus]:not(:disabled)') ??
      root.querySelector<HTMLElement>('input:not([hidden]):not(:disabled), textarea:not(:disabled), select:not(:disabled), button:not(:disabled), [data-kind]');
    if (target) target.focus(options);
    else super.focus(options);
  }

  /** The label, defaulting to the last path segment. */
  protected get name(): string {
    return this.label || this.path[this.path.length - 1] || 'value';
  }

  /**
   * Checks `value` against this control's type, then sends it. A value that
   * does not fit is refused here: the error is shown and sent as
   * `platform-control-error`, and the last good value stays.
   */
  protected commitValue(value: PlainData): boolean {
    try {
      // A misfit the value already held (a template's default kept as it is) does not refuse an edit beside it.
      assertFitsBeside(value, this.vccType, this.name, this.value);
    } catch (error) {
      this.refuse(error);
      return false;
    }
    this.error = '';
    this.dispatchEvent(new CustomEvent<ControlChangeDetail>(CONTROL_CHANGE_EVENT, { detail: { path: this.path, value }, bubbles: true, composed: true }));
    return true;
  }

  /** Shows `error` under the control and tells the editor. */
  protected refuse(error: unknown): void {
    const coded = error instanceof PlatformError ? error : new PlatformError('INVALID_VALUE', error instanceof Error ? error.message : String(error));
    this.error = withoutPrefix(coded.message);
    this.dispatchEvent(new CustomEvent<ControlErrorDetail>(CONTROL_ERROR_EVENT, { detail: { path: this.path, error: coded }, bubbles: true, composed: true }));
  }

  /** The user confirmed: an overlay may close. */
  protected commit(): void {
    this.dispatchEvent(new CustomEvent<ControlCommitDetail>(CONTROL_COMMIT_EVENT, { detail: { path: this.path }, bubbles: true, composed: true }));
  }

  /** Enter confirms (except with a modifier, which other keys may use). */
  protected onEnterCommits = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.isComposing) {
      event.preventDefault();
      this.commit();
    }
  };

  /** The help text and the error, with the ids inputs point to in aria-describedby. */
  protected renderNotes(): TemplateResult {
    return html`${this.description ? html`<p class="description" id="description">${this.description}</p>` : nothing}
      <p class="error" id="error" role="alert" ?hidden=${!this.error}>${this.error}</p>`;
  }

  /** The value of aria-describedby for the control's main input. */
  protected get describedBy(): string {
    return this.description ? 'description error' : 'error';
  }
}
