/**
 * The VCC kinds: one table, {@link VCC_KINDS}, with everything each kind is
 * (how its type is parsed, the value a new item starts with, the check of a
 * value, the TypeScript type `platform-vcc` writes for it, the tag of its
 * editor control). A new kind is a member of {@link VccType}, one entry here
 * and its control's file (bound to its tag in
 * host/editor/controls/control-elements.ts); `satisfies` makes the compiler
 * name any part left out, and any kind without an entry or a control.
 *
 * Everything that differs by kind is read from this table; code elsewhere
 * only tells the containers (`array`, `object`) and `unknown` apart, which it
 * walks into. No `switch` on a kind with a default that would silently
 * answer for a kind added later.
 */
import type { PlainData } from './data.js';
import { PlatformError } from './errors.js';
import { DEFAULT_MAX_UPLOAD_BYTES, isColorString, isSafeMediaUrl, KEYSTORE_SCHEME, numberOption, objectOption, stringOption, withArticle, type TypeOptions } from './vcc-values.js';

/** A media VCC: the value is a URL (or a path) of an upload. */
interface MediaType<Kind extends 'image' | 'sound' | 'video' | 'file'> {
  readonly kind: Kind;
  /** Accepted MIME types or patterns like `image/*`. */
  readonly accept: readonly string[];
  /** Largest upload accepted, in bytes. */
  readonly maxBytes: number;
}

/** A parsed VCC type: what a control is drawn for and what a value is checked against. */
export type VccType =
  | { readonly kind: 'text'; readonly maxLength?: number }
  | { readonly kind: 'textarea'; readonly maxLength?: number }
  | { readonly kind: 'range'; readonly min: number; readonly max: number; readonly step: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'color'; readonly allowAlpha: boolean }
  | { readonly kind: 'select'; readonly options: readonly { readonly value: string; readonly label: string }[] }
  | MediaType<'image'>
  | MediaType<'sound'>
  | MediaType<'video'>
  | MediaType<'file'>
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

/** A kind of VCC: the `kind` of a {@link VccType}. */
export type VccKind = VccType['kind'];

/** The {@link VccType} of one kind. */
export type VccTypeOf<Kind extends VccKind> = Extract<VccType, { readonly kind: Kind }>;

/** What a kind's `parse` may call: the rest of the parser, for kinds that hold other types. */
export interface ParseTools {
  /** The type name as the template wrote it (what an unknown type keeps). */
  readonly name: string;
  /** Parses another type expression (an array's items, an object's fields). */
  readonly parseType: (type: string, options: TypeOptions) => VccType;
  /** Checks the shape of one field definition of an object (`INVALID_CONFIG` naming `where`). */
  readonly parseFieldShape: (value: unknown, where: string) => { readonly key: string; readonly name?: string; readonly type: string; readonly typeOptions?: TypeOptions };
}

/** What a kind's `check` is given: where the value is, how to refuse it, and the check of a nested value. */
export interface CheckTools {
  /** Throws `INVALID_VALUE`: `${where} ${reason}`. */
  readonly fail: (reason: string) => never;
  /** The value's place, for messages (`value`, `value[2].name`). */
  readonly where: string;
  /** Checks a nested value (an array's item, an object's field). */
  readonly check: (value: unknown, type: VccType, where: string) => void;
}

/** What a kind's `typeScript` may call: TypeScript's syntax, and the type of nested VCCs or of plain samples. */
export interface TypeScriptTools {
  /** The TypeScript type of a nested VCC, given the values seen at its place. */
  readonly typeFor: (type: VccType, samples: readonly PlainData[]) => string;
  /** The TypeScript type of plain JSON values (a type without a definition). */
  readonly inferred: (samples: readonly PlainData[]) => string;
  /** `A | B`, each once (`never` for none). */
  readonly union: (types: readonly string[]) => string;
  /** `T[]`, parenthesized when T is a union. */
  readonly listOf: (item: string) => string;
  /** An object key as a TypeScript property name (quoted when it must be). */
  readonly propertyName: (key: string) => string;
}

