/** `<platform-textarea-control>`: a multi-line text VCC. Enter is a new line; ctrl/cmd+enter confirms. */
import { html, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { live } from 'lit/directives/live.js';
import { textOf, VccControl } from './control-base.js';

/** Edits a `textarea` VCC. */
export class TextareaControl extends VccControl {
  override render(): TemplateResult {
    const maxLength = this.vccType.kind === 'textarea' ? this.vccType.maxLength : undefined;
    return html`<div class="field">
      <label for="input">${this.name}</label>
      <textarea
        id="input"
        rows="4"
        .value=${live(textOf(this.value))}
        maxlength=${ifDefined(maxLength)}
        ?disabled=${this.disabled}
        aria-invalid=${this.error ? 'true' : 'false'}
        aria-describedby=${this.describedBy}
        aria-keyshortcuts="Control+Enter"
        @input=${this.#onInput}
        @keydown=${this.#onKeydown}
      ></textarea>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onInput = (event: Event): void => {
    this.commitValue((event.target as HTMLTextAreaElement).value);
  };

  readonly #onKeydown = (event: KeyboardEvent): void => {
    // Plain enter must stay a new line in a multi-line field; a modifier confirms.
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.commit();
    }
  };
}
