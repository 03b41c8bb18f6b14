/**
 * Which scopes of the side panel are open, and how many of an open scope's
 * controls are drawn yet. A closed scope is a heading button and nothing
 * more: its controls are made when it opens and dropped when it closes.
 * Drawing every control of a large customization at once froze the page
 * (issue 23: 18,000 controls, a 7.1 s task), and a control is costly (an
 * element with a shadow root, its styles, its layout): so one render draws
 * at most CONTROLS_PER_TASK new controls, and the rest follow in the next
 * tasks, the page answering input between them.
 *
 * When a customization arrives, its scopes open in order while their
 * fields add up to at most `openFields` (the first always opens): a
 * template of tens of fields shows every control, as the panel always
 * did, and a large one starts with its first scopes.
 */
import { PREDEFINED_SCOPES, type BuiltCustomization } from '../../protocol/customization.js';

/** Fields the panel shows open when a template loads, unless the editor is told otherwise. */
export const DEFAULT_PANEL_OPEN_FIELDS = 100;

/**
 * New controls one render may draw. 25 of the everyday kinds took 15 to 40 ms on a loaded 2-core
 * machine (bench/editor-large), well inside the 200 ms a task may take, and a template of up to 25
 * fields is drawn whole in its first render.
 */
export const CONTROLS_PER_TASK = 25;

/** What one render of the panel asks of the open scopes. */
export interface ScopesPass {
  /** True when `key`'s scope is open. */
  readonly isOpen: (key: string) => boolean;
  /** How many of the `total` fields of `key`'s scope to draw in this render (0 when it is closed). */
  readonly shown: (key: string, total: number) => number;
  /** Opens or closes `key`'s scope. */
  readonly toggle: (key: string) => void;
}

/** The open scopes of one customization; a new customization starts over. */
export class OpenScopes {
  readonly #changed: () => void;
  #customization: BuiltCustomization | null = null;
  // Keys the template named: a Set and a Map, no object keyed by foreign strings (STYLE.md 14).
  #open = new Set<string>();
  /** Controls drawn so far per open scope. */
  #drawn = new Map<string, number>();
  /** New controls this render may still draw. */
  #left = CONTROLS_PER_TASK;
  #more: ReturnType<typeof setTimeout> | null = null;

  /** `changed` is called when the panel must draw again: a scope opened or closed, or more controls are due. */
  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /**
   * Starts one render of the panel. The first with a new customization
   * decides which scopes start open, from `openFields`.
   */
  pass(customization: BuiltCustomization, openFields: number): ScopesPass {
    if (customization !== this.#customization) this.#start(customization, openFields);
    this.#left = CONTROLS_PER_TASK;
    return { isOpen: this.#isOpen, shown: this.#shown, toggle: this.#toggle };
  }

  readonly #isOpen = (key: string): boolean => this.#open.has(key);

  readonly #shown = (key: string, total: number): number => {
    if (!this.#open.has(key)) return 0;
    const drawn = this.#drawn.get(key) ?? 0;
    if (drawn >= total) return total;
    const now = drawn + Math.min(total - drawn, this.#left);
    this.#left -= now - drawn;
    this.#drawn.set(key, now);
    // A timer, not requestAnimationFrame: a page in a background tab gets no frames, and its
    // panel must still fill.
    if (now < total && this.#more === null) {
      this.#more = setTimeout(() => {
        this.#more = null;
        this.#changed();
      }, 0);
    }
    return now;
  };

  readonly #toggle = (key: string): void => {
    if (this.#open.delete(key)) this.#drawn.delete(key);
    else this.#open.add(key);
    this.#changed();
  };

  #start(customization: BuiltCustomization, openFields: number): void {
    this.#customization = customization;
    this.#open = new Set();
    this.#drawn = new Map();
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