/** Everything one kind is. Every part is required: an entry that leaves one out does not compile. */
export interface KindSpec<Kind extends VccKind> {
  /** The type name a template writes for it, also in messages and the CLI's list of known types; null for `unknown` (any name no kind claims). */
  readonly typeName: Kind extends 'unknown' ? null : string;
  /** Its type from `typeOptions` (`INVALID_CONFIG` saying why when they do not fit). */
  readonly parse: (options: TypeOptions, tools: ParseTools) => VccTypeOf<Kind>;
  /** The value a new item of this type starts with (array "add", a field without a value). */
  readonly defaultValue: (type: VccTypeOf<Kind>, defaultOf: (type: VccType) => PlainData) => PlainData;
  /** Returns when `value` fits the type; else calls `tools.fail` with the reason. */
  readonly check: (value: unknown, type: VccTypeOf<Kind>, tools: CheckTools) => void;
  /** The TypeScript type `platform-vcc` writes for a value of this type. */
  readonly typeScript: (type: VccTypeOf<Kind>, samples: readonly PlainData[], tools: TypeScriptTools) => string;
  /**
   * Names a path may take inside a value of this kind, edited by its own control (a coordinate's
   * `x` and `y`); none for most. The containers (`array`, `object`, `unknown`) are walked into
   * by vcc-paths.ts instead.
   */
  readonly members: readonly string[];
  /**
   * True when the value is a URL the template loads (media): one that is not http(s) or a path
   * is replaced by "" where defaults are fitted (value-fit.ts), never linked or loaded.
   */
  readonly loadsUrl: boolean;
  /** Tag name of its editor control; the element class is bound to it in host/editor/controls/control-elements.ts. */
  readonly control: `platform-${string}-control`;
}

/** The table's type: one {@link KindSpec} for every {@link VccKind}, no more, no less. */
export type VccKindTable = { readonly [Kind in VccKind]: KindSpec<Kind> };

const DEFAULT_ACCEPT = { image: ['image/*'], sound: ['audio/*'], video: ['video/*'], file: ['*/*'] } as const;

/** A list of `of`, with its count limits from typeOptions `min` and `max`. */
export function listOf(of: VccType, options: TypeOptions): VccTypeOf<'array'> {
  const min = numberOption(options, 'min') ?? 0;
  const max = numberOption(options, 'max') ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new PlatformError('INVALID_CONFIG', `array min and max must be whole numbers with 0 <= min <= max (got ${min}, ${max})`);
  }
  return { kind: 'array', of, min, max };
}

/** `array<inner>` (or `array` with `of: inner`): items of `inner`, their options in `typeOptions.item`. */
export function parseList(inner: string, options: TypeOptions, parseType: ParseTools['parseType']): VccTypeOf<'array'> {
  const itemOptions = objectOption(options, 'item') ?? (inner === 'object' ? { fields: options['fields'] ?? [] } : {});
  return listOf(parseType(inner, itemOptions), options);
}

/** What an upload of `kind` may be: `accept` (MIME patterns) and `maxBytes` from typeOptions, or their defaults. */
function uploadLimits(kind: keyof typeof DEFAULT_ACCEPT, options: TypeOptions): { accept: readonly string[]; maxBytes: number } {
  const acceptOption = options['accept'];
  const accept = Array.isArray(acceptOption) ? acceptOption.filter((item): item is string => typeof item === 'string') : DEFAULT_ACCEPT[kind];
  return { accept, maxBytes: numberOption(options, 'maxBytes') ?? DEFAULT_MAX_UPLOAD_BYTES };
}

