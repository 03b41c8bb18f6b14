/**
 * Builds a template's customization from `.platform/customization/*.json`
 * and writes the generated module and its types.
 *
 * Every file holds scopes of values and, under `@@editor`, the VCC
 * definitions of those scopes:
 *
 * ```json
 * { "card": { "title": "Hello" },
 *   "@@editor": [{ "key": "card", "fields": [{ "key": "title", "type": "text" }] }] }
 * ```
 *
 * Files are checked one by one (JSON syntax, shapes, types, values against
 * their definitions), then merged; a scope lives in exactly one file. A file
 * with any problem is not dropped from the build: the builder keeps the last
 * good version of every file and builds with that, because a template author
 * saving a half-typed file must not see the running template lose its values.
 */
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  assertValueFitsType,
  defaultValueOf,
  parseFieldShape,
  parseVccType,
  PREDEFINED_SCOPES,
  VCC_TYPES,
  type BuiltCustomization,
  type VccFieldDefinition,
  type VccScopeDefinition,
  type VccType,
} from '../protocol/customization.js';
import { isVccPath, MAX_PATH_SEGMENT_LENGTH, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { renderCustomizationModule, renderCustomizationTypes } from './generate.js';
import { parseJsonSource, pointerJoin } from './json-source.js';

/** Where a template keeps its customization files, relative to its root. */
export const CUSTOMIZATION_DIR = '.platform/customization';
/** Where the generated files go by default, relative to the template root. */
export const DEFAULT_OUT_DIR = '.platform/generated';
/** File name of the generated module. */
export const MODULE_FILE_NAME = 'customization.js';
/** File name of the generated type declarations. */
export const TYPES_FILE_NAME = 'customization.d.ts';
/** The key of a customization file that holds VCC definitions instead of values. */
export const EDITOR_KEY = '@@editor';
/** Environment variable that gives `metadata.projectId`. */
export const PROJECT_ID_ENV = 'PLATFORM_PROJECT_ID';
/** Prefix of the environment variables that fill `serviceMap` (`PLATFORM_SERVICE_URL_BACKEND` → `backend`). */
export const SERVICE_URL_ENV_PREFIX = 'PLATFORM_SERVICE_URL_';

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One thing wrong in a customization file. */
export interface CustomizationProblem {
  /** The file, relative to the template root, with `/` separators (e.g. `.platform/customization/card.json`). */
  readonly file: string;
  /**
   * JSON-pointer-like path inside the file, e.g. `/@@editor/0/fields/2/typeOptions/min`;
   * empty when the problem is the whole file (a syntax error, an unreadable file).
   */
  readonly path: string;
  /** What is wrong, in words. */
  readonly reason: string;
  /** 1-based line, for syntax errors. */
  readonly line?: number;
  /** 1-based column, for syntax errors. */
  readonly column?: number;
}

/** Options of {@link createCustomizationBuilder}. */
export interface CustomizationBuilderOptions {
  /** The template root: the directory that holds `.platform/`. */
  readonly root: string;
  /** Where to write the generated files; relative paths are resolved against `root`. Default `.platform/generated`. */
  readonly outDir?: string;
  /** Environment the predefined values are read from. Default `process.env`. */
  readonly env?: Env;
}

/** What one {@link CustomizationBuilder.build} produced. */
export interface CustomizationBuildResult {
  /** The merged customization, built from the good files and the last good version of the others. */
  readonly customization: BuiltCustomization;
  /** Everything wrong in the files as they are now; empty when all are good. */
  readonly problems: readonly CustomizationProblem[];
  /**
   * What builds but is likely a mistake, e.g. a type name no control knows
   * (`colour`): the file is used, and its field gets a raw JSON box in the editor.
   */
  readonly warnings: readonly CustomizationProblem[];
  /** True when this build wrote a generated file (false when their content was already current). */
  readonly wrote: boolean;
  /** The text of the generated `customization.js`. */
  readonly moduleSource: string;
  /** The text of the generated `customization.d.ts`. */
  readonly typesSource: string;
  /** Absolute paths of the customization files that were read. */
  readonly sourceFiles: readonly string[];
  /**
   * A fingerprint (inode, size, modification time) of every file read, taken
   * before it was read. {@link fingerprintCustomizationFiles} gives the same
   * for the files as they are now: a difference means a write this build did
   * not see.
   */
  readonly fingerprints: ReadonlyMap<string, string>;
}

/** Builds a template's customization, remembering the last good version of every file between builds. */
export interface CustomizationBuilder {
  /** Absolute template root. */
  readonly root: string;
  /** Absolute path of `.platform/customization`. */
  readonly customizationDir: string;
  /** Absolute directory the generated files are written to. */
  readonly outDir: string;
  /** Absolute path of the generated module. */
  readonly modulePath: string;
  /** Absolute path of the generated type declarations. */
  readonly typesPath: string;
  /**
   * Reads every customization file, builds, and writes the generated files
   * when their content changed. Builds never overlap: a call made while one
   * runs starts after it. Rejects only when the output cannot be written.
   */
  build(): Promise<CustomizationBuildResult>;
}

/** Creates a builder for the template at `options.root`. */
export function createCustomizationBuilder(options: CustomizationBuilderOptions): CustomizationBuilder {
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? DEFAULT_OUT_DIR);
  if (outDir.split(sep).includes('node_modules')) {
    // Generated files belong to the template: a node_modules copy is shared, overwritten by installs and invisible to git.
    throw new PlatformError('INVALID_ARGUMENT', `the output directory must be inside the template, not in node_modules (got ${outDir})`);
  }
  const env = options.env ?? process.env;
  const customizationDir = join(root, CUSTOMIZATION_DIR);
  const modulePath = join(outDir, MODULE_FILE_NAME);
  const typesPath = join(outDir, TYPES_FILE_NAME);
  const lastGood = new Map<string, FileContribution>();
  let owners = new Map<string, string>();
  let queue: Promise<unknown> = Promise.resolve();

  async function buildOnce(): Promise<CustomizationBuildResult> {
    const problems = new ProblemList();
    const warnings = new ProblemList();
    const names = await listCustomizationFiles(customizationDir);
    const files = names.map((name) => ({ name, file: toPosix(relative(root, join(customizationDir, name))) }));
    const candidates = new Map<string, Candidate>();
    const fingerprints = new Map<string, string>();

    for (const { name, file } of files) {
      const text = await readCustomizationFile(join(customizationDir, name), file, problems, fingerprints);
      if (text === undefined) continue; // gone between readdir and read: treated as deleted
      const checked = text === null ? null : checkFile(text, file, problems, warnings);
      if (checked) {
        candidates.set(file, { contribution: checked, fresh: true });
      } else {
        const previous = lastGood.get(file);
        if (previous) candidates.set(file, { contribution: previous, fresh: false });
      }
    }
    for (const file of lastGood.keys()) if (!files.some((entry) => entry.file === file)) lastGood.delete(file);

    resolveDuplicateScopes(files.map((entry) => entry.file), candidates, owners, lastGood, problems);

    const nextOwners = new Map<string, string>();
    const values: Record<string, Record<string, PlainData>> = {
      metadata: { projectId: env[PROJECT_ID_ENV] ?? '' },
      serviceMap: serviceMapFrom(env),
    };
    const editor: VccScopeDefinition[] = [];
    for (const { file } of files) {
      const candidate = candidates.get(file);
      if (!candidate) continue;
      if (candidate.fresh) lastGood.set(file, candidate.contribution);
      for (const scope of candidate.contribution.scopes.keys()) nextOwners.set(scope, file);
      for (const [scope, scopeValues] of candidate.contribution.values) values[scope] = structuredClone(scopeValues);
      editor.push(...candidate.contribution.editor);
    }
    owners = nextOwners;

    const customization: BuiltCustomization = { version: 1, values, editor };
    const moduleSource = renderCustomizationModule(customization);
    const typesSource = renderCustomizationTypes(customization);
    const wroteModule = await writeIfChanged(modulePath, moduleSource);
    const wroteTypes = await writeIfChanged(typesPath, typesSource);
    return {
      customization,
      problems: problems.list,
      warnings: warnings.list,
      wrote: wroteModule || wroteTypes,
      moduleSource,
      typesSource,
      sourceFiles: names.map((name) => join(customizationDir, name)),
      fingerprints,
    };
  }

  return {
    root,
    customizationDir,
    outDir,
    modulePath,
    typesPath,
    build() {
      const run = queue.then(buildOnce);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** Formats a problem the way compilers do, `file:path: reason`, for a terminal or a log. */
export function formatProblem(problem: CustomizationProblem): string {
  return problem.path === '' ? `${problem.file}: ${problem.reason}` : `${problem.file}:${problem.path}: ${problem.reason}`;
}

/** What one good version of a file adds to the build. */
interface FileContribution {
  /** Values by scope, with defaults filled in for defined keys that have none. */
  readonly values: ReadonlyMap<string, Record<string, PlainData>>;
  readonly editor: readonly VccScopeDefinition[];
  /** Every scope the file declares (values or `@@editor`), with the path where it first appears. */
  readonly scopes: ReadonlyMap<string, string>;
}

interface Candidate {
  readonly contribution: FileContribution;
  /** True for the file as it is now; false for its last good version. */
  readonly fresh: boolean;
}

class ProblemList {
  readonly list: CustomizationProblem[] = [];
  private readonly seen = new Set<string>();

  add(problem: CustomizationProblem): void {
    const id = `${problem.file}\0${problem.path}\0${problem.reason}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.list.push(problem);
  }
}

async function listCustomizationFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.name.endsWith('.json') && (entry.isFile() || entry.isSymbolicLink()))
      .map((entry) => entry.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * Fingerprints of the customization files in `dir` as they are now, by
 * absolute path. Compared with {@link CustomizationBuildResult.fingerprints}
 * by watchers, because a file event can be lost: chokidar drops events that
 * come within a few milliseconds of another for the same file, and the
 * build's own read of a file (its access time) is such an event.
 */
export async function fingerprintCustomizationFiles(dir: string): Promise<Map<string, string>> {
  const fingerprints = new Map<string, string>();
  for (const name of await listCustomizationFiles(dir)) {
    const path = join(dir, name);
    try {
      fingerprints.set(path, fingerprintOf(await stat(path)));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
  return fingerprints;
}

/** True when two sets of fingerprints differ (a file added, deleted or written). */
export function fingerprintsDiffer(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return true;
  for (const [path, fingerprint] of a) if (b.get(path) !== fingerprint) return true;
  return false;
}

function fingerprintOf(stats: { ino: number; size: number; mtimeMs: number }): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** The file's text; undefined when it vanished; null (after reporting) when it cannot be read. */
async function readCustomizationFile(
  path: string,
  file: string,
  problems: ProblemList,
  fingerprints: Map<string, string>,
): Promise<string | null | undefined> {
  try {
    // Stamped before reading: a write during the read then shows up as a changed fingerprint.
    // Also stamped when the read fails, so that a watcher does not retry an unreadable file forever.
    fingerprints.set(path, fingerprintOf(await stat(path)));
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    problems.add({ file, path: '', reason: `cannot read the file (${code ?? String(error)})` });
    return null;
  }
}

/** Parses and checks one file; returns its contribution, or null when it has any problem (all reported). */
function checkFile(text: string, file: string, problems: ProblemList, warnings: ProblemList): FileContribution | null {
  const warn = (path: string, reason: string): void => warnings.add({ file, path, reason });
  const parsed = parseJsonSource(text);
  if (!parsed.ok) {
    problems.add({
      file,
      path: '',
      reason: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
      line: parsed.line,
      column: parsed.column,
    });
    return null;
  }
  let ok = true;
  const report = (path: string, reason: string): void => {
    ok = false;
    problems.add({ file, path, reason });
  };
  for (const issue of parsed.issues) report(issue.path, issue.reason);

  const root = parsed.value;
  if (!isObject(root)) {
    report('', 'a customization file must hold a JSON object of scopes, and optionally "@@editor"');
    return null;
  }

  const values = new Map<string, Record<string, PlainData>>();
  const scopes = new Map<string, string>();
  const declareScope = (scope: string, path: string): boolean => {
    if (scope === '' || scope.length > MAX_PATH_SEGMENT_LENGTH) {
      report(path, `a scope name must be 1 to ${MAX_PATH_SEGMENT_LENGTH} characters`);
      return false;
    }
    if (scope.startsWith('@@')) {
      report(path, `unknown key "${scope}": the only "@@" key is "${EDITOR_KEY}"`);
      return false;
    }
    if (PREDEFINED_SCOPES.has(scope)) {
      report(path, `"${scope}" is a predefined scope filled in by the platform; a customization file cannot declare it`);
      return false;
    }
    if (!scopes.has(scope)) scopes.set(scope, path);
    return true;
  };

  for (const scope of Object.keys(root)) {
    const scopePath = pointerJoin('', scope);
    const scopeValues = root[scope] as PlainData;
    if (scope === EDITOR_KEY) continue;
    if (!declareScope(scope, scopePath)) continue;
    if (!isObject(scopeValues)) {
      report(scopePath, 'a scope must be an object of { "key": value }');
      continue;
    }
    for (const key of Object.keys(scopeValues)) {
      if (!isVccPath([scope, key])) report(pointerJoin(scopePath, key), `a key must be 1 to ${MAX_PATH_SEGMENT_LENGTH} characters`);
    }
    values.set(scope, { ...scopeValues });
  }

  const editor = checkEditor(root[EDITOR_KEY], report, declareScope);

  // Values against their definitions; defined keys without a value get the type's default.
  for (const { scope, path, fields } of editor.typed) {
    const scopeValues = values.get(scope) ?? {};
    values.set(scope, scopeValues);
    for (const { key, type, typePath } of fields) {
      if (type === undefined) continue;
      warnUnknownTypes(type, typePath, warn);
      const value = Object.prototype.hasOwnProperty.call(scopeValues, key) ? scopeValues[key] : undefined;
      if (value === undefined) {
        scopeValues[key] = defaultValueOf(type);
        continue;
      }
      const valuePath = pointerJoin(pointerJoin('', scope), key);
      try {
        assertValueFitsType(value, type, 'value');
        scopeValues[key] = withDefaults(value, type);
      } catch (error) {
        const { suffix, reason } = valueProblem(error);
        report(valuePath + suffix, `${reason} (defined at ${path})`);
      }
    }
  }

  return ok ? { values, editor: editor.definitions, scopes } : null;
}

interface CheckedEditor {
  readonly definitions: VccScopeDefinition[];
  /** The parsed type of every field (undefined when its definition has a problem), by scope. */
  readonly typed: { scope: string; path: string; fields: { key: string; type: VccType | undefined; typePath: string }[] }[];
}

type Report = (path: string, reason: string) => void;

/** Warns of every type name no control knows in `type` (nested array items and object fields included). */
function warnUnknownTypes(type: VccType, typePath: string, warn: Report): void {
  switch (type.kind) {
    case 'unknown': {
      const near = nearestTypeName(type.name);
      warn(typePath, `unknown type "${type.name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}: the editor shows a raw JSON box for it; known types: ${VCC_TYPES.join(', ')}`);
      return;
    }
    case 'array':
      return warnUnknownTypes(type.of, typePath, warn);
    case 'object':
      for (const field of type.fields) warnUnknownTypes(field.type, `${typePath} (field "${field.key}")`, warn);
      return;
    default:
      return;
  }
}

/** The known type name within two edits of `name`, if any: the likely typo. */
function nearestTypeName(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of VCC_TYPES) {
    const distance = editDistance(name.toLowerCase(), known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function checkEditor(raw: PlainData | undefined, report: Report, declareScope: (scope: string, path: string) => boolean): CheckedEditor {
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
    for (const [label, value] of [['name', name], ['description', description]] as const) {
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

/** Splits an `assertValueFitsType` message (`value[2].title must …`) into a path suffix and a reason. */
function valueProblem(error: unknown): { suffix: string; reason: string } {
  const message = reasonOf(error);
  const match = /^value((?:\[\d+\]|\.[^\s.[\]]+)*) (.*)$/s.exec(message);
  if (!match) return { suffix: '', reason: message };
  let suffix = '';
  for (const step of (match[1] ?? '').matchAll(/\[(\d+)\]|\.([^\s.[\]]+)/g)) suffix = pointerJoin(suffix, step[1] ?? step[2] ?? '');
  return { suffix, reason: `value ${match[2] ?? ''}` };
}

/** Fills in fields an object value leaves out, so that the value has the shape its generated type promises. */
function withDefaults(value: PlainData, type: VccType): PlainData {
  if (type.kind === 'array' && Array.isArray(value)) return value.map((item) => withDefaults(item, type.of));
  if (type.kind === 'object' && isObject(value)) {
    const filled: { [key: string]: PlainData } = { ...value };
    for (const field of type.fields) {
      const current = Object.prototype.hasOwnProperty.call(value, field.key) ? value[field.key] : undefined;
      filled[field.key] = current === undefined ? defaultValueOf(field.type) : withDefaults(current, field.type);
    }
    return filled;
  }
  return value;
}

/**
 * Keeps every scope in one file. When two files declare a scope, the file
 * that held it in the previous build keeps it (so an edit elsewhere cannot
 * steal it), else the first file by name; the other falls back to its last
 * good version, or out of the build, until the conflict is fixed.
 */
function resolveDuplicateScopes(
  files: readonly string[],
  candidates: Map<string, Candidate>,
  previousOwners: ReadonlyMap<string, string>,
  lastGood: ReadonlyMap<string, FileContribution>,
  problems: ProblemList,
): void {
  // Each pass demotes at least one file (fresh → last good → out), so this ends.
  for (;;) {
    const claims = new Map<string, string[]>();
    for (const file of files) {
      const candidate = candidates.get(file);
      if (!candidate) continue;
      for (const scope of candidate.contribution.scopes.keys()) {
        const claimants = claims.get(scope) ?? [];
        claimants.push(file);
        claims.set(scope, claimants);
      }
    }
    let demoted = false;
    for (const [scope, claimants] of claims) {
      if (claimants.length < 2) continue;
      const previous = previousOwners.get(scope);
      const winner = previous !== undefined && claimants.includes(previous) ? previous : (claimants[0] as string);
      for (const loser of claimants) {
        const candidate = candidates.get(loser);
        if (loser === winner || !candidate) continue;
        problems.add({
          file: loser,
          path: candidate.contribution.scopes.get(scope) ?? '',
          reason: `scope "${scope}" is already declared in ${winner}; a scope's values and definitions live in one file`,
        });
        const fallback = lastGood.get(loser);
        if (candidate.fresh && fallback) candidates.set(loser, { contribution: fallback, fresh: false });
        else candidates.delete(loser);
        demoted = true;
      }
    }
    if (!demoted) return;
  }
}

function serviceMapFrom(env: Env): Record<string, PlainData> {
  const serviceMap: Record<string, PlainData> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (!name.startsWith(SERVICE_URL_ENV_PREFIX) || value === undefined) continue;
    const service = name.slice(SERVICE_URL_ENV_PREFIX.length).toLowerCase();
    if (isVccPath(['serviceMap', service])) serviceMap[service] = value;
  }
  return serviceMap;
}

/** Writes `content` unless the file already holds exactly that; true when it wrote. */
async function writeIfChanged(path: string, content: string): Promise<boolean> {
  try {
    if ((await readFile(path, 'utf8')) === content) return false;
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  // Write then rename, so a dev server that reads on the change event never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, 'utf8');
  await rename(temporary, path);
  return true;
}

function isObject(value: PlainData | undefined): value is { [key: string]: PlainData } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^platform-kit: /, '');
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
