/**
 * `<platform-array-control>`: a list of values of one VCC type (`array<T>`):
 * add, remove and reorder items within the VCC's min and max. Each item is
 * drawn with the control of T; its changes come back here and leave as one
 * change of the whole list. Keyboard: the buttons (tab, enter), and
 * alt+arrow up/down moves the item that has the focus.
 */
import { css, html, type TemplateResult } from 'lit';
import { defaultValueOf } from '../../../protocol/customization.js';
import { clonePlain, type PlainData } from '../../../protocol/data.js';
import { controlStyles, VccControl, type ControlChangeDetail } from './control-base.js';
import { renderControl } from './render-control.js';

/** Edits an `array<T>` VCC ({min, max}). */
export class ArrayControl extends VccControl {
  static override styles = [
    controlStyles,
    css`
      ol {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: var(--_gap);
      }
      li {
        display: grid;
        grid-template-columns: 1fr auto;
        gap: var(--_gap);
        align-items: end;
        border-bottom: 1px solid color-mix(in srgb, var(--_border) 50%, transparent);
        padding-bottom: var(--_gap);
      }
      .actions button {
        padding: 2px 6px;
      }
    `,
  ];

  get #items(): PlainData[] {
    return Array.isArray(this.value) ? this.value : [];
  }

  get #limits(): { min: number; max: number } {
    return this.vccType.kind === 'array' ? { min: this.vccType.min, max: this.vccType.max } : { min: 0, max: Number.MAX_SAFE_INTEGER };
  }

  override render(): TemplateResult {
    const items = this.#items;
    const { min, max } = this.#limits;
    const itemType = this.vccType.kind === 'array' ? this.vccType.of : ({ kind: 'unknown', name: 'json' } as const);
    return html`<fieldset aria-describedby=${this.describedBy}>
      <legend>${this.name}</legend>
      <ol @platform-control-change=${this.#onItemChange} @keydown=${this.#onKeydown}>
        ${items.map(
          (item, index) => html`<li data-index=${index}>
            ${renderControl({
              path: [...this.path, String(index)],
              type: itemType,
              value: item,
              label: `${this.name} ${index + 1}`,
              services: this.services,
              disabled: this.disabled,
            })}
            <div class="row actions">
              <button type="button" class="secondary up" aria-label=${`Move ${this.name} ${index + 1} up`} ?disabled=${this.disabled || index === 0} @click=${() => this.#move(index, -1, 'up')}>↑</button>
              <button type="button" class="secondary down" aria-label=${`Move ${this.name} ${index + 1} down`} ?disabled=${this.disabled || index === items.length - 1} @click=${() => this.#move(index, 1, 'down')}>↓</button>
              <button type="button" class="secondary remove" aria-label=${`Remove ${this.name} ${index + 1}`} ?disabled=${this.disabled || items.length <= min} @click=${() => this.#remove(index)}>✕</button>
            </div>
          </li>`,
        )}
      </ol>
      <div class="row">
        <button id="add" type="button" ?disabled=${this.disabled || items.length >= max} @click=${this.#add}>Add ${this.name} item</button>
        <span class="description" id="count">${items.length} of ${max === Number.MAX_SAFE_INTEGER ? 'any number' : `at most ${max}`}${min > 0 ? `, at least ${min}` : ''}</span>
      </div>
      ${this.renderNotes()}
    </fieldset>`;
  }

  readonly #onItemChange = (event: CustomEvent<ControlChangeDetail>): void => {
    const holder = (event.target as Element).closest('li');
    if (!holder) return;
    // The item's change becomes a change of the whole list, sent from here.
    event.stopPropagation();
    const index = Number(holder.dataset['index']);
    const items = [...this.#items];
    if (!Number.isInteger(index) || index < 0 || index >= items.length) return;
    items[index] = event.detail.value;
    this.commitValue(items);
  };

  readonly #add = async (): Promise<void> => {
    if (this.vccType.kind !== 'array') return;
    const items = [...this.#items, defaultValueOf(this.vccType.of)];
    if (!this.commitValue(items)) return;
    await this.#settled();
    // The new item is what the user wants to edit next.
    const added = this.renderRoot.querySelector<HTMLElement>(`li[data-index="${items.length - 1}"] > :first-child`);
    added?.focus();
  };

  #remove(index: number): void {
    const items = this.#items.filter((_, i) => i !== index);
    if (this.commitValue(items)) void this.#focusAfterRemoval(Math.min(index, items.length - 1));
  }

  async #move(index: number, by: -1 | 1, button: 'up' | 'down' | null): Promise<void> {
    const target = index + by;
    const items = [...this.#items];
    if (target < 0 || target >= items.length) return;
    const moved = clonePlain(items[index] as PlainData);
    items[index] = items[target] as PlainData;
    items[target] = moved;
    if (!this.commitValue(items)) return;
    await this.#settled();
    // Focus follows the moved item, so pressing the same button again keeps moving it.
    const holder = this.renderRoot.querySelector<HTMLElement>(`li[data-index="${target}"]`);
    const focusTarget = button ? holder?.querySelector<HTMLElement>(`button.${button}:not(:disabled)`) : holder?.querySelector<HTMLElement>('[data-kind]');
    (focusTarget ?? holder?.querySelector<HTMLButtonElement>('button:not(:disabled)'))?.focus();
  }

  async #focusAfterRemoval(index: number): Promise<void> {
    await this.#settled();
    const next = index >= 0 ? this.renderRoot.querySelector<HTMLButtonElement>(`li[data-index="${index}"] button.remove:not(:disabled)`) : null;
    (next ?? this.renderRoot.querySelector<HTMLButtonElement>('#add'))?.focus();
  }

  readonly #onKeydown = (event: KeyboardEvent): void => {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    const holder = (event.target as Element).closest('li');
    if (!holder) return;
    event.preventDefault();
    void this.#move(Number(holder.dataset['index']), event.key === 'ArrowUp' ? -1 : 1, null);
  };

  /** Waits for the editor to hand the new value back and this control to draw it. */
  async #settled(): Promise<void> {
    await this.updateComplete;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    await this.updateComplete;
  }
}