/** The spec of one media kind: they differ only in what they accept by default. */
function media<Kind extends 'image' | 'sound' | 'video' | 'file'>(kind: Kind): KindSpec<Kind> {
  return {
    // TypeScript cannot resolve KindSpec's conditional typeName for a generic Kind; a media kind is never `unknown`.
    typeName: kind as string as KindSpec<Kind>['typeName'],
    // TypeScript cannot see that {kind: Kind, …} is VccTypeOf<Kind> for a generic Kind.
    parse: (options) => ({ kind, ...uploadLimits(kind, options) }) as MediaType<Kind> as VccTypeOf<Kind>,
    defaultValue: () => '',
    check: (value, _type, { fail }) => {
      if (typeof value !== 'string' || (value !== '' && !isSafeMediaUrl(value))) fail(`must be an http(s) URL or a path for ${withArticle(kind)} VCC`);
    },
    typeScript: () => 'string',
    members: [],
    loadsUrl: true,
    control: `platform-${kind}-control`,
  };
}

/** The check of `text` and `textarea`. */
function checkText(kind: 'text' | 'textarea'): KindSpec<'text' | 'textarea'>['check'] {
  return (value, type, { fail }) => {
    if (typeof value !== 'string') return fail(`must be a string for ${withArticle(kind)} VCC`);
    if (type.maxLength !== undefined && value.length > type.maxLength) fail(`is longer than ${type.maxLength} characters`);
  };
}

/** The check of the number pairs, `coordinate` (`{x, y}`) and `size` (`{width, height}`, not negative). */
function checkPair(first: string, second: string, nonNegative: boolean): KindSpec<'coordinate' | 'size'>['check'] {
  return (value, _type, { fail }) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(`must be an object {${first}, ${second}}`);
    for (const member of [first, second]) {
      const number = Object.prototype.hasOwnProperty.call(value, member) ? (value as Record<string, unknown>)[member] : undefined;
      if (typeof number !== 'number' || !Number.isFinite(number)) return fail(`must have a number ${member}`);
      if (nonNegative && number < 0) fail(`must have a ${member} of 0 or more`);
    }
  };
}

/** A keystore key path: what a secret VCC holds, never the secret itself. */
const checkKeyPath: KindSpec<'secret' | 'secret-image'>['check'] = (value, _type, { fail }) => {
  if (typeof value !== 'string' || (value !== '' && !value.startsWith(KEYSTORE_SCHEME))) {
    fail(`must be a keystore key path (${KEYSTORE_SCHEME}…), never the secret itself`);
  }
};

