import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertValueFitsType, defaultValueOf, isColorString, parseVccType } from '../../protocol/customization.js';
import { assertPlainData, assertVccPath, readPath, templatePath, utf8Length } from '../../protocol/data.js';
import { writeInside } from '../../protocol/vcc-paths.js';
import { deserializeError, ERROR_CODES, PlatformError, serializeError } from '../../protocol/errors.js';
import { parseHello, parseWelcome } from '../../protocol/link.js';
import { parseHandshakeJoin } from '../../protocol/handshake-join.js';
import { encodeHandshakeJoin } from '../../protocol/handshake-subprotocols.js';
import { SIGNALING_VERSION, type JoinMessage } from '../../protocol/signaling.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return (error as PlatformError).code;
  }
  return undefined;
};

describe('errors', () => {
  it('keep name, code and message through the wire form', () => {
    const error = new PlatformError('SHARD_FULL', 'shard "a" is full');
    assert.equal(error.message, 'platform-kit: shard "a" is full');
    const back = deserializeError(JSON.parse(JSON.stringify(serializeError(error))));
    assert.equal(back.name, 'PlatformError');
    assert.equal(back.code, 'SHARD_FULL');
    assert.equal(back.message, error.message);
  });

  it('turn foreign errors into INTERNAL and junk into INVALID_MESSAGE', () => {
    assert.equal(serializeError(new TypeError('boom')).code, 'INTERNAL');
    assert.equal(deserializeError({ code: 'NOT_A_CODE', message: 'x' }).code, 'INVALID_MESSAGE');
    assert.equal(deserializeError('text').code, 'INVALID_MESSAGE');
    assert.ok(deserializeError({ code: 'INTERNAL', message: 'x'.repeat(10_000) }).message.length <= 1_000 + 'platform-kit: '.length);
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
  });
});

describe('paths and values', () => {
  it('accept [scope, key] paths and refuse prototype keys, empties and non-strings', () => {
    assert.deepEqual(assertVccPath(['card', 'title']), ['card', 'title']);
    for (const bad of [[], ['__proto__'], ['a', 'constructor'], ['prototype'], [''], [1], 'a.b', null, Array(9).fill('a'), ['x'.repeat(129)]]) {
      assert.equal(
        codeOf(() => assertVccPath(bad)),
        'INVALID_PATH',
        JSON.stringify(bad),
      );
    }
  });

  it('accept plain data and refuse functions, class instances, cycles, NaN and forbidden keys', () => {
    assert.deepEqual(assertPlainData({ a: [1, 'b', null, true, { c: 2 }] }), { a: [1, 'b', null, true, { c: 2 }] });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const bad of [() => 1, new Date(), new Map(), cyclic, Number.NaN, Infinity, undefined, Symbol('s'), 10n, JSON.parse('{"__proto__":{"x":1}}')]) {
      assert.equal(
        codeOf(() => assertPlainData(bad)),
        'INVALID_VALUE',
        String(bad),
      );
    }
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    assert.equal(
      codeOf(() => assertPlainData(deep)),
      'INVALID_VALUE',
    );
  });

  it('measure size in UTF-8 bytes of JSON', () => {
    assert.equal(utf8Length('aé€😀'), 1 + 2 + 3 + 4);
    assert.equal(
      codeOf(() => assertPlainData('é'.repeat(600), 1_000)),
      'VALUE_TOO_LARGE',
    );
    assert.equal(
      codeOf(() => assertPlainData('e'.repeat(600), 1_000)),
      undefined,
    );
  });

  it('read and write own properties only, copying along the path', () => {
    const values = { card: { title: 'a' } };
    const next = writeInside(values, ['card', 'title'], 'b');
    assert.equal(values.card.title, 'a');
    assert.equal(readPath(next, ['card', 'title']), 'b');
    assert.equal(readPath(values, ['card', 'toString']), undefined);
    assert.equal(readPath(values, ['missing', 'x']), undefined);
  });

  it("take a template's path: numbers after [scope, key] index lists, trailing undefined is dropped", () => {
    assert.deepEqual(templatePath(['messages', 'items', 0, 'text']), ['messages', 'items', '0', 'text']);
    assert.deepEqual(templatePath(['card', 'title', undefined]), ['card', 'title']);
    assert.deepEqual(templatePath(['card', 'title', undefined, undefined]), ['card', 'title']);
    const plain = ['card', 'title'];
    assert.equal(templatePath(plain), plain, 'a path of strings is taken as it is, not copied');
    for (const bad of [[0, 'x'], ['card', 1], ['card', 'items', -1], ['card', 'items', 1.5], ['card', 'items', Number.NaN], ['card', undefined, 'x'], [undefined], []]) {
      assert.equal(
        codeOf(() => templatePath(bad)),
        'INVALID_PATH',
        JSON.stringify(bad),
      );
    }
  });

  it('step into lists by index only, and keep them lists when writing', () => {
    const values = { messages: { items: [{ text: 'one' }, { text: 'two' }] } };
    assert.equal(readPath(values, ['messages', 'items', '1', 'text']), 'two');
    for (const notAnIndex of ['length', 'push', '01', '-1', '2', '1.0']) assert.equal(readPath(values, ['messages', 'items', notAnIndex]), undefined, notAnIndex);
    const next = writeInside(values, ['messages', 'items', '0', 'text'], 'first') as { messages: { items: { text: string }[] } };
    assert.deepEqual(next, { messages: { items: [{ text: 'first' }, { text: 'two' }] } });
    assert.ok(Array.isArray(next.messages.items));
    assert.equal(values.messages.items[0]?.text, 'one', 'the original is not changed');
    assert.equal(next.messages.items[1], values.messages.items[1], 'what lies off the path is shared');
    // A list never gets holes, nor a name: only an existing item's index steps in.
    assert.equal(
      codeOf(() => writeInside(['a'], ['1'], 'b')),
      'INVALID_PATH',
    );
    assert.equal(
      codeOf(() => writeInside(['a'], ['x'], 1)),
      'INVALID_PATH',
    );
    assert.deepEqual(writeInside(['a'], [0], 'b'), ['b']);
  });
});

