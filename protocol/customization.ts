/**
 * The customization model: what a template declares in
 * `.platform/customization/*.json`, what `platform-vcc` builds from it, and
 * the checks that a value fits its VCC type. Shared by the CLI (build time),
 * the guest (built values) and the host (editor controls, value checks).
 */
import { FORBIDDEN_KEYS, type PlainData } from './data.js';
import { PlatformError } from './errors.js';
import { kindNamed, kindSpecOf, listOf, parseList, VCC_KINDS, type VccKind, type VccObjectField, type VccType } from './vcc-kinds.js';
import { objectOption, type TypeOptions } from './vcc-values.js';

// The type model lives in vcc-kinds.ts (one table of kinds) and vcc-values.ts; its users import it from here.
export { kindSpecOf, VCC_KINDS, VCC_TYPES, type KindSpec, type VccKind, type VccObjectField, type VccType, type VccTypeOf } from './vcc-kinds.js';
export { DEFAULT_MAX_UPLOAD_BYTES, isColorString, isSafeMediaUrl, KEYSTORE_SCHEME, type TypeOptions } from './vcc-values.js';

/** One field of a scope in `@@editor`: the definition of one VCC. */
export interface VccFieldDefinition {
  /** Key of the value inside its scope. */
  readonly key: string;
  /** Label shown in the editor; defaults to the key. */
  readonly name?: string;
  /** Help text shown under the control. */
  readonly description?: string;
  /**
   * Type expression: a name in {@link VCC_TYPES}; `array<T>` or `T[]` for a list of
   * T; `object` (fields in `typeOptions.fields`) or, as the original
   * platform wrote it, `object<Name>` (fields in `typeOptions.Name`, a map
   * from each field's key to its `{name, description, type, typeOptions}`);
   * `secret<image>` for an image kept in the keystore.
   */
  readonly type: string;
  /** Options of the type, e.g. `{min, max, step}` for range. See {@link VccType}. */
  readonly typeOptions?: TypeOptions;
}

/** One entry of an `@@editor` list: a scope and its fields. */
export interface VccScopeDefinition {
  /** The scope name: the first element of every path in it. */
  readonly key: string;
  readonly name?: string;
  readonly description?: string;
  readonly fields: readonly VccFieldDefinition[];
}

/** The customization a template is built with; what the guest's `get()` reads without a request. */
export interface BuiltCustomization {
  /** Format version of this object. */
  readonly version: 1;
  /** `{ scope: { key: value } }`, including the predefined scopes `metadata` and `serviceMap`. */
  readonly values: { readonly [scope: string]: { readonly [key: string]: PlainData } };
  /** Every scope definition of every file, in file order. */
  readonly editor: readonly VccScopeDefinition[];
}

/**
 * Most fields a customization may declare, over all its scopes. Real templates have tens to
 * a few hundred; each field is a control in the editor's panel, and a probe's 18,000 froze
 * the page for seconds. Many alike items belong in one list field (an `array` VCC), not in
 * a field each. Above it the host refuses the customization with `VALUE_TOO_LARGE`.
 */
export const MAX_CUSTOMIZATION_FIELDS = 500;

/** Most scopes (entries of `editor`) a customization may declare; above it, `VALUE_TOO_LARGE`. */
export const MAX_CUSTOMIZATION_SCOPES = 100;

/**
 * Most fields one scope may declare; above it, `VALUE_TOO_LARGE`. A scope is the unit the
 * editor's panel draws at once (it opens and closes scopes), so this bounds the work of
 * opening one: a section of more fields than this is past reading anyway.
 */
export const MAX_SCOPE_FIELDS = 100;

/**
 * What in `editor` is past {@link MAX_CUSTOMIZATION_SCOPES}, {@link MAX_SCOPE_FIELDS} or
 * {@link MAX_CUSTOMIZATION_FIELDS} ("declares 501 fields, over the limit of 500…"), or null
 * when it is within them. The host refuses such a customization; the build warns of it.
 */