/** The VCC kinds, one entry each (see the file's comment). The order is the order of the CLI's list of known types. */
export const VCC_KINDS = {
  text: {
    typeName: 'text',
    parse: (options) => {
      const maxLength = numberOption(options, 'maxLength');
      return maxLength === undefined ? { kind: 'text' } : { kind: 'text', maxLength };
    },
    defaultValue: () => '',
    check: checkText('text'),
    typeScript: () => 'string',
    members: [],
    loadsUrl: false,
    control: 'platform-text-control',
  },
  textarea: {
    typeName: 'textarea',
    parse: (options) => {
      const maxLength = numberOption(options, 'maxLength');
      return maxLength === undefined ? { kind: 'textarea' } : { kind: 'textarea', maxLength };
    },
    defaultValue: () => '',
    check: checkText('textarea'),
    typeScript: () => 'string',
    members: [],
    loadsUrl: false,
    control: 'platform-textarea-control',
  },
  range: {
    typeName: 'range',
    parse: (options) => {
      const min = numberOption(options, 'min') ?? 0;
      const max = numberOption(options, 'max') ?? 100;
      const step = numberOption(options, 'step') ?? 1;
      if (!(min < max) || !(step > 0)) {
        throw new PlatformError('INVALID_CONFIG', `range needs min < max and step > 0 (got min ${min}, max ${max}, step ${step})`);
      }
      return { kind: 'range', min, max, step };
    },
    defaultValue: (type) => type.min,
    check: (value, type, { fail }) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number for a range VCC');
      if (value < type.min || value > type.max) fail(`must be between ${type.min} and ${type.max}`);
    },
    typeScript: () => 'number',
    members: [],
    loadsUrl: false,
    control: 'platform-range-control',
  },
  boolean: {
    typeName: 'boolean',
    parse: () => ({ kind: 'boolean' }),
    defaultValue: () => false,
    check: (value, _type, { fail }) => {
      if (typeof value !== 'boolean') fail('must be true or false for a boolean VCC');
    },
    typeScript: () => 'boolean',
    members: [],
    loadsUrl: false,
    control: 'platform-boolean-control',
  },
  color: {
    typeName: 'color',
    parse: (options) => ({ kind: 'color', allowAlpha: options['allowAlpha'] === true }),
    defaultValue: () => '#000000',
    check: (value, type, { fail }) => {
      if (typeof value !== 'string' || !isColorString(value, type.allowAlpha)) fail(`must be ${type.allowAlpha ? 'a' : 'an opaque'} color (hex, rgb() or hsl())`);
    },
    typeScript: () => 'string',
    members: [],
    loadsUrl: false,
    control: 'platform-color-control',
  },
  select: {
    typeName: 'select',
    parse: (options) => {
      const raw = options['options'];
      if (!Array.isArray(raw) || raw.length === 0) throw new PlatformError('INVALID_CONFIG', 'select needs a non-empty typeOptions.options list');
      const choices = raw.map((option, index) => {
        if (typeof option === 'string') return { value: option, label: option };
        if (typeof option === 'object' && option !== null && !Array.isArray(option) && typeof option['value'] === 'string') {
          const label = option['label'];
          return { value: option['value'], label: typeof label === 'string' ? label : option['value'] };
        }
        throw new PlatformError('INVALID_CONFIG', `select option ${index} must be a string or {value, label}`);
      });
      return { kind: 'select', options: choices };
    },
    defaultValue: (type) => type.options[0]?.value ?? '',
    check: (value, type, { fail }) => {
      if (typeof value !== 'string' || !type.options.some((option) => option.value === value)) {
        fail(`must be one of ${type.options.map((option) => JSON.stringify(option.value)).join(', ')}`);
      }
    },
    typeScript: (type, _samples, { union }) => union(type.options.map((option) => JSON.stringify(option.value))),
    members: [],
    loadsUrl: false,
    control: 'platform-select-control',
  },
  image: media('image'),
  sound: media('sound'),
  video: media('video'),
  file: media('file'),
  secret: {
    // `secret<text>` is read as `secret` too (customization.ts, parseVccType).
    typeName: 'secret',
    parse: () => ({ kind: 'secret' }),
    defaultValue: () => '',
    check: checkKeyPath,
    typeScript: () => 'string',
    members: [],
    loadsUrl: false,
    control: 'platform-secret-control',
  },
  'secret-image': {
    typeName: 'secret<image>',
    parse: (options) => ({ kind: 'secret-image', ...uploadLimits('image', options) }),
    defaultValue: () => '',
    check: checkKeyPath,
    typeScript: () => 'string',
    members: [],
    loadsUrl: false,
    control: 'platform-secret-image-control',
  },
  array: {
    typeName: 'array',
    parse: (options, { parseType }) => parseList(stringOption(options, 'of') ?? 'text', options, parseType),
    defaultValue: (type, defaultOf) => Array.from({ length: type.min }, () => defaultOf(type.of)),
    check: (value, type, { fail, where, check }) => {
      if (!Array.isArray(value)) return fail('must be an array');
      if (value.length < type.min || value.length > type.max) fail(`must hold between ${type.min} and ${type.max} items`);
      value.forEach((item, index) => check(item, type.of, `${where}[${index}]`));
    },
    typeScript: (type, samples, { typeFor, listOf: list }) =>
      list(
        typeFor(
          type.of,
          samples.flatMap((sample) => (Array.isArray(sample) ? sample : [])),
        ),
      ),
    members: [],
    loadsUrl: false,
    control: 'platform-array-control',
  },
  object: {
    typeName: 'object',
    parse: (options, { parseType, parseFieldShape }) => {
      const rawFields = options['fields'];
      if (!Array.isArray(rawFields)) throw new PlatformError('INVALID_CONFIG', 'object needs a typeOptions.fields list');
      const fields = rawFields.map((field, index) => {
        const parsed = parseFieldShape(field, `fields[${index}]`);
        return { key: parsed.key, name: parsed.name ?? parsed.key, type: parseType(parsed.type, parsed.typeOptions ?? {}) };
      });
      return { kind: 'object', fields };
    },
    defaultValue: (type, defaultOf) => Object.fromEntries(type.fields.map((field) => [field.key, defaultOf(field.type)])),
    check: (value, type, { fail, where, check }) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('must be an object');
      for (const field of type.fields) {
        const fieldValue = Object.prototype.hasOwnProperty.call(value, field.key) ? (value as Record<string, unknown>)[field.key] : undefined;
        if (fieldValue !== undefined) check(fieldValue, field.type, `${where}.${field.key}`);
      }
    },
    typeScript: (type, samples, { typeFor, propertyName }) => {
      const objects = samples.filter((sample): sample is { [key: string]: PlainData } => typeof sample === 'object' && sample !== null && !Array.isArray(sample));
      const fields = type.fields.map((field) => {
        const fieldSamples = objects.flatMap((sample) => (Object.prototype.hasOwnProperty.call(sample, field.key) ? [sample[field.key] as PlainData] : []));
        return `${propertyName(field.key)}: ${typeFor(field.type, fieldSamples)}`;
      });
      return fields.length === 0 ? '{}' : `{ ${fields.join('; ')} }`;
    },
    members: [],
    loadsUrl: false,
    control: 'platform-object-control',
  },
  coordinate: {
    typeName: 'coordinate',
    parse: () => ({ kind: 'coordinate' }),
    defaultValue: () => ({ x: 0, y: 0 }),
    check: checkPair('x', 'y', false),
    typeScript: () => '{ x: number; y: number }',
    members: ['x', 'y'],
    loadsUrl: false,
    control: 'platform-coordinate-control',
  },
  size: {
    typeName: 'size',
    parse: () => ({ kind: 'size' }),
    defaultValue: () => ({ width: 0, height: 0 }),
    check: checkPair('width', 'height', true),
    typeScript: () => '{ width: number; height: number }',
    members: ['width', 'height'],
    loadsUrl: false,
    control: 'platform-size-control',
  },
  unknown: {
    typeName: null,
    parse: (_options, { name }) => ({ kind: 'unknown', name }),
    defaultValue: () => null,
    // A type this kit does not know: any JSON value fits (the editor shows a raw JSON box).
    check: () => undefined,
    typeScript: (_type, samples, { inferred }) => (samples.length === 0 ? 'unknown' : inferred(samples)),
    members: [],
    loadsUrl: false,
    control: 'platform-json-control',
  },
} as const satisfies VccKindTable;

/**
 * The entry of `type`'s kind, typed for any {@link VccType}. TypeScript cannot relate
 * `VCC_KINDS[type.kind]` to `type` (a correlated union), so this is the one place that says so.
 */
export function kindSpecOf(type: VccType): KindSpec<VccKind> {
  return VCC_KINDS[type.kind] as unknown as KindSpec<VccKind>;
}

/** The written type names of the known kinds, in table order (`unknown` is not one). */
export const VCC_TYPES: readonly string[] = Object.values(VCC_KINDS).flatMap((spec) => (spec.typeName === null ? [] : [spec.typeName]));

const KIND_BY_NAME: ReadonlyMap<string, VccKind> = new Map(
  (Object.keys(VCC_KINDS) as VccKind[]).flatMap((kind) => {
    const name = VCC_KINDS[kind].typeName;
    return name === null ? [] : [[name, kind] as const];
  }),
);

/** The kind a written type name names (`secret<image>` included), if any kind claims it. */
export function kindNamed(name: string): VccKind | undefined {
  return KIND_BY_NAME.get(name);
}
