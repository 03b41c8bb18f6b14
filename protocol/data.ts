/**
 * Guards for the data that crosses the host ↔ guest boundary: VCC paths and
 * custom values. They take `unknown` and either return a typed value or throw
 * a coded {@link PlatformError}; nothing unchecked reaches the logic.
 */
import { PlatformError } from './errors.js';

/** A JSON value: what a custom value may be. */
export type PlainData = null | boolean | number | string | PlainData[] | { [key: string]: PlainData };

/** Path to a VCC value, normally `[scope, key]`. */
export type VccPath = readonly string[];

/** Keys that could reach an object's prototype; refused in every path and object. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * True for a name that is a property of `Object.prototype` (`toString`,
 * `hasOwnProperty`, `valueOf`, `__proto__`, `constructor`, …) or `prototype`.
 * Why wider than {@link FORBIDDEN_KEYS}: a record built from foreign names
 * with `record[name] ??= {}` on a plain object finds the built-in function
 * under such a name and writes onto it (one request's values then show in
 * every object of the process, or a read-only property throws). Doors that
 * take scope and key names from outside refuse all of them; checked against
 * the live `Object.prototype`, so a name added to it later is refused too.
 */
export function isPrototypeKey(name: string): boolean {
  return FORBIDDEN_KEYS.has(name) || Object.prototype.hasOwnProperty.call(Object.prototype, name);
}

/** Longest VCC path accepted. */
export const MAX_PATH_DEPTH = 8;
/** Longest single path segment accepted. */
export const MAX_PATH_SEGMENT_LENGTH = 128;
/** Default size limit of one custom value, in UTF-8 bytes of its JSON form. */
export const DEFAULT_MAX_VALUE_BYTES = 256 * 1024;
/** Deepest nesting accepted inside one value. */
export const MAX_VALUE_DEPTH = 32;

/** True when `value` is a valid VCC path (1 to 8 non-empty strings, no prototype keys). */
export function isVccPath(value: unknown): value is VccPath {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PATH_DEPTH) return false;
  for (const segment of value) {
    if (typeof segment !== 'string' || segment.length === 0 || segment.length > MAX_PATH_SEGMENT_LENGTH) return false;
    if (FORBIDDEN_KEYS.has(segment)) return false;
  }
  return true;
}

/** Returns `value` as a path or throws `INVALID_PATH`. */
export function assertVccPath(value: unknown): VccPath {
  if (!isVccPath(value)) {
    throw new PlatformError(
      'INVALID_PATH',
      `a VCC path is an array of 1 to ${MAX_PATH_DEPTH} non-empty strings without __proto__, constructor or prototype; got ${describe(value)}`,
    );
  }
  return value;
}

/**
 * A path as a template writes it, made a {@link VccPath}, or `INVALID_PATH`.
 * Why wider than {@link assertVccPath}: templates of the original platform
 * index lists with numbers (`['messages', 'items', 0, 'text']`) and build
 * paths from optional parts (`[scope, key, sub]` with `sub` undefined). A
 * non-negative integer after `[scope, key]` becomes its decimal string (the list index; that is
 * how it travels and how {@link readPath} and {@link writeInside} read it),
 * and undefined segments at the end are dropped. Anything else is checked
 * as before.
 */
export function templatePath(value: unknown): VccPath {
  if (!Array.isArray(value)) return assertVccPath(value);
  let end = value.length;
  while (end > 0 && value[end - 1] === undefined) end--;
  let path: unknown[] = end === value.length ? value : value.slice(0, end);
  for (let i = 0; i < path.length; i++) {
    const segment: unknown = path[i];
    if (typeof segment !== 'number') continue;
    // Scope and key are names; only what lies inside a value can be a list.
    if (i < 2 || !Number.isSafeInteger(segment) || segment < 0) {
      throw new PlatformError(
        'INVALID_PATH',
        `a number in a VCC path is a list index inside a value (after [scope, key]), a whole number of at least 0; got ${String(segment)} at position ${i}`,
      );
    }
    if (path === value) path = value.slice();
    path[i] = String(segment);
  }
  return assertVccPath(path);
}