export function customizationSizeProblem(editor: readonly { readonly key: string; readonly fields: readonly unknown[] }[]): string | null {
  const over = (what: string, limit: number): string =>
    `declares ${what}, over the limit of ${limit} (at most ${MAX_CUSTOMIZATION_SCOPES} scopes, ${MAX_SCOPE_FIELDS} fields a scope, ${MAX_CUSTOMIZATION_FIELDS} fields in all): many alike items belong in one list (array) field`;
  if (editor.length > MAX_CUSTOMIZATION_SCOPES) return over(`${editor.length} scopes`, MAX_CUSTOMIZATION_SCOPES);
  let fields = 0;
  for (const scope of editor) {
    if (scope.fields.length > MAX_SCOPE_FIELDS) return over(`${scope.fields.length} fields in its scope '${scope.key.slice(0, 64)}'`, MAX_SCOPE_FIELDS);
    fields += scope.fields.length;
  }
  return fields > MAX_CUSTOMIZATION_FIELDS ? over(`${fields} fields`, MAX_CUSTOMIZATION_FIELDS) : null;
}

/** Scope names the platform fills in; a template cannot declare them. */
export const PREDEFINED_SCOPES: ReadonlySet<string> = new Set(['metadata', 'serviceMap']);

/** An empty built customization: what a template without files or a plugin gets. */
export const EMPTY_CUSTOMIZATION: BuiltCustomization = Object.freeze({
  version: 1,
  values: Object.freeze({ metadata: Object.freeze({}), serviceMap: Object.freeze({}) }),
  editor: Object.freeze([]),
});

/**
 * Parses a type expression and its options. Throws `INVALID_CONFIG` with the
 * reason when the options do not fit the type (a range without min < max…).
 * An unknown type name is not an error: it parses to `{kind: 'unknown'}`.
 * The syntax of the containers is read here (`T[]`, `array<T>`, `object<Name>`,
 * `secret<…>`); a plain name goes to its kind's `parse` in {@link VCC_KINDS}.
 */
export function parseVccType(type: string, typeOptions: TypeOptions = {}): VccType {
  const trimmed = type.trim();
  if (trimmed.endsWith('[]')) {
    // The original platform's shorthand `T[]` (e.g. `object<Enemy>[]`): a list of T.
    const inner = trimmed.slice(0, -2);
    const item = objectOption(typeOptions, 'item');
    return listOf(parseVccType(inner, item ?? (/^object<.+>$/.test(inner) ? typeOptions : {})), typeOptions);
  }
  const namedObject = /^object<([^<>]+)>$/.exec(trimmed)?.[1];
  if (namedObject !== undefined) return { kind: 'object', fields: parseNamedFields(namedObject, typeOptions) };
  const secretOf = /^secret<([^<>]+)>$/.exec(trimmed)?.[1];
  if (secretOf !== undefined) return parseKind(secretOf === 'text' ? 'secret' : secretOf === 'image' ? 'secret-image' : 'unknown', type, typeOptions);
  const listItem = /^array<(.+)>$/.exec(trimmed)?.[1];
  if (listItem !== undefined) return parseList(listItem, typeOptions, parseVccType);
  return parseKind(kindNamed(type) ?? 'unknown', type, typeOptions);
}

/** Parses `type` (as written) as a VCC of `kind`, by its entry in the table. */
function parseKind(kind: VccKind, type: string, typeOptions: TypeOptions): VccType {
  return VCC_KINDS[kind].parse(typeOptions, { name: type, parseType: parseVccType, parseFieldShape });
}

/**
 * The fields of `object<Name>`, from `typeOptions.Name`: as the original
 * platform wrote them, an object from each field's key to its definition
 * `{name, description, type, typeOptions}` (in that order); a list of
 * definitions with their own `key` is taken too.
 */
