/**
 * Checks the `@@editor` list of a customization file: its scope
 * definitions, their fields and each field's type and options, reporting
 * every problem at its own path in one pass.
 */
import { parseFieldShape, parseVccType, type VccFieldDefinition, type VccScopeDefinition, type VccType } from '../protocol/customization.js';
import { isVccPath, MAX_PATH_SEGMENT_LENGTH, type PlainData } from '../protocol/data.js';
import { reasonOf, type Report } from './customization-problems.js';
import { pointerJoin } from './json-source.js';

/** The key of a customization file that holds VCC definitions instead of values. */
export const EDITOR_KEY = '@@editor';

/** What {@link checkEditor} found: the good definitions and the parsed type of each field. */
export interface CheckedEditor {
  readonly definitions: VccScopeDefinition[];
  /** The parsed type of every field (undefined when its definition has a problem), by scope. */
  readonly typed: { scope: string; path: string; fields: { key: string; type: VccType | undefined; typePath: string }[] }[];
}

/** Checks the `@@editor` value `raw`; `declareScope` claims each scope name for the file (false: refused). */
export function checkEditor(raw: PlainData | undefined, report: Report, declareScope: (scope: string, path: string) => boolean): CheckedEditor {
  const result: CheckedEditor = { definitions: [], typed: [] };
  if (raw === undefined) return result;
  const editorPath = pointerJoin('', EDITOR_KEY);
  if (!Array.isArray(raw)) {
    report(editorPath, `"${EDITOR_KEY}" must be an array of scope definitions { key, name, description, fields }`);
    return result;
  }
  const seenScopes = new Set<string>();
  raw.forEach((entry, index) => {
    const path = pointerJoin(editorPath, index);
    if (!isObject(entry)) {
      report(path, 'a scope definition must be an object { key, name, description, fields }');
      return;
    }
    const { key, name, description, fields } = entry;
    let ok = true;
    if (typeof key !== 'string') {
      report(pointerJoin(path, 'key'), 'key must be the scope name, a string');
      ok = false;
    } else if (seenScopes.has(key)) {
      report(pointerJoin(path, 'key'), `scope "${key}" is defined twice in "${EDITOR_KEY}"`);
      ok = false;
    } else if (!declareScope(key, pointerJoin(path, 'key'))) {
      ok = false;
    }
    for (const [label, value] of [
      ['name', name],
      ['description', description],
    ] as const) {
      if (value !== undefined && typeof value !== 'string') {
        report(pointerJoin(path, label), `${label} must be a string`);
        ok = false;
      }
    }
    if (!Array.isArray(fields)) {
      report(pointerJoin(path, 'fields'), 'fields must be an array of field definitions { key, name, description, type, typeOptions }');
      return;
    }
    // Fields are checked even when the scope itself is wrong: every problem is reported in one pass.
    const checked = checkFieldList(fields, pointerJoin(path, 'fields'), report);
    if (!ok || typeof key !== 'string') return;
    seenScopes.add(key);
    result.typed.push({
      scope: key,
      path,
      fields: checked.map((field) => ({ key: field.definition.key, type: field.type, typePath: field.typePath })),
    });
    result.definitions.push({
      key,
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof description === 'string' ? { description } : {}),
      fields: checked.map((field) => field.definition),
    });
  });
  return result;
}

interface CheckedField {
  readonly definition: VccFieldDefinition;
  /** Undefined when the type or its options have a problem (reported). */
  readonly type: VccType | undefined;
  /** Where the field's `type` is in its file. */
  readonly typePath: string;
}

/** Checks a list of field definitions, reporting each problem at its own path. */
function checkFieldList(fields: readonly PlainData[], listPath: string, report: Report): CheckedField[] {
  const checked: CheckedField[] = [];
  const seenKeys = new Set<string>();
  fields.forEach((raw, index) => {
    const path = pointerJoin(listPath, index);
    const definition = checkFieldShape(raw, path, report);
    if (!definition) return;
    if (seenKeys.has(definition.key)) {
      report(pointerJoin(path, 'key'), `field "${definition.key}" is defined twice`);
      return;
    }
    seenKeys.add(definition.key);
    const typePath = pointerJoin(path, 'type');
    const type = checkType(definition.type, definition.typeOptions, typePath, pointerJoin(path, 'typeOptions'), report);
    checked.push({ definition, type, typePath });
  });
  return checked;
}

