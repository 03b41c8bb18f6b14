import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EditHistory } from '../../host/editor/history.js';

describe('EditHistory', () => {
  it('merges a burst of edits of one path into one step, keeping the first before', () => {
    const history = new EditHistory({ coalesceMs: 500 });
    history.record(['c', 't'], 'H', 'He', 0);
    history.record(['c', 't'], 'He', 'Hel', 100);
    history.record(['c', 't'], 'Hel', 'Hell', 200);
    assert.equal(history.undoDepth, 1);
    assert.deepEqual(history.undo(), { path: ['c', 't'], before: 'H', after: 'Hell' });
    assert.equal(history.canUndo, false);
  });
  it('starts a new step after a pause or for another path', () => {
    const history = new EditHistory({ coalesceMs: 500 });
    history.record(['c', 't'], 'a', 'b', 0);
    history.record(['c', 't'], 'b', 'c', 1000);
    history.record(['c', 's'], 1, 2, 1100);
    assert.equal(history.undoDepth, 3);
    assert.deepEqual(history.undo()?.path, ['c', 's']);
    assert.deepEqual(history.undo(), { path: ['c', 't'], before: 'b', after: 'c' });
  });
  it('redo re-applies, and a new edit drops the redo stack', () => {
    const history = new EditHistory();
    history.record(['c', 't'], 'a', 'b', 0);
    history.undo();
    assert.equal(history.canRedo, true);
    assert.deepEqual(history.redo(), { path: ['c', 't'], before: 'a', after: 'b' });
    history.undo();
    history.record(['c', 't'], 'a', 'z', 10);
    assert.equal(history.canRedo, false);
  });
  it('an edit right after undo does not merge into the undone step', () => {
    const history = new EditHistory({ coalesceMs: 10_000 });
    history.record(['c', 't'], 'a', 'b', 0);
    history.record(['c', 's'], 1, 2, 1);
    history.undo();
    history.record(['c', 't'], 'b', 'c', 2);
    assert.equal(history.undoDepth, 2);
  });
  it('no step for an edit that changes nothing, and a burst that returns to the start vanishes', () => {
    const history = new EditHistory();
    history.record(['c', 't'], 'a', 'a', 0);
    assert.equal(history.canUndo, false);
    history.record(['c', 't'], 'a', 'ab', 1);
    history.record(['c', 't'], 'ab', 'a', 2);
    assert.equal(history.canUndo, false);
  });
  it('keeps at most maxEntries steps', () => {
    const history = new EditHistory({ maxEntries: 3, coalesceMs: 0 });
    for (let i = 0; i < 5; i++) history.record(['c', String(i)], i, i + 1, i * 10);
    assert.equal(history.undoDepth, 3);
  });
});
