/** `<platform-text-control>`: a one-line text VCC. Every keystroke is a change; enter confirms. */
import { html, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { live } from 'lit/directives/live.js';
import { textOf, VccControl } from './control-base.js';

/** Edits a `text` VCC. */
export class TextControl extends VccControl {
  override render(): TemplateResult {
    const maxLength = this.vccType.kind === 'text' ? this.vccType.maxLength : undefined;
    return html`<div class="field">
      <label for="input">${this.name}</label>
      <input
        id="input"
        type="text"
        .value=${live(textOf(this.value))}
        maxlength=${ifDefined(maxLength)}
        ?disabled=${this.disabled}
        aria-invalid=${this.error ? 'true' : 'false'}
        aria-describedby=${this.describedBy}
        @input=${this.#onInput}
        @keydown=${this.onEnterCommits}
      />
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onInput = (event: Event): void => {
    this.commitValue((event.target as HTMLInputElement).value);
  };
}
