import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatColor, formatOf, parseColor } from '../../host/editor/controls/color-util.js';
import { fileMatchesAccept } from '../../host/editor/controls/media-control.js';

describe('color notations', () => {
  it('reads hex, rgb and hsl, with and without alpha', () => {
    assert.deepEqual(parseColor('#f00'), { r: 255, g: 0, b: 0, a: 1 });
    assert.deepEqual(parseColor('#00ff0080'), { r: 0, g: 255, b: 0, a: 0.5 });
    assert.deepEqual(parseColor('rgb(0, 128, 255)'), { r: 0, g: 128, b: 255, a: 1 });
    assert.deepEqual(parseColor('rgba(0 128 255 / 50%)'), { r: 0, g: 128, b: 255, a: 0.5 });
    assert.deepEqual(parseColor('hsl(0, 100%, 50%)'), { r: 255, g: 0, b: 0, a: 1 });
    assert.deepEqual(parseColor('hsla(120deg, 100%, 25%, 0.25)'), { r: 0, g: 128, b: 0, a: 0.25 });
    assert.equal(parseColor('red'), undefined);
    assert.equal(parseColor('#12'), undefined);
    assert.equal(parseColor('rgb(1, 2)'), undefined);
  });
  it('writes each notation and round-trips', () => {
    const color = { r: 0, g: 128, b: 255, a: 0.5 };
    assert.equal(formatColor(color, 'hex', true), '#0080ff80');
    assert.equal(formatColor(color, 'hex', false), '#0080ff');
    assert.equal(formatColor(color, 'rgb', true), 'rgba(0, 128, 255, 0.5)');
    assert.equal(formatColor(color, 'hsl', false), 'hsl(210, 100%, 50%)');
    assert.deepEqual(parseColor(formatColor(color, 'rgb', true)), color);
    assert.equal(formatOf('hsla(1, 2%, 3%, 0.4)'), 'hsl');
  });
});

describe('fileMatchesAccept', () => {
  it('matches MIME types, wildcards and extensions', () => {
    assert.equal(fileMatchesAccept('image/png', 'a.png', ['image/*']), true);
    assert.equal(fileMatchesAccept('image/png', 'a.png', ['image/jpeg']), false);
    assert.equal(fileMatchesAccept('', 'notes.TXT', ['.txt']), true);
    assert.equal(fileMatchesAccept('application/zip', 'a.zip', ['*/*']), true);
    assert.equal(fileMatchesAccept('audio/wav', 'a.wav', ['image/*', 'video/*']), false);
  });
});
