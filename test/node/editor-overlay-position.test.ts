import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeOverlay, templateCentre, templateToViewport, type FrameBox } from '../../host/editor/overlay-position.js';

const viewport = { width: 800, height: 600 };
const size = { width: 200, height: 150 };

describe('placeOverlay', () => {
  it('opens below and to the right of the point, gap 8', () => {
    assert.deepEqual(placeOverlay({ anchor: { x: 100, y: 100 }, size, viewport }), { left: 108, top: 108, flippedX: false, flippedY: false, clampedX: false, clampedY: false });
  });
  it('flips left at the right edge and up at the bottom edge', () => {
    const placed = placeOverlay({ anchor: { x: 790, y: 590 }, size, viewport });
    assert.equal(placed.flippedX, true);
    assert.equal(placed.flippedY, true);
    assert.equal(placed.left, 790 - 8 - 200);
    assert.equal(placed.top, 590 - 8 - 150);
  });
  it('keeps the margin at the top-left corner', () => {
    const placed = placeOverlay({ anchor: { x: -40, y: -40 }, size, viewport });
    assert.equal(placed.left, 8);
    assert.equal(placed.top, 8);
  });
  it('clamps when neither side has room, keeping its start on screen', () => {
    const placed = placeOverlay({ anchor: { x: 150, y: 150 }, size: { width: 200, height: 280 }, viewport: { width: 320, height: 300 } });
    assert.equal(placed.clampedY, true);
    assert.equal(placed.top, 300 - 8 - 280);
    const tooBig = placeOverlay({ anchor: { x: 10, y: 10 }, size: { width: 1000, height: 1000 }, viewport });
    assert.equal(tooBig.left, 8);
    assert.equal(tooBig.top, 8);
  });
  it('never leaves the viewport for any anchor of a fitting overlay', () => {
    for (let x = -100; x <= 900; x += 37) {
      for (let y = -100; y <= 700; y += 41) {
        const placed = placeOverlay({ anchor: { x, y }, size, viewport });
        assert.ok(placed.left >= 8 && placed.left + size.width <= viewport.width - 8, `x ${x}: ${placed.left}`);
        assert.ok(placed.top >= 8 && placed.top + size.height <= viewport.height - 8, `y ${y}: ${placed.top}`);
      }
    }
  });
});

describe('templateToViewport', () => {
  const frame: FrameBox = { rect: { x: 50, y: 40, width: 404, height: 304 }, borderLeft: 2, borderTop: 2, contentWidth: 400, contentHeight: 300 };
  it('adds the iframe position and border', () => {
    assert.deepEqual(templateToViewport({ x: 10, y: 20 }, frame), { x: 62, y: 62 });
  });
  it('brings points outside the template to its edge', () => {
    assert.deepEqual(templateToViewport({ x: -5, y: 9999 }, frame), { x: 52, y: 342 });
  });
  it('centre', () => {
    assert.deepEqual(templateCentre(frame), { x: 200, y: 150 });
  });
});
