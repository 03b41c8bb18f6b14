/**
 * `<platform-color-control>`: a color in hex, rgb() or hsl(), with alpha when
 * the VCC allows it. A text field takes any of the three notations (checked
 * as typed), a swatch picks one, a format list converts, and an opacity
 * slider sets alpha.
 */
import { html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { VccControl } from './control-base.js';
import { formatColor, formatOf, parseColor, toHex6, type ColorFormat, type Rgba } from './color-util.js';

const OPAQUE_BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };

/** Edits a `color` VCC ({allowAlpha}). */
export class ColorControl extends VccControl {
  static override properties: PropertyDeclarations = {
    typed: { state: true },
  };

  /** Text typed that is not a color (yet): kept on screen while the user goes on typing. */
  declare protected typed: string | null;

  constructor() {
    super();
    this.typed = null;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    // A new value (from the template, undo, the swatch) replaces what was half typed.
    if (changed.has('value')) this.typed = null;
  }

  get #allowAlpha(): boolean {
    return this.vccType.kind === 'color' && this.vccType.allowAlpha;
  }

  get #current(): { text: string; color: Rgba; format: ColorFormat } {
    const text = typeof this.value === 'string' ? this.value : '#000000';
    return { text, color: parseColor(text) ?? OPAQUE_BLACK, format: formatOf(text) };
  }

  override render(): TemplateResult {
    const { text, color, format } = this.#current;
    return html`<div class="field">
      <label for="input">${this.name}</label>
      <div class="row">
        <input
          id="swatch"
          type="color"
          .value=${live(toHex6(color))}
          ?disabled=${this.disabled}
          aria-label=${`${this.name}: pick a color`}
          @input=${this.#onSwatch}
          @keydown=${this.onEnterCommits}
        />
        <input
          id="input"
          type="text"
          data-autofocus
          spellcheck="false"
          autocomplete="off"
          .value=${live(this.typed ?? text)}
          ?disabled=${this.disabled}
          aria-invalid=${this.error ? 'true' : 'false'}
          aria-describedby=${this.describedBy}
          @input=${this.#onText}
          @keydown=${this.onEnterCommits}
        />
        <select id="format" aria-label=${`${this.name}: notation`} .value=${live(format)} ?disabled=${this.disabled} @change=${this.#onFormat}>
          <option value="hex">hex</option>
          <option value="rgb">rgb</option>
          <option value="hsl">hsl</option>
        </select>
      </div>
      ${
        this.#allowAlpha
          ? html`<div class="row">
            <label for="alpha">Opacity</label>
            <input
              id="alpha"
              type="range"
              min="0"
              max="1"
              step="0.01"
              .valueAsNumber=${live(color.a)}
              ?disabled=${this.disabled}
              @input=${this.#onAlpha}
              @keydown=${this.onEnterCommits}
            />
          </div>`
          : nothing
      }
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onText = (event: Event): void => {
    // Checked as typed: a half-typed color shows the reason and is not sent.
    const typed = (event.target as HTMLInputElement).value;
    this.typed = this.commitValue(typed.trim()) ? null : typed;
  };

  readonly #onSwatch = (event: Event): void => {
    const picked = parseColor((event.target as HTMLInputElement).value);
    if (!picked) return;
    const { color, format } = this.#current;
    this.commitValue(formatColor({ ...picked, a: color.a }, format, this.#allowAlpha));
  };

  readonly #onFormat = (event: Event): void => {
    const format = (event.target as HTMLSelectElement).value as ColorFormat;
    this.commitValue(formatColor(this.#current.color, format, this.#allowAlpha));
  };

  readonly #onAlpha = (event: Event): void => {
    const { color, format } = this.#current;
    this.commitValue(formatColor({ ...color, a: (event.target as HTMLInputElement).valueAsNumber }, format, true));
  };
}
