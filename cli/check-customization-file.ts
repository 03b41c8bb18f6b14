/**
 * Checks one customization file: JSON syntax, its scopes of values, its
 * `@@editor` definitions (check-definitions.ts), and every value against
 * its definition. A file whose JSON or definitions have a problem
 * contributes nothing new; a value that does not fit its type never drops
 * the file: it is kept with a warning (protocol/value-fit.ts says why), and
 * only an unsafe media URL is replaced by `''`.
 */
import { defaultValueOf, PREDEFINED_SCOPES, type VccScopeDefinition } from '../protocol/customization.js';
import { isVccPath, MAX_PATH_SEGMENT_LENGTH, type PlainData } from '../protocol/data.js';
import { describeMisfit, fitDefault } from '../protocol/value-fit.js';
import { checkEditor, EDITOR_KEY, isObject } from './check-definitions.js';
import type { ProblemList } from './customization-problems.js';
import { parseJsonSource, pointerJoin } from './json-source.js';
import { warnUnknownTypes } from './type-warnings.js';

/** What one good version of a file adds to the build. */
export interface FileContribution {
  /** Values by scope, with defaults filled in for defined keys that have none. */
  readonly values: ReadonlyMap<string, Record<string, PlainData>>;
  readonly editor: readonly VccScopeDefinition[];
  /** Every scope the file declares (values or `@@editor`), with the path where it first appears. */
  readonly scopes: ReadonlyMap<string, string>;
}

/** Parses and checks one file; returns its contribution, or null when it has any problem (all reported). */
export function checkFile(text: string, file: string, problems: ProblemList, warnings: ProblemList): FileContribution | null {
  const warn = (path: string, reason: string, code?: 'INVALID_VALUE'): void => warnings.add({ file, path, reason, ...(code ? { code } : {}) });
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
      const fitted = fitDefault(value, type);
      scopeValues[key] = fitted.value;
      for (const misfit of fitted.misfits) {
        const at = misfit.path.reduce<string>((pointer, step) => pointerJoin(pointer, String(step)), valuePath);
        warn(at, `${describeMisfit(misfit)} (defined at ${path})`, 'INVALID_VALUE');
      }
    }
  }

  return ok ? { values, editor: editor.definitions, scopes } : null;
}
