/** What a guest's describe() returned, checked before the host trusts it; apart from RemixSession because it judges the guest's answer, not a remix's values. */
import { customizationSizeProblem, type BuiltCustomization } from '../protocol/customization.js';
import { assertPlainData, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';

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
