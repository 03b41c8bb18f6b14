/** What a guest's describe() returned, checked before the host trusts it; apart from RemixSession because it judges the guest's answer, not a remix's values. */
import { MAX_CUSTOMIZATION_FIELDS, MAX_CUSTOMIZATION_SCOPES, MAX_SCOPE_FIELDS, type BuiltCustomization } from '../protocol/customization.js';
import { assertPlainData, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';

/** Checks what a guest's describe() returned before the editor trusts it. */
export function parseBuiltCustomization(value: unknown): BuiltCustomization {
  const fail = (reason: string): never => {
    throw new PlatformError('INVALID_MESSAGE', `the template described an invalid customization: ${reason}`);
  };
  // VALUE_TOO_LARGE, as the byte limits above answer: the customization is well formed, only
  // too big to edit (INVALID_VALUE would say a value does not fit its type).
  const tooMany = (what: string, limit: number): never => {
    throw new PlatformError(
      'VALUE_TOO_LARGE',
      `the template's customization declares ${what}, over the limit of ${limit} (at most ${MAX_CUSTOMIZATION_SCOPES} scopes, ${MAX_SCOPE_FIELDS} fields a scope, ${MAX_CUSTOMIZATION_FIELDS} fields in all): many alike items belong in one list (array) field`,
    );
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
  // Counted before anything walks the fields: each is a control the editor draws, and a
  // customization under the byte limit still held 18,000 of them (seconds of frozen page).
  if (checkedEditor.length > MAX_CUSTOMIZATION_SCOPES) tooMany(`${checkedEditor.length} scopes`, MAX_CUSTOMIZATION_SCOPES);
  let fieldCount = 0;
  for (const scope of checkedEditor) {
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope) || typeof scope['key'] !== 'string' || !Array.isArray(scope['fields'])) {
      return fail('each editor entry needs a key and a fields list');
    }
    const { key, fields } = scope as { key: string; fields: PlainData[] };
    if (fields.length > MAX_SCOPE_FIELDS) tooMany(`${fields.length} fields in its scope '${key.slice(0, 64)}'`, MAX_SCOPE_FIELDS);
    fieldCount += fields.length;
  }
  if (fieldCount > MAX_CUSTOMIZATION_FIELDS) tooMany(`${fieldCount} fields`, MAX_CUSTOMIZATION_FIELDS);
  for (const scope of checkedEditor) {
    for (const field of (scope as { fields: PlainData[] }).fields) {
      if (typeof field !== 'object' || field === null || Array.isArray(field) || typeof field['key'] !== 'string' || typeof field['type'] !== 'string') {
        fail('each field needs a key and a type');
      }
    }
  }
  return { version: 1, values: checkedValues as BuiltCustomization['values'], editor: checkedEditor as unknown as BuiltCustomization['editor'] };
}
