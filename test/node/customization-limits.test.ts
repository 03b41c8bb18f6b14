import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBuiltCustomization } from '../../host/built-customization.js';
import { MAX_CUSTOMIZATION_FIELDS, MAX_CUSTOMIZATION_SCOPES, MAX_SCOPE_FIELDS } from '../../protocol/customization.js';
import { PlatformError } from '../../protocol/errors.js';
import { bigCustomization } from '../fixtures/editor/big-customization.js';

/** The code and message parseBuiltCustomization refused `value` with. */
function refusal(value: unknown): { code: string; message: string } {
  try {
    parseBuiltCustomization(value);
  } catch (error) {
    assert.ok(error instanceof PlatformError, `a PlatformError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }
  assert.fail('the customization was accepted');
}

describe('the limits of a customization entering the host (parseBuiltCustomization)', () => {
  it('are 100 scopes, 100 fields a scope and 500 fields in all', () => {
    assert.equal(MAX_CUSTOMIZATION_SCOPES, 100);
    assert.equal(MAX_SCOPE_FIELDS, 100);
    assert.equal(MAX_CUSTOMIZATION_FIELDS, 500);
  });

  it('accepts a customization at every limit: 100 scopes of 5 fields, 5 scopes of 100', () => {
    assert.equal(parseBuiltCustomization(bigCustomization(100, 5)).editor.length, 100);
    const wide = parseBuiltCustomization(bigCustomization(5, 100));
    assert.equal(
      wide.editor.reduce((sum, scope) => sum + scope.fields.length, 0),
      500,
    );
  });

  it('refuses one field past 500 in all with VALUE_TOO_LARGE, naming the count and the limit', () => {
    const { code, message } = refusal(bigCustomization(100, 5, 1));
    assert.equal(code, 'VALUE_TOO_LARGE');
    assert.match(message, /^platform-kit: the template's customization declares 501 fields, over the limit of 500/);
    assert.match(message, /array/, 'it says what to do instead');
  });

  it('refuses a 101st scope and a 101st field in one scope with VALUE_TOO_LARGE', () => {
    assert.deepEqual(refusal(bigCustomization(101, 1)).code, 'VALUE_TOO_LARGE');
    assert.match(refusal(bigCustomization(101, 1)).message, /declares 101 scopes, over the limit of 100/);
    const oneScope = refusal(bigCustomization(1, 100, 1));
    assert.equal(oneScope.code, 'VALUE_TOO_LARGE');
    assert.match(oneScope.message, /declares 101 fields in its scope 's0', over the limit of 100/);
  });

  it("refuses the probe's 6,000 scopes × 3 fields (638 KB, under the byte limit) by count", () => {
    const editor = Array.from({ length: 6_000 }, (_, i) => ({
      key: `scope${i}`,
      fields: ['a', 'b', 'c'].map((key) => ({ key, name: key.toUpperCase(), type: 'text' })),
    }));
    const probe = { version: 1, values: {}, editor };
    assert.ok(JSON.stringify(probe.editor).length < 1024 * 1024, 'under the 1 MiB limit of the editor list');
    assert.match(refusal(probe).message, /declares 6000 scopes/);
  });
});
