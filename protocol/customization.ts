/**
 * The customization model: what a template declares in
 * `.platform/customization/*.json`, what `platform-vcc` builds from it, and
 * the checks that a value fits its VCC type. Shared by the CLI (build time),
 * the guest (built values) and the host (editor controls, value checks).
 */
import { FORBIDDEN_KEYS, type PlainData } from './data.js';
import { PlatformError } from './errors.js';

/** The VCC types Platform Kit draws a control for. Anything else gets a JSON fallback control. */
export const VCC_TYPES = [
  'text',
  'textarea',
  'range',
  'boolean',
  'color',
  'select',
  'image',
  'sound',
  'video',
  'file',
  'secret',
  'array',
  'object',
  'coordinate',
  'size',
] as const;

/** A built-in VCC type name. */
export type VccTypeName = (typeof VCC_TYPES)[number];

/** One field of a scope in `@@editor`: the definition of one VCC. */
export interface VccFieldDefinition {
  /** Key of the value inside its scope. */
  readonly key: string;
  /** Label shown in the editor; defaults to the key. */
  readonly name?: string;
  /** Help text shown under the control. */
  readonly description?: string;
  /**
   * Type expression: a {@link VccTypeName}; `array<T>` or `T[]` for a list of
   * T; `object` (fields in `typeOptions.fields`) or, as the original
   * platform wrote it, `object<Name>` (fields in `typeOptions.Name`, a map
   * from each field's key to its `{name, description, type, typeOptions}`);
   * `secret<image>` for an image kept in the keystore.
   */
  readonly type: string;
  /** Options of the type, e.g. `{min, max, step}` for range. See {@link VccType}. */
  readonly typeOptions?: { readonly [option: string]: PlainData };
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

/** A parsed VCC type: what a control is drawn for and what a value is checked against. */
export type VccType =
  | { readonly kind: 'text'; readonly maxLength?: number }
  | { readonly kind: 'textarea'; readonly maxLength?: number }
  | { readonly kind: 'range'; readonly min: number; readonly max: number; readonly step: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'color'; readonly allowAlpha: boolean }
  | { readonly kind: 'select'; readonly options: readonly { readonly value: string; readonly label: string }[] }
  | {
      readonly kind: 'image' | 'sound' | 'video' | 'file';
      /** Accepted MIME types or patterns like `image/*`. */
      readonly accept: readonly string[];
      /** Largest upload accepted, in bytes. */
      readonly maxBytes: number;
    }
  | { readonly kind: 'secret' }
  | {
      /** `secret<image>`: an image uploaded, then stored in the keystore; the value is its key path. */
      readonly kind: 'secret-image';
      readonly accept: readonly string[];
      readonly maxBytes: number;
    }
  | { readonly kind: 'array'; readonly of: VccType; readonly min: number; readonly max: number }
  | { readonly kind: 'object'; readonly fields: readonly VccObjectField[] }
  /** `{x, y}`: a point, in the template's units. */
  | { readonly kind: 'coordinate' }
  /** `{width, height}`: non-negative sizes, in the template's units. */
  | { readonly kind: 'size' }
  | { readonly kind: 'unknown'; readonly name: string };

/** One field of an object VCC. */
export interface VccObjectField {
  readonly key: string;
  /** Label; defaults to the key. */
  readonly name: string;
  readonly description?: string;
  readonly type: VccType;
}

/** Largest upload of a media VCC when its typeOptions do not say: 25 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const DEFAULT_ACCEPT: Readonly<Record<'image' | 'sound' | 'video' | 'file', readonly string[]>> = {
  image: ['image/*'],
  sound: ['audio/*'],
  video: ['video/*'],
  file: ['*/*'],
};

/** Prefix of the key path a secret VCC stores instead of its value. */
export const KEYSTORE_SCHEME = 'platform-keystore://';

/**
 * Parses a type expression and its options. Throws `INVALID_CONFIG` with the
 * reason when the options do not fit the type (a range without min < max…).
 * An unknown type name is not an error: it parses to `{kind: 'unknown'}`.
 */