function checkFieldShape(raw: PlainData, path: string, report: Report): VccFieldDefinition | undefined {
  if (!isObject(raw)) {
    report(path, 'a field definition must be an object { key, name, description, type, typeOptions }');
    return undefined;
  }
  const { key, name, description, type, typeOptions } = raw;
  let ok = true;
  const fail = (property: string, reason: string): void => {
    report(pointerJoin(path, property), reason);
    ok = false;
  };
  if (typeof key !== 'string' || key === '' || key.length > MAX_PATH_SEGMENT_LENGTH) {
    fail('key', `key must be a string of 1 to ${MAX_PATH_SEGMENT_LENGTH} characters`);
  } else if (!isVccPath([key])) {
    fail('key', 'key must not be __proto__, constructor or prototype');
  }
  if (typeof type !== 'string' || type.trim() === '') fail('type', 'type must be a VCC type name such as "text", "range" or "array<image>"');
  if (name !== undefined && typeof name !== 'string') fail('name', 'name must be a string');
  if (description !== undefined && typeof description !== 'string') fail('description', 'description must be a string');
  if (typeOptions !== undefined && !isObject(typeOptions)) fail('typeOptions', 'typeOptions must be an object');
  if (!ok) return undefined;
  try {
    // The shared check is the authority; the ones above only exist to point at the exact property.
    parseFieldShape(raw, 'field');
  } catch (error) {
    report(path, reasonOf(error));
    return undefined;
  }
  return {
    key: key as string,
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof description === 'string' ? { description } : {}),
    type: type as string,
    ...(isObject(typeOptions) ? { typeOptions } : {}),
  };
}

type TypeOptions = { readonly [option: string]: PlainData };

/**
 * Parses a type with the shared parser; on failure finds the most precise
 * path for the problem (the nested field or option at fault) and reports it.
 */
function checkType(type: string, options: TypeOptions | undefined, typePath: string, optionsPath: string, report: Report): VccType | undefined {
  try {
    return parseVccType(type, options);
  } catch (error) {
    if (!reportNested(type, options ?? {}, typePath, optionsPath, report)) {
      report(refinePath(reasonOf(error), typePath, optionsPath, options !== undefined), reasonOf(error));
    }
    return undefined;
  }
}

/** Reports problems of the item type or nested fields of a composite type; false when there are none to report. */
function reportNested(type: string, options: TypeOptions, typePath: string, optionsPath: string, report: Report): boolean {
  const arrayMatch = /^array<(.+)>$/.exec(type.trim());
  if (arrayMatch?.[1] !== undefined || type === 'array') {
    const of = options['of'];
    const inner = arrayMatch?.[1] ?? (typeof of === 'string' ? of : 'text');
    const item = options['item'];
    if (isObject(item)) return checkType(inner, item, typePath, pointerJoin(optionsPath, 'item'), report) === undefined;
    if (inner === 'object') return reportNestedFields(options['fields'], pointerJoin(optionsPath, 'fields'), report);
    try {
      parseVccType(inner, {});
      return false;
    } catch (error) {
      report(typePath, `item type "${inner}": ${reasonOf(error)}; give its options in typeOptions.item`);
      return true;
    }
  }
  if (type === 'object') return reportNestedFields(options['fields'], pointerJoin(optionsPath, 'fields'), report);
  return false;
}

function reportNestedFields(fields: PlainData | undefined, listPath: string, report: Report): boolean {
  if (!Array.isArray(fields)) return false;
  let reported = false;
  checkFieldList(fields, listPath, (path, reason) => {
    reported = true;
    report(path, reason);
  });
  return reported;
}

/** Points a type-option error at the option it names, when it names one. */
function refinePath(reason: string, typePath: string, optionsPath: string, hasOptions: boolean): string {
  const option = /typeOptions\.([A-Za-z0-9_$]+)/.exec(reason)?.[1];
  if (option !== undefined) return pointerJoin(optionsPath, option);
  const selectOption = /option (\d+)/.exec(reason)?.[1];
  if (selectOption !== undefined) return pointerJoin(pointerJoin(optionsPath, 'options'), selectOption);
  return hasOptions ? optionsPath : typePath;
}

/** True for a JSON object (not null, not a list). */
export function isObject(value: PlainData | undefined): value is { [key: string]: PlainData } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
