/**
 * How a value that does not fit its VCC type is treated where it is a
 * template's own default (the build, `VccMiddleware`, the host's check of a
 * template's built values) and where an edit leaves it in place.
 *
 * Why not refuse it: templates of the original SDK ship defaults such as a
 * number in a text field (`appearAfter: 3`), `null` in an image field or a
 * keystore-style name (`"$revealImage"`) in a `secret<image>` field, and the
 * original kept them. Dropping the file for one such value dropped every
 * setting of the template (a black page). So a misfit is kept, with a
 * warning; the only values never kept are the unsafe ones: a media URL that
 * is neither http(s) nor a path (`javascript:`, `data:`), which a control
 * would render as a link or load. Those are replaced by `''`, with a warning.
 */
import { assertValueFitsType, defaultValueOf, isSafeMediaUrl, kindSpecOf, VCC_KINDS, type VccType } from './customization.js';
import type { PlainData } from './data.js';
import { PlatformError, withoutPrefix } from './errors.js';

/** One place inside a value that does not fit its VCC type. */
export interface ValueMisfit {
  /** Steps from the checked value down to the misfit: object keys and list indexes (`[]`: the value itself). */
  readonly path: readonly (string | number)[];
  /** The value found there. */
  readonly value: unknown;
  /** The type it should have had, as a template writes it (`text`, `image`, `array`…). */
  readonly type: string;
  /** Why it does not fit, e.g. `must be a string for a text VCC`. */
  readonly reason: string;
  /** True for a URL that a control would link to or load and that is not http(s) or a path: never kept. */
  readonly unsafe: boolean;
}

/** What {@link fitDefault} made of a default value. */
export interface FittedValue {
  /** The value: kept as it was, object fields left out given their type's default, unsafe URLs replaced by `''`. */
  readonly value: PlainData;
  readonly misfits: readonly ValueMisfit[];
}

/** Deepest value walked; a customization value is far shallower (the JSON door bounds depth before this). */
const MAX_WALK_DEPTH = 64;

/**
 * Checks a template's default against its type without refusing it: returns
 * the value to use and every misfit in it (see the module comment).
 */
export function fitDefault(value: PlainData, type: VccType): FittedValue {
  const misfits: ValueMisfit[] = [];
  const fitted = walk(value, type, [], misfits, true);
  return { value: fitted, misfits };
}

/** Every misfit in `value` (nothing is changed). */
export function findMisfits(value: unknown, type: VccType): ValueMisfit[] {
  const misfits: ValueMisfit[] = [];
  walk(value as PlainData, type, [], misfits, false);
  return misfits;
}

/**
 * Like `assertValueFitsType`, but a misfit that `previous` already held at
 * the same place is let through: an edit of one field of a list whose other
 * items keep a template's odd default (a numeric `id` in a text field) is
 * accepted, while anything new must fit. An unsafe URL is never let through.
 * Throws the error `assertValueFitsType` throws.
 */
export function assertFitsBeside(value: unknown, type: VccType, where: string, previous: unknown): void {
  try {
    assertValueFitsType(value, type, where);
  } catch (error) {
    const misfits = findMisfits(value, type);
    const inherited = misfits.length > 0 && misfits.every((misfit) => !misfit.unsafe && sameJson(readAt(previous, misfit.path), misfit.value));
    if (!inherited) throw error;
  }
}

/** The name of a type as a template writes it, for messages. */
export function typeNameOf(type: VccType): string {
  if (type.kind === 'array') return `array<${typeNameOf(type.of)}>`;
  if (type.kind === 'unknown') return type.name;
  return VCC_KINDS[type.kind].typeName;
}

/** A short JSON preview of a value for a one-line message (at most about 60 characters). */
export function previewValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? `(${typeof value})`);
  } catch {
    text = '(unprintable)';
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A one-line description of a misfit: `value 3 does not fit type text (must be …)`, and what became of it. */
export function describeMisfit(misfit: ValueMisfit): string {
  const what = `value ${previewValue(misfit.value)} does not fit type ${misfit.type} (${misfit.reason})`;
  return misfit.unsafe ? `${what}; replaced by "": a URL that is not http(s) or a path is never linked or loaded` : `${what}; kept as it is`;
}

/** A coded error for a misfit, for the host's events: `INVALID_VALUE`. */
export function misfitError(misfit: ValueMisfit, where: string): PlatformError {
  return new PlatformError('INVALID_VALUE', `${where}: ${describeMisfit(misfit)}`);
}

function walk(value: PlainData, type: VccType, path: (string | number)[], misfits: ValueMisfit[], fill: boolean): PlainData {
  if (path.length > MAX_WALK_DEPTH) return value;
  const add = (reason: string, unsafe = false): void => {
    misfits.push({ path: [...path], value, type: typeNameOf(type), reason, unsafe });
  };
  // The containers are walked into, so that each misfit inside is listed with its own path.
  if (type.kind === 'array') {
    if (!Array.isArray(value)) {
      add('must be a list');
      return value;
    }
    if (value.length < type.min || value.length > type.max) add(`must hold between ${type.min} and ${type.max} items`);
    return value.map((item, index) => walk(item, type.of, [...path, index], misfits, fill));
  }
  if (type.kind === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      add('must be an object');
      return value;
    }
    const result: { [key: string]: PlainData } = { ...value };
    for (const field of type.fields) {
      const current = Object.prototype.hasOwnProperty.call(value, field.key) ? value[field.key] : undefined;
      if (current === undefined) {
        if (fill) result[field.key] = defaultValueOf(field.type);
        continue;
      }
      result[field.key] = walk(current, field.type, [...path, field.key], misfits, fill);
    }
    return result;
  }
  // Every other kind is checked whole, by its entry's check (protocol/vcc-kinds.ts).
  try {
    assertValueFitsType(value, type, 'value');
    return value;
  } catch (error) {
    const reason = withoutPrefix(error instanceof Error ? error.message : String(error)).replace(/^value /, '');
    const unsafe = kindSpecOf(type).loadsUrl && typeof value === 'string' && value !== '' && !isSafeMediaUrl(value);
    add(reason, unsafe);
    // An unsafe URL is neutralized where the caller fills values; a plain misfit stays as it was.
    return unsafe && fill ? '' : value;
  }
}

function readAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const step of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) current = typeof step === 'number' ? current[step] : undefined;
    else current = Object.prototype.hasOwnProperty.call(current, step) ? (current as Record<string, unknown>)[step] : undefined;
  }
  return current;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