export function parseVccType(type: string, typeOptions: { readonly [option: string]: PlainData } = {}): VccType {
  const trimmed = type.trim();
  if (trimmed.endsWith('[]')) {
    // The original platform's shorthand `T[]` (e.g. `object<Enemy>[]`): a list of T.
    const inner = trimmed.slice(0, -2);
    const item = objectOption(typeOptions, 'item');
    return arrayOf(parseVccType(inner, item ?? (/^object<.+>$/.test(inner) ? typeOptions : {})), typeOptions);
  }
  const namedObject = /^object<([^<>]+)>$/.exec(trimmed)?.[1];
  if (namedObject !== undefined) return { kind: 'object', fields: parseNamedFields(namedObject, typeOptions) };
  const secretOf = /^secret<([^<>]+)>$/.exec(trimmed)?.[1];
  if (secretOf !== undefined) {
    if (secretOf === 'text') return { kind: 'secret' };
    if (secretOf !== 'image') return { kind: 'unknown', name: type };
    const { accept, maxBytes } = parseVccType('image', typeOptions) as { accept: readonly string[]; maxBytes: number };
    return { kind: 'secret-image', accept, maxBytes };
  }
  const arrayMatch = /^array<(.+)>$/.exec(trimmed);
  if (arrayMatch?.[1] !== undefined || type === 'array') {
    const inner = arrayMatch?.[1] ?? stringOption(typeOptions, 'of') ?? 'text';
    const itemOptions = objectOption(typeOptions, 'item') ?? (inner === 'object' ? { fields: typeOptions['fields'] ?? [] } : {});
    return arrayOf(parseVccType(inner, itemOptions), typeOptions);
  }
  switch (type) {
    case 'text':
    case 'textarea': {
      const maxLength = numberOption(typeOptions, 'maxLength');
      return maxLength === undefined ? { kind: type } : { kind: type, maxLength };
    }
    case 'range': {
      const min = numberOption(typeOptions, 'min') ?? 0;
      const max = numberOption(typeOptions, 'max') ?? 100;
      const step = numberOption(typeOptions, 'step') ?? 1;
      if (!(min < max) || !(step > 0)) {
        throw new PlatformError('INVALID_CONFIG', `range needs min < max and step > 0 (got min ${min}, max ${max}, step ${step})`);
      }
      return { kind: 'range', min, max, step };
    }
    case 'boolean':
      return { kind: 'boolean' };
    case 'color':
      return { kind: 'color', allowAlpha: typeOptions['allowAlpha'] === true };
    case 'select': {
      const raw = typeOptions['options'];
      if (!Array.isArray(raw) || raw.length === 0) throw new PlatformError('INVALID_CONFIG', 'select needs a non-empty typeOptions.options list');
      const options = raw.map((option, index) => {
        if (typeof option === 'string') return { value: option, label: option };
        if (typeof option === 'object' && option !== null && !Array.isArray(option) && typeof option['value'] === 'string') {
          const label = option['label'];
          return { value: option['value'], label: typeof label === 'string' ? label : option['value'] };
        }
        throw new PlatformError('INVALID_CONFIG', `select option ${index} must be a string or {value, label}`);
      });
      return { kind: 'select', options };
    }
    case 'image':
    case 'sound':
    case 'video':
    case 'file': {
      const acceptOption = typeOptions['accept'];
      const accept = Array.isArray(acceptOption) ? acceptOption.filter((item): item is string => typeof item === 'string') : DEFAULT_ACCEPT[type];
      const maxBytes = numberOption(typeOptions, 'maxBytes') ?? DEFAULT_MAX_UPLOAD_BYTES;
      return { kind: type, accept, maxBytes };
    }
    case 'secret':
      return { kind: 'secret' };
    case 'coordinate':
      return { kind: 'coordinate' };
    case 'size':
      return { kind: 'size' };
    case 'object': {
      const rawFields = typeOptions['fields'];
      if (!Array.isArray(rawFields)) throw new PlatformError('INVALID_CONFIG', 'object needs a typeOptions.fields list');
      const fields = rawFields.map((field, index) => {
        const parsed = parseFieldShape(field, `fields[${index}]`);
        return { key: parsed.key, name: parsed.name ?? parsed.key, type: parseVccType(parsed.type, parsed.typeOptions) };
      });
      return { kind: 'object', fields };
    }
    default:
      return { kind: 'unknown', name: type };
  }
}

/** A list of `of`, with its count limits from typeOptions `min` and `max`. */
function arrayOf(of: VccType, typeOptions: { readonly [option: string]: PlainData }): VccType {
  const min = numberOption(typeOptions, 'min') ?? 0;
  const max = numberOption(typeOptions, 'max') ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new PlatformError('INVALID_CONFIG', `array min and max must be whole numbers with 0 <= min <= max (got ${min}, ${max})`);
  }
  return { kind: 'array', of, min, max };
}

/**
 * The fields of `object<Name>`, from `typeOptions.Name`: as the original
 * platform wrote them, an object from each field's key to its definition
 * `{name, description, type, typeOptions}` (in that order); a list of
 * definitions with their own `key` is taken too.
 */
