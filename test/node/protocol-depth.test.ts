import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_JSON_DEPTH, isPrototypeKey, jsonDepthWithin } from '../../protocol/data.js';

const arrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

describe('jsonDepthWithin', () => {
  it('is 64 by default', () => {
    assert.equal(DEFAULT_MAX_JSON_DEPTH, 64);
  });

  it('accepts nesting exactly at the limit and refuses one over, for arrays and objects', () => {
    for (const max of [1, 2, 8, 64]) {
      assert.equal(jsonDepthWithin(arrays(max), max), true, `arrays ${max}`);
      assert.equal(jsonDepthWithin(arrays(max + 1), max), false, `arrays ${max + 1}`);
      assert.equal(jsonDepthWithin(objects(max), max), true, `objects ${max}`);
      assert.equal(jsonDepthWithin(objects(max + 1), max), false, `objects ${max + 1}`);
      // The texts are real JSON with the depth we claim.
      JSON.parse(arrays(max + 1));
      JSON.parse(objects(max + 1));
    }
    // Mixed nesting counts both kinds.
    assert.equal(jsonDepthWithin('{"a":[{"b":[1]}]}', 4), true);
    assert.equal(jsonDepthWithin('{"a":[{"b":[1]}]}', 3), false);
  });

  it('counts depth, not the number of brackets: siblings do not add up', () => {
    const wide = '[' + Array.from({ length: 1_000 }, () => '[[1]]').join(',') + ']';
    assert.equal(jsonDepthWithin(wide, 3), true);
    assert.equal(jsonDepthWithin(wide, 2), false);
  });

  it('ignores brackets inside strings', () => {
    const inString = JSON.stringify({ text: '['.repeat(500) + '{'.repeat(500) });
    assert.equal(jsonDepthWithin(inString, 1), true);
    const keyed = JSON.stringify({ ['{'.repeat(200)]: ['x]]]]]'] });
    assert.equal(jsonDepthWithin(keyed, 2), true);
    assert.equal(jsonDepthWithin(keyed, 1), false);
  });

  it('does not end a string at an escaped quote, and reads an escaped backslash as closing the escape', () => {
    // "a\"[[[[" is one string: its brackets do not count.
    const escapedQuote = JSON.stringify(['a"' + '['.repeat(100)]);
    assert.ok(escapedQuote.includes('\\"'));
    assert.equal(jsonDepthWithin(escapedQuote, 1), true);
    // "a\\" ends after the escaped backslash: the brackets after it count.
    const escapedBackslash = JSON.stringify(['a\\', [[[['b']]]]]);
    assert.ok(escapedBackslash.includes('\\\\"'));
    assert.equal(jsonDepthWithin(escapedBackslash, 5), true);
    assert.equal(jsonDepthWithin(escapedBackslash, 4), false);
    // Many escapes in a row, ending in a quote that is real.
    const mixed = JSON.stringify(['\\"\\\\"[[[', [['x']]]);
    assert.equal(jsonDepthWithin(mixed, 3), true);
    assert.equal(jsonDepthWithin(mixed, 2), false);
  });

  it('refuses 10,000-deep arrays and objects quickly, without recursion', () => {
    assert.equal(jsonDepthWithin(arrays(10_000), DEFAULT_MAX_JSON_DEPTH), false);
    assert.equal(jsonDepthWithin(objects(10_000), DEFAULT_MAX_JSON_DEPTH), false);
    assert.equal(jsonDepthWithin(arrays(10_000), 10_000), true);
    assert.equal(jsonDepthWithin(objects(10_000), 10_000), true);
  });

  it('takes the fast path for text no longer than the limit, and passes scalars and empty text', () => {
    assert.equal(jsonDepthWithin('[[[', 3), true);
    assert.equal(jsonDepthWithin('', 0), true);
    assert.equal(jsonDepthWithin('"' + '['.repeat(1_000) + '"', 1), true);
    assert.equal(jsonDepthWithin('12345', 0), true);
    assert.equal(jsonDepthWithin('[1]', 0), false);
  });
});

describe('isPrototypeKey', () => {
  it('is true for every property of Object.prototype and for prototype, false for ordinary names', () => {
    for (const name of [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      assert.equal(isPrototypeKey(name), true, name);
    }
    for (const name of ['card', 'title', 'metadata', 'toString2', 'ToString', 'proto', '']) assert.equal(isPrototypeKey(name), false, name);
  });
});
