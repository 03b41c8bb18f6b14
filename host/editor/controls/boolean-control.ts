/** `<platform-boolean-control>`: a switch. Space (native) and enter toggle it. */
import { html, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { VccControl } from './control-base.js';

/** Edits a `boolean` VCC. */
export class BooleanControl extends VccControl {
  override render(): TemplateResult {
    return html`<div class="field">
      <div class="row">
        <input
          id="input"
          type="checkbox"
          role="switch"
          .checked=${live(this.value === true)}
          ?disabled=${this.disabled}
          aria-describedby=${this.describedBy}
          @change=${this.#onChange}
          @keydown=${this.#onKeydown}
        />
        <label for="input">${this.name}</label>
      </div>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onChange = (event: Event): void => {
    this.commitValue((event.target as HTMLInputElement).checked);
  };

  readonly #onKeydown = (event: KeyboardEvent): void => {
    // A checkbox ignores enter natively; a switch in an editor is expected to take it.
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const input = event.target as HTMLInputElement;
    input.checked = !input.checked;
    this.commitValue(input.checked);
  };
}
