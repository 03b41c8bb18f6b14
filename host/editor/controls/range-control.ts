/** `<platform-range-control>`: a number between min and max, by step: a slider and a number field. */
import { html, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { VccControl } from './control-base.js';

/** Edits a `range` VCC ({min, max, step}). */
export class RangeControl extends VccControl {
  override render(): TemplateResult {
    const { min, max, step } = this.vccType.kind === 'range' ? this.vccType : { min: 0, max: 100, step: 1 };
    const value = typeof this.value === 'number' ? this.value : min;
    return html`<div class="field">
      <label for="slider">${this.name}</label>
      <div class="row">
        <input
          id="slider"
          type="range"
          min=${min}
          max=${max}
          step=${step}
          .valueAsNumber=${live(value)}
          ?disabled=${this.disabled}
          aria-describedby=${this.describedBy}
          @input=${this.#onInput}
          @keydown=${this.onEnterCommits}
        />
        <input
          id="number"
          type="number"
          min=${min}
          max=${max}
          step=${step}
          .valueAsNumber=${live(value)}
          ?disabled=${this.disabled}
          aria-label=${`${this.name} (number)`}
          aria-invalid=${this.error ? 'true' : 'false'}
          aria-describedby=${this.describedBy}
          @input=${this.#onInput}
          @keydown=${this.onEnterCommits}
        />
      </div>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onInput = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    // An emptied number field is not a value yet: wait for a number rather than refuse.
    if (input.value === '') return;
    this.commitValue(input.valueAsNumber);
  };
}
