// platform-vcc and the original platform's type syntax: object<Name> (fields under
// typeOptions.Name, keyed by field key), object<Name>[], secret<image>, coordinate and size
// build without "unknown type" warnings, get their defaults, and are typed in the .d.ts.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createCustomizationBuilder } from '../../cli/build-customization.js';
import { makeTemplate, type TempTemplate } from './cli-support.js';

describe('platform-vcc: customization types of the original platform', () => {
  const made: TempTemplate[] = [];
  after(async () => {
    for (const t of made) await t.remove();
  });

  it('builds a file in the original style without warnings, filling the defaults of missing values', async () => {
    const t = await makeTemplate('original-style');
    made.push(t);
    const result = await createCustomizationBuilder({ root: t.root, env: {} }).build();
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.warnings, []);
    const general = result.customization.values['general'] as Record<string, unknown>;
    assert.deepEqual(general['reveal'], { caption: 'Tap to reveal', image: 'https://images.example/cat.png', tint: '#000000', zoom: 1 });
    assert.deepEqual(general['enemies'], [{ name: 'Orc', sprite: '', strLevel: 10 }]);
    assert.deepEqual(general['spot'], { x: 10, y: 20 });
    assert.deepEqual(general['box'], { width: 0, height: 0 });
    assert.equal(general['badge'], '');
  });

  it('generates TypeScript types: an object type, a list of it, {x, y}, {width, height} and string for secret<image>', async () => {
    const t = await makeTemplate('original-style');
    made.push(t);
    const { typesSource } = await createCustomizationBuilder({ root: t.root, env: {} }).build();
    assert.match(typesSource, /reveal: \{ caption: string; image: string; tint: string; zoom: number \};/);
    assert.match(typesSource, /enemies: \{ name: string; sprite: string; strLevel: number \}\[\];/);
    assert.match(typesSource, /spot: \{ x: number; y: number \};/);
    assert.match(typesSource, /box: \{ width: number; height: number \};/);
    assert.match(typesSource, /badge: string;/);
  });

  it('checks values against the nested definitions, warning at the nested path and keeping the values', async () => {
    const t = await makeTemplate();
    made.push(t);
    await t.write('g.json', {
      g: { reveal: { zoom: 9 }, spot: { x: 'left', y: 0 }, box: { width: -1, height: 2 }, list: [{ n: 'a' }, { n: 'b' }, { n: 'c' }] },
      '@@editor': [
        {
          key: 'g',
          fields: [
            { key: 'reveal', type: 'object<R>', typeOptions: { R: { zoom: { type: 'range', typeOptions: { min: 1, max: 5 } } } } },
            { key: 'spot', type: 'coordinate' },
            { key: 'box', type: 'size' },
            { key: 'list', type: 'object<N>[]', typeOptions: { max: 2, N: { n: { type: 'text' } } } },
          ],
        },
      ],
    });
    const result = await createCustomizationBuilder({ root: t.root, env: {} }).build();
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.warnings.map((warning) => warning.path),
      ['/g/reveal/zoom', '/g/spot', '/g/box', '/g/list'],
    );
    assert.deepEqual((result.customization.values['g'] as Record<string, unknown>)['spot'], { x: 'left', y: 0 });
  });

  it('reports object<Name> without typeOptions.Name as a problem, and still warns of truly unknown types (colour), nested ones too', async () => {
    const t = await makeTemplate();
    made.push(t);
    await t.write('g.json', {
      '@@editor': [
        {
          key: 'g',
          fields: [
            { key: 'lost', type: 'object<Missing>', typeOptions: {} },
            { key: 'tint', type: 'colour' },
            { key: 'card', type: 'object<Card>', typeOptions: { Card: { shade: { type: 'colour' } } } },
          ],
        },
      ],
    });
    const result = await createCustomizationBuilder({ root: t.root, env: {} }).build();
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0]!.reason, /object<Missing> needs typeOptions\.Missing/);
    await t.write('g.json', {
      '@@editor': [
        {
          key: 'g',
          fields: [
            { key: 'tint', type: 'colour' },
            { key: 'card', type: 'object<Card>', typeOptions: { Card: { shade: { type: 'colour' } } } },
            { key: 'ok', type: 'secret<image>' },
            { key: 'spot', type: 'coordinate' },
          ],
        },
      ],
    });
    const second = await createCustomizationBuilder({ root: t.root, env: {} }).build();
    assert.deepEqual(second.problems, []);
    assert.deepEqual(
      second.warnings.map((warning) => [warning.file, warning.path]),
      [
        ['.platform/customization/g.json', '/@@editor/0/fields/0/type'],
        ['.platform/customization/g.json', '/@@editor/0/fields/1/type (field "shade")'],
      ],
    );
    assert.match(second.warnings[0]!.reason, /unknown type "colour" \(did you mean "color"\?\)/);
  });
});