function parseNamedFields(name: string, typeOptions: TypeOptions): VccObjectField[] {
  const raw = Object.prototype.hasOwnProperty.call(typeOptions, name) ? typeOptions[name] : undefined;
  if (typeof raw !== 'object' || raw === null) {
    throw new PlatformError('INVALID_CONFIG', `object<${name}> needs typeOptions.${name}: its fields, { "key": { name, type, typeOptions } }`);
  }
  const entries = Array.isArray(raw)
    ? raw.map((field, index) => [index, field] as const)
    : Object.keys(raw).map((key) => {
        const field = raw[key];
        // The map's key is the field's key (parseFieldShape below refuses a prototype name).
        return [key, typeof field === 'object' && field !== null && !Array.isArray(field) ? { ...field, key } : field] as const;
      });
  return entries.map(([at, field]) => {
    const parsed = parseFieldShape(field, `typeOptions.${name}.${at}`);
    return {
      key: parsed.key,
      name: parsed.name ?? parsed.key,
      ...(parsed.description !== undefined ? { description: parsed.description } : {}),
      type: parseVccType(parsed.type, parsed.typeOptions),
    };
  });
}

/** Checks the shape of one field definition; throws `INVALID_CONFIG` naming `where`. */
export function parseFieldShape(value: unknown, where: string): VccFieldDefinition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlatformError('INVALID_CONFIG', `${where} must be an object {key, name, description, type, typeOptions}`);
  }
  const field = value as Record<string, unknown>;
  const key = field['key'];
  if (typeof key !== 'string' || key.length === 0 || FORBIDDEN_KEYS.has(key)) {
    throw new PlatformError('INVALID_CONFIG', `${where}.key must be a non-empty string other than __proto__, constructor, prototype`);
  }
  if (typeof field['type'] !== 'string' || field['type'].length === 0) throw new PlatformError('INVALID_CONFIG', `${where}.type must be a string`);
  for (const optional of ['name', 'description'] as const) {
    if (field[optional] !== undefined && typeof field[optional] !== 'string') {
      throw new PlatformError('INVALID_CONFIG', `${where}.${optional} must be a string`);
    }
  }
  const typeOptions = field['typeOptions'];
  if (typeOptions !== undefined && (typeof typeOptions !== 'object' || typeOptions === null || Array.isArray(typeOptions))) {
    throw new PlatformError('INVALID_CONFIG', `${where}.typeOptions must be an object`);
  }
  return field as unknown as VccFieldDefinition;
}

/** The value a new item of this type starts with (array "add", a field without a value): its kind's `defaultValue`. */
export function defaultValueOf(type: VccType): PlainData {
  return kindSpecOf(type).defaultValue(type, defaultValueOf);
}

/**
 * Checks that `value` fits `type`. Returns nothing, or throws `INVALID_VALUE`
 * saying why (the wrong type for its VCC, out of range, not an option…): its kind's `check`.
 */
export function assertValueFitsType(value: unknown, type: VccType, where = 'value'): void {
  const fail = (reason: string): never => {
    throw new PlatformError('INVALID_VALUE', `${where} ${reason}`);
  };
  kindSpecOf(type).check(value, type, { fail, where, check: assertValueFitsType });
}

/** Finds the definition of the VCC at `[scope, key]`, parsed; undefined when the template defines none. */
export function findVccType(customization: BuiltCustomization, path: readonly string[]): VccType | undefined {
  const field = findVccField(customization, path[0] ?? '', path[1] ?? '');
  return field ? parseVccType(field.type, field.typeOptions) : undefined;
}

/** The `@@editor` definition of the VCC at `[scope, key]`, unparsed; undefined when there is none. */
export function findVccField(customization: BuiltCustomization, scope: string, key: string): VccFieldDefinition | undefined {
  for (const definition of customization.editor) {
    if (definition.key !== scope) continue;
    for (const field of definition.fields) if (field.key === key) return field;
  }
  return undefined;
}