/**
 * Returns `value` as plain JSON data, or throws `INVALID_VALUE` (not plain
 * data: functions, class instances, cycles, NaN, prototype keys) or
 * `VALUE_TOO_LARGE` (over `maxBytes` UTF-8 bytes of JSON).
 */
export function assertPlainData(value: unknown, maxBytes: number = DEFAULT_MAX_VALUE_BYTES): PlainData {
  // Fast path for the common case of one text or number value: no walk, no JSON text.
  if (typeof value === 'string') {
    // A JSON string is its UTF-8 bytes plus two quotes (escapes only make it longer, never past 6 bytes a unit).
    if (value.length * 6 + 2 <= maxBytes) return value;
  } else if (typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value))) {
    return value;
  }
  plainDataJson(value, maxBytes);
  return value as PlainData;
}

/**
 * Checks `value` as {@link assertPlainData} does and returns its JSON text,
 * for callers that send it: the value is serialized once, for the size check
 * and the wire both.
 */
export function plainDataJson(value: unknown, maxBytes: number = DEFAULT_MAX_VALUE_BYTES): string {
  // The walk without allocations settles almost every value; only one that nests past the
  // limit (deep, or a cycle) takes the exact walk, which tells which of the two it is.
  if (!checkShapeWithinDepth(value, 0)) checkShape(value, 0, new Set());
  const json = JSON.stringify(value);
  // Fast path: a UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no exact count.
  if (json.length * 3 > maxBytes) {
    const bytes = utf8Length(json);
    if (bytes > maxBytes) {
      throw new PlatformError('VALUE_TOO_LARGE', `value is ${bytes} bytes of JSON, over the limit of ${maxBytes}`);
    }
  }
  return json;
}

/**
 * {@link checkShape} without its `seen` set and `Object.keys` arrays (an event
 * payload is checked on every emit). Throws what checkShape throws, or
 * returns false past {@link MAX_VALUE_DEPTH}: a cycle lands there too, since
 * it repeats the path to itself before any sibling, and checkShape then
 * reports the cycle or the depth exactly.
 */
function checkShapeWithinDepth(value: unknown, depth: number): boolean {
  if (depth > MAX_VALUE_DEPTH) return false;
  // typeof's answers are fixed by the language: the default covers the rest, and no new one can come.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      if (!Number.isFinite(value)) throw new PlatformError('INVALID_VALUE', `value holds a non-finite number (${value})`);
      return true;
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!checkShapeWithinDepth(value[i], depth + 1)) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new PlatformError('INVALID_VALUE', 'value holds an object that is not a plain object');
      }
      // for…in walks the same keys as Object.keys here (own enumerable strings: the prototype is
      // Object.prototype or null), in the same order, without making an array.
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        if (FORBIDDEN_KEYS.has(key)) throw new PlatformError('INVALID_VALUE', `value holds the forbidden key "${key}"`);
        if (!checkShapeWithinDepth((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      throw new PlatformError('INVALID_VALUE', `value holds a ${typeof value}, which is not plain data`);
  }
}

function checkShape(value: unknown, depth: number, seen: Set<object>): void {
  if (depth > MAX_VALUE_DEPTH) throw new PlatformError('INVALID_VALUE', `value nests deeper than ${MAX_VALUE_DEPTH} levels`);
  // typeof's answers are fixed by the language: the default covers the rest, and no new one can come.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new PlatformError('INVALID_VALUE', `value holds a non-finite number (${value})`);
      return;
    case 'object': {
      if (value === null) return;
      if (seen.has(value)) throw new PlatformError('INVALID_VALUE', 'value holds a cycle');
      seen.add(value);
      if (Array.isArray(value)) {
        for (const item of value) checkShape(item, depth + 1, seen);
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          throw new PlatformError('INVALID_VALUE', 'value holds an object that is not a plain object');
        }
        for (const key of Object.keys(value)) {
          if (FORBIDDEN_KEYS.has(key)) throw new PlatformError('INVALID_VALUE', `value holds the forbidden key "${key}"`);
          checkShape((value as Record<string, unknown>)[key], depth + 1, seen);
        }
      }
      seen.delete(value);
      return;
    }
    default:
      throw new PlatformError('INVALID_VALUE', `value holds a ${typeof value}, which is not plain data`);
  }
}

