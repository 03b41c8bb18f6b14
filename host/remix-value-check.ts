/**
 * Which values a remix accepts (a path's names, the paths the template's customization declares, each VCC's type); apart from RemixSession because it is the session's door, not its state.
 *
 * Keys come from outside (the guest, a draft): a scope or key named after a
 * property of Object.prototype (`toString`, `hasOwnProperty`, `__proto__`…)
 * is refused, and once the template's customization is known only the paths
 * it declares (an `@@editor` field, or a key of its built values) are
 * accepted; the predefined scopes stay the host's to fill. One check is made
 * per customization: a customization learned later gets a new one.
 */
import { findVccType, PREDEFINED_SCOPES, type BuiltCustomization, type VccType } from '../protocol/customization.js';
import { assertPlainData, clonePlain, type PlainData, type VccPath } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { assertFitsBeside } from '../protocol/value-fit.js';
import { resolveVccPath, writeInside } from '../protocol/vcc-paths.js';

/** A value that passed the checks, ready to store. */
export interface CheckedValue {
  readonly scope: string;
  readonly key: string;
  /** What is stored at `[scope, key]` (the whole entry when the path went deeper). */
  readonly entry: PlainData;
  /** The value at the path itself, as the templates are told. */
  readonly value: PlainData;
}

/** A VCC's parsed type and the start of its error messages ("the value of card.title"). */
export interface CachedField {
  readonly type: VccType;
  readonly where: string;
}

/**
 * Names a scope or key may not have: every property of Object.prototype.
 * Why: a record indexed by such a name reads the prototype's function where
 * nothing is stored, and a stored one shadows it for every reader.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The checks of one customization (null: not known yet); see the module comment. */
export class RemixValueCheck {
  /** The template's built customization, once known. */
  readonly customization: BuiltCustomization | null;
  readonly #maxValueBytes: number;
  /** {@link RemixValueCheck.fieldAt}'s cache; null: the template defines no VCC there. */
  readonly #typeCache = new Map<string, Map<string, CachedField | null>>();
  /** The `[scope, key]` paths the customization declares (editor fields and built values); built on first use. */
  #declared: Map<string, Set<string>> | null = null;

  constructor(customization: BuiltCustomization | null, maxValueBytes: number) {
    this.customization = customization;
    this.#maxValueBytes = maxValueBytes;
  }

  /**
   * The VCC type at `[scope, key]` and the words its errors start with, or
   * undefined when the template defines none. Parsed once per path, and kept
   * in two map levels rather than under a joined key: every value the guest
   * sets is checked against its type, and no string is built per keystroke.
   */
  fieldAt(scope: string, key: string): CachedField | undefined {
    if (!this.customization) return undefined;
    let fields = this.#typeCache.get(scope);
    if (!fields) this.#typeCache.set(scope, (fields = new Map<string, CachedField | null>()));
    let field = fields.get(key);
    if (field === undefined) {
      const type = findVccType(this.customization, [scope, key]);
      field = type ? { type, where: `the value of ${scope}.${key}` } : null;
      fields.set(key, field);
    }
    return field ?? undefined;
  }

  /**
   * Checks one value; changes nothing. `stored` reads the entry now at
   * `[scope, key]` (a deep path is written into it). Throws what
   * RemixSession.setValue throws.
   */
  check(path: VccPath, value: unknown, source: 'host' | 'guest', stored: (scope: string, key: string) => PlainData | undefined): CheckedValue {
    const scope = path[0];
    const key = path[1];
    if (scope === undefined || key === undefined) throw new PlatformError('INVALID_PATH', 'a value path needs at least [scope, key]');
    if (PROTOTYPE_NAMES.has(scope) || PROTOTYPE_NAMES.has(key)) {
      throw new PlatformError('INVALID_PATH', `a scope or key cannot be named like a property of Object.prototype ("${PROTOTYPE_NAMES.has(scope) ? scope : key}")`);
    }
    const predefined = PREDEFINED_SCOPES.has(scope);
    if (source === 'guest' && predefined) throw new PlatformError('INVALID_PATH', `["${scope}", …] is predefined and read-only for templates`);
    // The predefined scopes are the host's to fill, declared or not. Before the customization is
    // known there is nothing to check a path against: only its names are checked.
    if (!predefined && this.customization && !this.declares(scope, key)) {
      throw new PlatformError('INVALID_PATH', `["${scope}", "${key}"] is not declared by the template's customization`);
    }
    // One copy: the caller keeps no reference into the session's state.
    const checked = clonePlain(assertPlainData(value, this.#maxValueBytes));
    if (path.length > 2 && this.customization && !predefined && this.fieldAt(scope, key) && !resolveVccPath(this.customization, path)) {
      throw new PlatformError('INVALID_PATH', `${JSON.stringify(path)} is not a field the template's customization declares inside ["${scope}", "${key}"]`);
    }
    const previous = stored(scope, key);
    const entry = path.length === 2 ? checked : writeInside(previous, path.slice(2), checked);
    const field = this.fieldAt(scope, key);
    // A misfit the entry already held (a template's default kept as it is, issue 24) does not refuse an edit elsewhere in it.
    if (field) assertFitsBeside(entry, field.type, field.where, previous);
    return { scope, key, entry, value: checked };
  }

  /** True when the customization has an `@@editor` field or a built value at `[scope, key]`. */
  declares(scope: string, key: string): boolean {
    const customization = this.customization;
    if (!customization) return false;
    if (!this.#declared) {
      const declared = new Map<string, Set<string>>();
      const add = (s: string, k: string): void => {
        let keys = declared.get(s);
        if (!keys) declared.set(s, (keys = new Set()));
        keys.add(k);
      };
      for (const definition of customization.editor) for (const field of definition.fields) add(definition.key, field.key);
      for (const [s, entries] of Object.entries(customization.values)) for (const k of Object.keys(entries)) add(s, k);
      this.#declared = declared;
    }
    return this.#declared.get(scope)?.has(key) === true;
  }
}
