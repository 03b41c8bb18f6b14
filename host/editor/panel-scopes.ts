/**
 * Which scopes of the side panel are open. A closed scope is a heading
 * button and nothing more: its controls are made when it opens and
 * dropped when it closes. Drawing every control of a large customization
 * at once froze the page (issue 23: 18,000 controls, a 7.1 s task); a
 * scope holds at most MAX_SCOPE_FIELDS, so opening one is bounded work.
 *
 * When a customization arrives, its scopes open in order while their
 * fields add up to at most `openFields` (the first always opens): a
 * template of tens of fields shows every control, as the panel always
 * did, and a large one starts with its first scopes.
 */
import { PREDEFINED_SCOPES, type BuiltCustomization } from '../../protocol/customization.js';

/** Fields the panel shows open when a template loads, unless the editor is told otherwise. */
export const DEFAULT_PANEL_OPEN_FIELDS = 100;

/** The open scopes of one customization; a new customization starts over. */
export class OpenScopes {
  readonly #changed: () => void;
  #customization: BuiltCustomization | null = null;
  // A Set of keys the template named: no object keyed by foreign strings (STYLE.md 14).
  #open = new Set<string>();

  /** `changed` is called after a scope opened or closed (the element redraws). */
  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /**
   * True when `key` is open in `customization`. The first call with a new
   * customization decides which scopes start open, from `openFields`.
   */
  isOpen(customization: BuiltCustomization, key: string, openFields: number): boolean {
    if (customization !== this.#customization) this.#start(customization, openFields);
    return this.#open.has(key);
  }

  /** Opens or closes `key`'s scope. */
  toggle(key: string): void {
    if (!this.#open.delete(key)) this.#open.add(key);
    this.#changed();
  }

  #start(customization: BuiltCustomization, openFields: number): void {
    this.#customization = customization;
    this.#open = new Set();
    // NaN or a negative budget still opens the first scope: the panel never starts empty.
    let left = openFields;
    for (const scope of customization.editor) {
      if (PREDEFINED_SCOPES.has(scope.key)) continue;
      if (this.#open.size > 0 && !(scope.fields.length <= left)) break;
      this.#open.add(scope.key);
      left -= scope.fields.length;
    }
  }
}
