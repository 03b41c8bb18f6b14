/**
 * Paths inside a VCC: which deep paths a template's customization declares.
 * `['general', 'reveal', 'image']` is declared when `general.reveal` is an
 * object VCC with an `image` field; in a list field a segment is an item's
 * index (a non-negative integer, or its decimal string while paths hold only
 * strings). Used by the host to accept or refuse setValue and
 * onPresentControl on deep paths, and by the editor to open a nested field's
 * control.
 */
import { findVccField, kindSpecOf, parseVccType, type BuiltCustomization, type VccFieldDefinition, type VccType } from './customization.js';
import { listIndexOf, type PlainData } from './data.js';
import { PlatformError } from './errors.js';

/** One segment of a path that may point into a list. */
export type PathSegment = string | number;

/** What a declared path points at. */
export interface ResolvedVccPath {
  /** The definition of the top-level VCC, `[scope, key]`. */
  readonly field: VccFieldDefinition;
  /** The type at the end of the path. */
  readonly type: VccType;
  /** Label of what the path points at: the nested field's name, `Name 2` for a list item, else the VCC's. */
  readonly label: string;
  readonly description?: string;
  /**
   * How many segments of the path `type` is the type of: the path's length,
   * or less when the path goes inside a value that is edited whole (a
   * coordinate's `x`, anything inside a raw JSON value).
   */
  readonly depth: number;
}

/**
 * Resolves `path` against the customization's definitions; undefined when
 * the template declares nothing there (no such scope, key or nested field,
 * an index where no list is, or a segment below a value with no parts). A
 * path into a VCC of unknown type (a raw JSON box) resolves to that VCC's
 * type: its inside has no declared shape to check.
 */
export function resolveVccPath(customization: BuiltCustomization, path: readonly PathSegment[]): ResolvedVccPath | undefined {
  const [scope, key, ...rest] = path;
  if (typeof scope !== 'string' || typeof key !== 'string') return undefined;
  const field = findVccField(customization, scope, key);
  if (!field) return undefined;
  let type: VccType;
  try {
    type = parseVccType(field.type, field.typeOptions);
  } catch {
    type = { kind: 'unknown', name: field.type };
  }
  let label = field.name ?? key;
  let description = field.description;
  let depth = 2;
  const result = (): ResolvedVccPath => ({ field, type, label, depth, ...(description !== undefined ? { description } : {}) });
  for (const segment of rest) {
    // The containers are walked into; any other kind may name only its own members (a coordinate's `x`).
    if (type.kind === 'unknown') return result();
    if (type.kind === 'object') {
      const nested = typeof segment === 'string' ? type.fields.find((entry) => entry.key === segment) : undefined;
      if (!nested) return undefined;
      type = nested.type;
      label = nested.name;
      description = nested.description;
      depth++;
    } else if (type.kind === 'array') {
      const index = listIndexOf(segment);
      if (index === undefined || index >= type.max) return undefined;
      label = `${label} ${index + 1}`;
      description = undefined;
      type = type.of;
      depth++;
    } else {
      // A number inside the pair: the pair's control edits it.
      return typeof segment === 'string' && kindSpecOf(type).members.includes(segment) ? result() : undefined;
    }
  }
  return result();
}

/**
 * A copy of `base` with the value at `path` (below it) replaced by `value`;
 * only the objects and lists along the path are copied. An object missing on
 * the way is created; in a list a segment must be the index of an item that
 * exists (`INVALID_PATH` otherwise: a list never gets holes).
 */
export function writeInside(base: unknown, path: readonly PathSegment[], value: PlainData): PlainData {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(base)) {
    const index = listIndexOf(head);
    if (index === undefined || index >= base.length) throw new PlatformError('INVALID_PATH', `the list has no item ${JSON.stringify(head)} (it has ${base.length})`);
    const copy: PlainData[] = [...(base as PlainData[])];
    copy[index] = writeInside(base[index], rest, value);
    return copy;
  }
  const container: { [key: string]: PlainData } = typeof base === 'object' && base !== null ? (base as { [key: string]: PlainData }) : {};
  const name = String(head);
  const current = Object.prototype.hasOwnProperty.call(container, name) ? container[name] : undefined;
  return { ...container, [name]: writeInside(current, rest, value) };
}
