/**
 * `<platform-json-control>`: the fallback for a VCC type this kit draws no
 * control for. The value is edited as JSON; text that does not parse is
 * shown as an error and not sent. Escape puts back the current value.
 */
import { html, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { PlainData } from '../../../protocol/data.js';
import { PlatformError } from '../../../protocol/errors.js';
import { VccControl } from './control-base.js';

/** Edits a VCC of an unknown type as JSON. */
export class JsonControl extends VccControl {
  static override properties: PropertyDeclarations = {
    draftText: { state: true },
  };

  /** What the user typed that is not (yet) valid JSON; null shows the value. */
  declare protected draftText: string | null;

  constructor() {
    super();
    this.draftText = null;
  }

  override render(): TemplateResult {
    const typeName = this.vccType.kind === 'unknown' ? this.vccType.name : this.vccType.kind;
    const text = this.draftText ?? JSON.stringify(this.value ?? null, null, 2);
    return html`<div class="field">
      <label for="input">${this.name} <span class="description">(${typeName}, JSON)</span></label>
      <textarea
        id="input"
        rows="4"
        spellcheck="false"
        .value=${text}
        ?disabled=${this.disabled}
        aria-invalid=${this.error ? 'true' : 'false'}
        aria-describedby=${this.describedBy}
        aria-keyshortcuts="Control+Enter Escape"
        @input=${this.#onInput}
        @keydown=${this.#onKeydown}
      ></textarea>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onInput = (event: Event): void => {
    const text = (event.target as HTMLTextAreaElement).value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.draftText = text;
      this.refuse(new PlatformError('INVALID_VALUE', `${this.name} is not valid JSON yet`));
      return;
    }
    // The session checks the parsed value (plain data, size) and answers through the editor.
    if (this.commitValue(parsed as PlainData)) this.draftText = text;
  };

  override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    // A new value from outside (undo, the template) replaces what was typed.
    if (changed.has('value') && this.draftText !== null) {
      try {
        if (JSON.stringify(JSON.parse(this.draftText)) !== JSON.stringify(this.value)) this.draftText = null;
      } catch {
        this.draftText = null;
      }
    }
  }

  readonly #onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.commit();
    } else if (event.key === 'Escape' && this.draftText !== null) {
      event.stopPropagation();
      this.draftText = null;
      this.error = '';
    }
  };
}