/** UTF-8 byte length of a string, without allocating. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** A short, safe description of an unknown value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  return typeof value;
}

/** Deep copy of plain data (values are kept immutable on both sides). */
export function clonePlain<T extends PlainData | undefined>(value: T): T {
  // Primitives are immutable: only objects and arrays need a copy.
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/**
 * Reads `values[path[0]][path[1]]…`, own properties only; undefined when any
 * step is missing. Inside a list only an index segment (`'0'`, `'1'`, …) steps
 * in: `length` or a method name of arrays reads nothing.
 */
export function readPath(values: unknown, path: VccPath): unknown {
  let node: unknown = values;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node) ? (listIndexOf(segment) ?? node.length) >= node.length : !Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The list index a path segment names: a non-negative integer, or its canonical decimal string (`'0'`, `'12'`, never `'01'` or `'-1'`). */
export function listIndexOf(segment: string | number): number | undefined {
  if (typeof segment === 'number') return Number.isSafeInteger(segment) && segment >= 0 ? segment : undefined;
  return /^(0|[1-9][0-9]{0,8})$/.test(segment) ? Number(segment) : undefined;
}

/** Path equality. */
export function samePath(a: VccPath | null, b: VccPath | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  return a.every((segment, i) => segment === b[i]);
}

/** Deepest nesting of `{`/`[` accepted in JSON text from outside, before it is parsed. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text `text` nests `{`/`[` at most `maxDepth` levels deep.
 *
 * Why a scan of the text and not of the parsed value: `JSON.parse` itself
 * handles deep input, but everything after it that recurses (re-serializing,
 * structuredClone, checkShape, a merge) can overflow the stack on a value
 * thousands of levels deep, and a stack overflow in the wrong place is a
 * crashed process. One linear pass, no allocation, so it is cheap enough for
 * every HTTP body and socket frame. Brackets inside strings do not count; a
 * backslash inside a string skips the next character (so `\"` does not end the
 * string). Malformed text is not judged here: `JSON.parse` refuses it after.
 */
export function jsonDepthWithin(text: string, maxDepth: number): boolean {
  // Nesting deeper than maxDepth takes more than maxDepth characters.
  if (text.length <= maxDepth) return true;
  // Fast path, what nearly every frame takes: fewer opening brackets in all (strings included)
  // than the limit cannot nest past it. indexOf is native and vectorized: a 60 KB string
  // payload costs microseconds here, where a loop over every character costs a JSON.parse or more.
  let opens = 0;
  for (let at = text.indexOf('{'); at !== -1 && opens <= maxDepth; at = text.indexOf('{', at + 1)) opens++;
  for (let at = text.indexOf('['); at !== -1 && opens <= maxDepth; at = text.indexOf('[', at + 1)) opens++;
  if (opens <= maxDepth) return true;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 /* " */) {
      // Skip the string natively: to the next quote not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      // Unterminated: not JSON, and JSON.parse refuses it after.
      if (end === -1) return true;
      i = end;
    } else if (unit === 0x7b /* { */ || unit === 0x5b /* [ */) {
      if (++depth > maxDepth) return false;
    } else if (unit === 0x7d /* } */ || unit === 0x5d /* ] */) {
      depth--;
    }
  }
  return true;
}

/** Whether the character at `at` is escaped: preceded by an odd number of backslashes. */
function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c /* \ */; i--) backslashes++;
  return backslashes % 2 === 1;
}
