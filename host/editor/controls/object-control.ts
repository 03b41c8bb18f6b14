/**
 * `<platform-object-control>`: a group of named fields, each with the control
 * of its own type. A field's change leaves as one change of the whole object.
 */
import { html, type TemplateResult } from 'lit';
import { defaultValueOf } from '../../../protocol/customization.js';
import type { PlainData } from '../../../protocol/data.js';
import { VccControl, type ControlChangeDetail } from './control-base.js';
import { renderControl } from './render-control.js';

/** Edits an `object` VCC ({fields}). */
export class ObjectControl extends VccControl {
  get #object(): { [key: string]: PlainData } {
    const value = this.value;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  }

  override render(): TemplateResult {
    const fields = this.vccType.kind === 'object' ? this.vccType.fields : [];
    const object = this.#object;
    return html`<fieldset aria-describedby=${this.describedBy} @platform-control-change=${this.#onFieldChange}>
      <legend>${this.name}</legend>
      ${fields.map(
        (field) => html`<div data-key=${field.key}>
          ${renderControl({
            path: [...this.path, field.key],
            type: field.type,
            value: Object.prototype.hasOwnProperty.call(object, field.key) ? object[field.key] : defaultValueOf(field.type),
            label: field.name,
            ...(field.description !== undefined ? { description: field.description } : {}),
            services: this.services,
            disabled: this.disabled,
          })}
        </div>`,
      )}
      ${this.renderNotes()}
    </fieldset>`;
  }

  readonly #onFieldChange = (event: CustomEvent<ControlChangeDetail>): void => {
    const holder = (event.target as Element).closest<HTMLElement>('[data-key]');
    const key = holder?.dataset['key'];
    if (key === undefined || this.vccType.kind !== 'object' || !this.vccType.fields.some((field) => field.key === key)) return;
    event.stopPropagation();
    this.commitValue({ ...this.#object, [key]: event.detail.value });
  };
}
