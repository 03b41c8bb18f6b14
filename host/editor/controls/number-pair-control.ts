/**
 * `<platform-coordinate-control>` ({x, y}) and `<platform-size-control>`
 * ({width, height}): a VCC of two numbers, as two labelled number inputs in
 * a group. Arrow keys step them (the inputs' own keys); every change sends
 * the whole pair; enter confirms.
 */
import { html, type TemplateResult } from 'lit';
import type { PlainData } from '../../../protocol/data.js';
import { VccControl } from './control-base.js';

/** Shared by the coordinate and size controls: which two members, and their lower bound. */
export abstract class NumberPairControl extends VccControl {
  /** The two members of the value, in order, with their visible labels. */
  protected abstract readonly members: readonly [readonly [key: string, label: string], readonly [key: string, label: string]];
  /** Smallest value of a member (sizes are not negative); undefined: none. */
  protected readonly minimum: number | undefined = undefined;

  #member(key: string): number {
    const value = this.value;
    const member = typeof value === 'object' && value !== null && !Array.isArray(value) ? value[key] : undefined;
    return typeof member === 'number' && Number.isFinite(member) ? member : 0;
  }

  override render(): TemplateResult {
    return html`<fieldset aria-describedby=${this.describedBy}>
      <legend>${this.name}</legend>
      <div class="row">
        ${this.members.map(
          ([key, label]) => html`<label for=${key}>${label}</label>
            <input
              id=${key}
              type="number"
              inputmode="decimal"
              step="any"
              min=${this.minimum ?? ''}
              size="6"
              aria-label=${`${this.name} ${label}`}
              aria-invalid=${this.error ? 'true' : 'false'}
              ?disabled=${this.disabled}
              @input=${this.#onInput}
              @keydown=${this.onEnterCommits}
            />`,
        )}
      </div>
      ${this.renderNotes()}
    </fieldset>`;
  }

  protected override updated(): void {
    // Written only when the number differs: a half-typed "1." that parses as 1 stays as typed.
    for (const [key] of this.members) {
      const input = this.renderRoot.querySelector<HTMLInputElement>(`#${key}`);
      if (input && input.valueAsNumber !== this.#member(key)) input.value = String(this.#member(key));
    }
  }

  readonly #onInput = (): void => {
    const next: { [key: string]: PlainData } = {};
    for (const [key] of this.members) {
      const input = this.renderRoot.querySelector<HTMLInputElement>(`#${key}`);
      // A half-typed number ("-", "") is not sent: the last good pair stays until it parses.
      if (!input || input.value.trim() === '' || !Number.isFinite(input.valueAsNumber)) return;
      next[key] = input.valueAsNumber;
    }
    this.commitValue(next);
  };
}

/** Edits a `coordinate` VCC: `{x, y}`. */
export class CoordinateControl extends NumberPairControl {
  protected readonly members = [
    ['x', 'X'],
    ['y', 'Y'],
  ] as const;
}

/** Edits a `size` VCC: `{width, height}`, neither below 0. */
export class SizeControl extends NumberPairControl {
  protected readonly members = [
    ['width', 'Width'],
    ['height', 'Height'],
  ] as const;
  protected override readonly minimum = 0;
}