function parseNamedFields(name: string, typeOptions: { readonly [option: string]: PlainData }): VccObjectField[] {
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

/** The value a new item of this type starts with (array "add", a field without a value). */
export function defaultValueOf(type: VccType): PlainData {
  switch (type.kind) {
    case 'range':
      return type.min;
    case 'boolean':
      return false;
    case 'color':
      return '#000000';
    case 'select':
      return type.options[0]?.value ?? '';
    case 'array':
      return Array.from({ length: type.min }, () => defaultValueOf(type.of));
    case 'object':
      return Object.fromEntries(type.fields.map((field) => [field.key, defaultValueOf(field.type)]));
    case 'coordinate':
      return { x: 0, y: 0 };
    case 'size':
      return { width: 0, height: 0 };
    case 'unknown':
      return null;
    default:
      return '';
  }
}

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const FUNCTION_COLOR = /^(rgb|rgba|hsl|hsla)\(\s*[-+0-9.%\s,/deg]+\)$/i;

/** True when `value` is a color string this kit understands: hex, rgb(a) or hsl(a). */
export function isColorString(value: string, allowAlpha: boolean): boolean {
  if (HEX_COLOR.test(value)) return allowAlpha || value.length === 4 || value.length === 7;
  const match = FUNCTION_COLOR.exec(value);
  if (!match) return false;
  const parts = value.slice(value.indexOf('(') + 1, -1).split(/[\s,/]+/).filter(Boolean);
  if (parts.length === 4) return allowAlpha;
  return parts.length === 3;
}

/**
 * Checks that `value` fits `type`. Returns nothing, or throws `INVALID_VALUE`
 * saying why (the wrong type for its VCC, out of range, not an option…).
 */
export function assertValueFitsType(value: unknown, type: VccType, where = 'value'): void {
  const fail = (reason: string): never => {
    throw new PlatformError('INVALID_VALUE', `${where} ${reason}`);
  };
  switch (type.kind) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string') fail(`must be a string for ${withArticle(type.kind)} VCC`);
      if (type.maxLength !== undefined && (value as string).length > type.maxLength) fail(`is longer than ${type.maxLength} characters`);
      return;
    case 'range':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('must be a number for a range VCC');
      if ((value as number) < type.min || (value as number) > type.max) fail(`must be between ${type.min} and ${type.max}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail('must be true or false for a boolean VCC');
      return;
    case 'color':
      if (typeof value !== 'string' || !isColorString(value, type.allowAlpha)) {
        fail(`must be ${type.allowAlpha ? 'a' : 'an opaque'} color (hex, rgb() or hsl())`);
      }
      return;
    case 'select':
      if (typeof value !== 'string' || !type.options.some((option) => option.value === value)) {
        fail(`must be one of ${type.options.map((option) => JSON.stringify(option.value)).join(', ')}`);
      }
      return;
    case 'image':
    case 'sound':
    case 'video':
    case 'file':
      if (typeof value !== 'string' || (value !== '' && !isSafeMediaUrl(value))) fail(`must be an http(s) URL or a path for ${withArticle(type.kind)} VCC`);
      return;
    case 'secret':
    case 'secret-image':
      if (typeof value !== 'string' || (value !== '' && !value.startsWith(KEYSTORE_SCHEME))) {
        fail(`must be a keystore key path (${KEYSTORE_SCHEME}…), never the secret itself`);
      }
      return;
    case 'array':
      if (!Array.isArray(value)) return fail('must be an array');
      if (value.length < type.min || value.length > type.max) fail(`must hold between ${type.min} and ${type.max} items`);
      value.forEach((item, index) => assertValueFitsType(item, type.of, `${where}[${index}]`));
      return;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('must be an object');
      for (const field of type.fields) {
        const fieldValue = Object.prototype.hasOwnProperty.call(value, field.key) ? (value as Record<string, unknown>)[field.key] : undefined;
        if (fieldValue !== undefined) assertValueFitsType(fieldValue, field.type, `${where}.${field.key}`);
      }
      return;
    }
    case 'coordinate':
    case 'size': {
      const [first, second] = type.kind === 'coordinate' ? (['x', 'y'] as const) : (['width', 'height'] as const);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(`must be an object {${first}, ${second}}`);
      for (const member of [first, second]) {
        const number = Object.prototype.hasOwnProperty.call(value, member) ? (value as Record<string, unknown>)[member] : undefined;
        if (typeof number !== 'number' || !Number.isFinite(number)) fail(`must have a number ${member}`);
        if (type.kind === 'size' && (number as number) < 0) fail(`must have a ${member} of 0 or more`);
      }
      return;
    }
    case 'unknown':
      return;
  }
}

/** Media values are URLs a template will load: http(s), or a path on the template's own origin. */
export function isSafeMediaUrl(value: string): boolean {
  if (value.startsWith('/') || value.startsWith('./')) return !value.startsWith('//');
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
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

function numberOption(options: { readonly [option: string]: PlainData }, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new PlatformError('INVALID_CONFIG', `typeOptions.${name} must be a number`);
  return value;
}

function stringOption(options: { readonly [option: string]: PlainData }, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

function objectOption(options: { readonly [option: string]: PlainData }, name: string): { [option: string]: PlainData } | undefined {
  const value = options[name];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/** "a text", "an image": the article a type name takes in a message. */
function withArticle(name: string): string {
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
}