describe('handshake guards', () => {
  it('accept only well-formed hello and welcome messages', () => {
    assert.ok(parseHello({ type: 'platform-kit:hello', version: 1, helloId: 'abcdef0123' }));
    assert.equal(parseHello({ type: 'platform-kit:hello', version: 2, helloId: 'abcdef0123' }), null);
    assert.equal(parseHello({ type: 'platform-kit:hello', version: 1, helloId: '<script>' }), null);
    assert.equal(parseHello('platform-kit:hello'), null);
    assert.ok(parseWelcome({ type: 'platform-kit:welcome', version: 1, helloId: 'abcdef0123' }));
    assert.equal(parseWelcome({ type: 'platform-kit:hello', version: 1, helloId: 'abcdef0123' }), null);
  });
});

describe('the handshake join (v2)', () => {
  it('encodes as base64url with no padding and decodes to the same join, for UTF-8 of every padding length', () => {
    const decode = (encoded: string): string => Buffer.from(encoded, 'base64url').toString('utf8');
    for (let extra = 0; extra < 6; extra++) {
      const join: JoinMessage = {
        type: 'join',
        v: SIGNALING_VERSION,
        id: 1,
        projectId: 'demo',
        kind: 'browser',
        shardName: 's',
        userInfo: { name: `Zoë 😀 ${'+/'.repeat(extra)}` },
      };
      const protocols = encodeHandshakeJoin(join)!;
      assert.match(protocols[1]!, /^platform-kit\.join\.[A-Za-z0-9_-]+$/, 'a subprotocol token: no +, / or =');
      assert.deepEqual(parseHandshakeJoin(protocols.join(', '), decode), join);
    }
  });
});

describe('VCC types', () => {
  it('parse every built-in type and composite arrays and objects', () => {
    assert.deepEqual(parseVccType('range', { min: 1, max: 5, step: 0.5 }), { kind: 'range', min: 1, max: 5, step: 0.5 });
    assert.deepEqual(parseVccType('select', { options: ['a', { value: 'b', label: 'Bee' }] }), {
      kind: 'select',
      options: [
        { value: 'a', label: 'a' },
        { value: 'b', label: 'Bee' },
      ],
    });
    const list = parseVccType('array<object>', {
      min: 1,
      max: 3,
      item: {
        fields: [
          { key: 'name', type: 'text' },
          { key: 'on', type: 'boolean' },
        ],
      },
    });
    assert.equal(list.kind, 'array');
    assert.deepEqual(defaultValueOf(list), [{ name: '', on: false }]);
    assert.deepEqual(parseVccType('sparkles'), { kind: 'unknown', name: 'sparkles' });
    assert.equal(
      codeOf(() => parseVccType('range', { min: 5, max: 1 })),
      'INVALID_CONFIG',
    );
    assert.equal(
      codeOf(() => parseVccType('select', {})),
      'INVALID_CONFIG',
    );
  });

  it('check values against their type', () => {
    const fits = (value: unknown, type: string, options = {}) => codeOf(() => assertValueFitsType(value, parseVccType(type, options))) === undefined;
    assert.ok(fits('hi', 'text'));
    assert.ok(!fits(3, 'text'));
    assert.ok(fits(3, 'range', { min: 0, max: 5 }));
    assert.ok(!fits(9, 'range', { min: 0, max: 5 }));
    assert.ok(fits('#abc', 'color'));
    assert.ok(!fits('#abcd', 'color'));
    assert.ok(fits('#abcd', 'color', { allowAlpha: true }));
    assert.ok(fits('hsl(120 50% 50%)', 'color'));
    assert.ok(fits('rgba(1, 2, 3, 0.5)', 'color', { allowAlpha: true }));
    assert.ok(!fits('rgba(1, 2, 3, 0.5)', 'color'));
    assert.ok(!fits('red; background:url(x)', 'color'));
    const messageOf = (value: unknown, type: string, options = {}): string => {
      try {
        assertValueFitsType(value, parseVccType(type, options));
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    // Messages a person reads: "an image", "an opaque color".
    assert.match(messageOf(3, 'image'), /for an image VCC/);
    assert.match(messageOf(3, 'text'), /for a text VCC/);
    assert.match(messageOf('#12345678', 'color'), /must be an opaque color/);
    assert.match(messageOf('nope', 'color', { allowAlpha: true }), /must be a color/);
    assert.ok(fits('b', 'select', { options: ['a', 'b'] }));
    assert.ok(!fits('c', 'select', { options: ['a', 'b'] }));
    assert.ok(fits('https://cdn.example/a.png', 'image'));
    assert.ok(!fits('javascript:alert(1)', 'image'));
    assert.ok(!fits('//evil.example/a.png', 'image'));
    assert.ok(fits('platform-keystore://api-key', 'secret'));
    assert.ok(!fits('sk_live_123', 'secret'));
    assert.ok(fits(['a', 'b'], 'array<text>', { max: 2 }));
    assert.ok(!fits(['a', 'b', 'c'], 'array<text>', { max: 2 }));
    assert.ok(!fits(['a', 1], 'array<text>'));
    assert.ok(fits({ on: true }, 'object', { fields: [{ key: 'on', type: 'boolean' }] }));
    assert.ok(!fits({ on: 'yes' }, 'object', { fields: [{ key: 'on', type: 'boolean' }] }));
    assert.ok(isColorString('#ffffff', false));
  });
});
