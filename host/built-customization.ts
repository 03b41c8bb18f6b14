/** What a guest's describe() returned, checked before the host trusts it (its shape and size, then its defaults against their types); apart from RemixSession because it judges the guest's answer, not a remix's values. */
import { customizationSizeProblem, parseVccType, type BuiltCustomization, type VccType } from '../protocol/customization.js';
import { assertPlainData, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { fitDefault, misfitError } from '../protocol/value-fit.js';

/** Checks what a guest's describe() returned before the editor trusts it. */
export function parseBuiltCustomization(value: unknown): BuiltCustomization {
  const fail = (reason: string): never => {
    throw new PlatformError('INVALID_MESSAGE', `the template described an invalid customization: ${reason}`);
  };
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const { version, values, editor } = value as Record<string, unknown>;
  if (version !== 1) fail('unknown version');
  const checkedValues = assertPlainData(values ?? {}, 4 * 1024 * 1024);
  if (typeof checkedValues !== 'object' || checkedValues === null || Array.isArray(checkedValues)) return fail('values must be an object');
  for (const scope of Object.values(checkedValues)) {
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) fail('each scope of values must be an object');
  }
  const checkedEditor = assertPlainData(editor ?? [], 1024 * 1024);
  if (!Array.isArray(checkedEditor)) return fail('editor must be a list');
  for (const scope of checkedEditor) {
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope) || typeof scope['key'] !== 'string' || !Array.isArray(scope['fields'])) {
      fail('each editor entry needs a key and a fields list');
    }
  }
  // Counted before any field is checked: each is a control the editor draws, and a customization
  // under the byte limit still held 18,000 of them (seconds of frozen page). VALUE_TOO_LARGE, as
  // the byte limits answer: it is well formed, only too big to edit (INVALID_VALUE would say a
  // value does not fit its type).
  const tooLarge = customizationSizeProblem(checkedEditor as unknown as readonly { key: string; fields: readonly PlainData[] }[]);
  if (tooLarge !== null) throw new PlatformError('VALUE_TOO_LARGE', `the template's customization ${tooLarge}`);
  for (const scope of checkedEditor) {
    for (const field of (scope as { fields: PlainData[] }).fields) {
      if (typeof field !== 'object' || field === null || Array.isArray(field) || typeof field['key'] !== 'string' || typeof field['type'] !== 'string') {
        fail('each field needs a key and a type');
      }
    }
  }
  return { version: 1, values: checkedValues as BuiltCustomization['values'], editor: checkedEditor as unknown as BuiltCustomization['editor'] };
}

/** A template's default that does not fit its VCC type, as the host found it. */
export interface DefaultMisfit {
  /** Where: `[scope, key, …]` down to the misfit (list indexes as numbers). */
  readonly path: readonly (string | number)[];
  /** The value found there (before it was replaced, for an unsafe URL). */
  readonly value: unknown;
  /** The type it should have had, as the template wrote it. */
  readonly type: string;
  /** True when the value was an unsafe URL and the host uses `''` instead. */
  readonly replaced: boolean;
  /** `INVALID_VALUE`, with a one-line message naming path, value and type. */
  readonly error: PlatformError;
}

/**
 * Checks a template's built values against their VCC types once its
 * customization is known (issue 23: they were only checked on setValue).
 * A value that does not fit is kept, as the build keeps it (issue 24); an
 * unsafe media URL (`javascript:`, `data:`) is replaced by `''` in what the
 * host uses, so no control renders it as a link or loads it.
 */
export function checkBuiltDefaults(customization: BuiltCustomization): { customization: BuiltCustomization; misfits: DefaultMisfit[] } {
  const misfits: DefaultMisfit[] = [];
  let values: { [scope: string]: { [key: string]: PlainData } } | null = null;
  for (const definition of customization.editor) {
    const scopeValues = Object.prototype.hasOwnProperty.call(customization.values, definition.key) ? customization.values[definition.key] : undefined;
    if (!scopeValues) continue;
    for (const field of definition.fields) {
      const value = Object.prototype.hasOwnProperty.call(scopeValues, field.key) ? scopeValues[field.key] : undefined;
      if (value === undefined) continue;
      let type: VccType;
      try {
        type = parseVccType(field.type, field.typeOptions);
      } catch {
        continue; // a definition the editor cannot parse gets a raw JSON box: nothing to check against
      }
      const fitted = fitDefault(value, type);
      if (fitted.misfits.length === 0) continue;
      for (const misfit of fitted.misfits) {
        const path = [definition.key, field.key, ...misfit.path];
        misfits.push({ path, value: misfit.value, type: misfit.type, replaced: misfit.unsafe, error: misfitError(misfit, `the template's default at ${path.join('.')}`) });
      }
      if (!fitted.misfits.some((misfit) => misfit.unsafe)) continue;
      // Copies only where something was replaced: the rest stays the guest's described object.
      values ??= { ...customization.values };
      values[definition.key] = { ...values[definition.key], [field.key]: fitted.value };
    }
  }
  return { customization: values ? { ...customization, values } : customization, misfits };
}
