// The VCC kinds' table (protocol/vcc-kinds.ts) holds together: every written name parses to its
// kind, every kind's default fits its own check, its TypeScript type and control are named. A new
// entry with an invalid default or a name that parses to something else fails here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { typeFor } from '../../cli/generate.js';
import { assertValueFitsType, defaultValueOf, parseVccType, VCC_KINDS, VCC_TYPES, type VccKind } from '../../protocol/customization.js';

/** The options a kind cannot parse without; every other kind parses from none. */
const REQUIRED_OPTIONS: Partial<Record<VccKind, Record<string, unknown>>> = {
  select: { options: ['a', 'b'] },
  object: { fields: [{ key: 'name', type: 'text' }] },
};

describe('the VCC kinds table', () => {
  it('lists every kind but unknown among the known type names, each once, in table order', () => {
    const kinds = Object.keys(VCC_KINDS) as VccKind[];
    assert.deepEqual(
      VCC_TYPES,
      kinds.filter((kind) => kind !== 'unknown').map((kind) => VCC_KINDS[kind].typeName),
    );
    assert.equal(new Set(VCC_TYPES).size, VCC_TYPES.length);
    assert.ok(VCC_TYPES.length >= 16);
  });

  it('parses each written name to its own kind, whose default fits its check and has a TypeScript type and a control tag', () => {
    for (const kind of Object.keys(VCC_KINDS) as VccKind[]) {
      if (kind === 'unknown') continue;
      const name = VCC_KINDS[kind].typeName;
      const type = parseVccType(name, (REQUIRED_OPTIONS[kind] ?? {}) as never);
      assert.equal(type.kind, kind, `${name} parses to ${type.kind}`);
      const value = defaultValueOf(type);
      assert.doesNotThrow(() => assertValueFitsType(value, type), `the default of ${name} fits it`);
      assert.notEqual(typeFor(type, []), '', `${name} has a TypeScript type`);
      assert.match(VCC_KINDS[kind].control, /^platform-[a-z-]+-control$/);
    }
  });

  it('gives a name no kind claims the unknown kind: any value fits, typed from what was seen', () => {
    const type = parseVccType('sparkles');
    assert.deepEqual(type, { kind: 'unknown', name: 'sparkles' });
    assert.doesNotThrow(() => assertValueFitsType({ any: ['thing'] }, type));
    assert.equal(typeFor(type, []), 'unknown');
    assert.equal(typeFor(type, [1, 'a']), 'number | string');
    // A prototype name is a name like any other: not a kind, never a property of the table.
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) assert.equal(parseVccType(name).kind, 'unknown');
  });

  it('writes the TypeScript type of each kind from the table, not a default', () => {
    assert.equal(typeFor(parseVccType('range'), []), 'number');
    assert.equal(typeFor(parseVccType('boolean'), []), 'boolean');
    assert.equal(typeFor(parseVccType('select', { options: ['a', 'b'] }), []), '"a" | "b"');
    assert.equal(typeFor(parseVccType('coordinate'), []), '{ x: number; y: number }');
    assert.equal(typeFor(parseVccType('array<size>'), []), '{ width: number; height: number }[]');
    assert.equal(typeFor(parseVccType('secret<image>'), []), 'string');
    assert.equal(typeFor(undefined, [true]), 'boolean');
  });
});
