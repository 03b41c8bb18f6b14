/** `<platform-select-control>`: one of a list of options (arrow keys change it, as in any select). */
import { html, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { VccControl } from './control-base.js';

/** Edits a `select` VCC ({options}). */
export class SelectControl extends VccControl {
  override render(): TemplateResult {
    const options = this.vccType.kind === 'select' ? this.vccType.options : [];
    const value = typeof this.value === 'string' ? this.value : '';
    return html`<div class="field">
      <label for="input">${this.name}</label>
      <select
        id="input"
        .value=${live(value)}
        ?disabled=${this.disabled}
        aria-describedby=${this.describedBy}
        @change=${this.#onChange}
        @keydown=${this.onEnterCommits}
      >
        ${options.map((option) => html`<option value=${option.value} ?selected=${option.value === value}>${option.label}</option>`)}
      </select>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onChange = (event: Event): void => {
    this.commitValue((event.target as HTMLSelectElement).value);
  };
}
